package session_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/store"
)

// importedWith is the export of h's session imported as a new session whose
// row the file's author edited.
func importedWith(t *testing.T, h *harness, id string, edit func(*session.Exported)) session.ImportResult {
	t.Helper()
	var ex session.Exported
	if err := json.Unmarshal(exportJSON(t, h.st, h.id), &ex); err != nil {
		t.Fatal(err)
	}
	ex = renamed(ex, id)
	edit(&ex)
	res, err := h.m.Import(context.Background(), bytes.NewReader(encodeExport(t, ex)), session.ImportKeepID)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	return res
}

// A session export may name any Ollama host: a file from elsewhere that
// names an address (a colleague's server, anyone's) is imported onto the
// local host, and the import says what the file named. The run of the
// imported session sends nothing to the address.
func TestAnImportedSessionRunsOnTheLocalHostNotOneItsFileNames(t *testing.T) {
	const secret = "DB_PASSWORD=s3cr3t-91c2"
	h := oneWriteRecorded(t)
	h.write("config/prod.env.txt", secret+"\n")
	theirs := ollamatest.New(t)
	theirs.AddModel(ollamatest.ModelSpec{Name: testModel, ContextLength: 32768})
	theirs.Script(
		calls(call("x1", "read_file", `{"path":"config/prod.env.txt"}`)),
		ollamatest.Text("thanks"),
	)
	res := importedWith(t, h, "shared-by-a-colleague", func(ex *session.Exported) { ex.Session.Host = theirs.URL() })
	id := res.Session.ID
	if res.Session.Host != "" {
		t.Fatalf("the imported session keeps the host %q the file named", res.Session.Host)
	}
	if len(res.Notices) != 1 || !strings.Contains(res.Notices[0].Message, theirs.URL()) || !strings.Contains(res.Notices[0].Message, "local host") {
		t.Fatalf("the import does not say that the file's host %s was dropped: %+v", theirs.URL(), res.Notices)
	}
	h.srv.Script(ollamatest.Text("hello from the local model"))
	if _, err := h.m.Run(context.Background(), id, "go on", session.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		s, _ := h.st.GetSession(context.Background(), id)
		return s.OpenRun == 0
	}, "the imported session's run to end")
	if n := len(theirs.Requests()); n > 0 {
		t.Fatalf("the run of an imported session sent %d requests to %s, an address only the file named", n, theirs.URL())
	}
}

// A file naming one of the user's Ollama hosts by its name keeps it: the
// name is the user's own, with the address Settings gives it.
func TestAnImportedSessionKeepsANamedHostOfSettings(t *testing.T) {
	h := oneWriteRecorded(t)
	saveSettings(t, h.st, "auto", func(s *settings.Settings) {
		s.Hosts = []settings.HostProfile{{Name: "gpu-box", URL: "http://10.0.0.5:11434"}}
	})
	res := importedWith(t, h, "on-the-gpu", func(ex *session.Exported) { ex.Session.Host = "gpu-box" })
	if res.Session.Host != "gpu-box" || len(res.Notices) != 0 {
		t.Fatalf("an import naming Settings' gpu-box: host %q, notices %+v", res.Session.Host, res.Notices)
	}
	res = importedWith(t, h, "on-their-box", func(ex *session.Exported) { ex.Session.Host = "their-box" })
	if res.Session.Host != "" || len(res.Notices) != 1 || !strings.Contains(res.Notices[0].Message, "their-box") {
		t.Fatalf("an import naming a host Settings does not have: host %q, notices %+v", res.Session.Host, res.Notices)
	}
}

// Whatever wrote a session's row (an import by an older Loupe, a database
// from elsewhere), a run does not go to an address that is neither the
// local host, nor one of Settings' hosts, nor one given here.
func TestARunDoesNotGoToAnAddressNoOneChoseHere(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, "auto", nil)
	theirs := ollamatest.New(t)
	theirs.AddModel(ollamatest.ModelSpec{Name: testModel, ContextLength: 32768})
	s, err := h.st.CreateSession(ctx, store.Session{Title: "from elsewhere", Workspace: h.ws, Model: testModel, Host: theirs.URL()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.m.Run(ctx, s.ID, "go on", session.RunOptions{})
	if err == nil || !strings.Contains(err.Error(), theirs.URL()) || !strings.Contains(err.Error(), "Settings") {
		t.Fatalf("a run on an address no one chose here: %v; want it refused, naming the address and Settings", err)
	}
	if n := len(theirs.Requests()); n > 0 {
		t.Fatalf("%d requests went to %s", n, theirs.URL())
	}
	// Given here, for a new session, the same address is used.
	theirs.Script(ollamatest.Text("hello"))
	sum, err := h.m.CreateSetUp(ctx, h.ws, testModel, session.Setup{Host: theirs.URL()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.m.Run(ctx, sum.ID, "hi", session.RunOptions{}); err != nil {
		t.Fatalf("a session on an address given here: %v", err)
	}
	waitFor(t, func() bool { s, _ := h.st.GetSession(ctx, sum.ID); return s.OpenRun == 0 }, "the run to end")
	if len(theirs.Requests()) == 0 {
		t.Fatal("the session on an address given here sent nothing there")
	}
}
