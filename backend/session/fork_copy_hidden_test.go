package session_test

// A fork's copy leaves out what the commands' view hides: Loupe's database
// (with its -wal and -shm) when it lies in the workspace, and says so. In
// the copy it would be an ordinary file, and the fork's model would read
// every session of every workspace out of it.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
)

func TestAForksCopyLeavesOutLoupesDatabase(t *testing.T) {
	const secret = "OTHER-PROJECT-SECRET-4417"
	ctx := context.Background()
	srv := ollamatest.New(t)
	srv.AddModel(ollamatest.ModelSpec{Name: testModel, ContextLength: 32768})
	srv.AddModel(ollamatest.ModelSpec{Name: "other", ContextLength: 32768})
	ws := demoWorkspace(t)
	st, err := store.Open(filepath.Join(ws, "loupe.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	asks := make(chan trace.Permission, 16)
	h := &harness{t: t, srv: srv, st: st, broker: permission.NewBroker(), sink: &recordingSink{asks: asks}, asks: asks, ws: ws}
	h.m = session.NewManager(st, ollama.New(srv.URL(), nil), h.broker, h.sink)
	t.Cleanup(h.m.StopAll)
	saveSettings(t, st, permission.ModeAuto, nil)
	h.approveAll()

	// Another project's session, with a secret in it.
	otherWS := demoWorkspace(t)
	o, err := h.m.Create(ctx, otherWS, testModel)
	if err != nil {
		t.Fatal(err)
	}
	srv.Script(ollamatest.Text("noted"))
	if _, err := h.m.Run(ctx, o.ID, "the staging password is "+secret, session.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { s, _ := st.GetSession(ctx, o.ID); return s.OpenRun == 0 }, "the other session's run")

	sum, err := h.m.Create(ctx, ws, testModel)
	if err != nil {
		t.Fatal(err)
	}
	h.id = sum.ID
	const look = `{"command":"grep -a -o 'OTHER-PROJECT-SECRET-[0-9]*' loupe.db loupe.db-wal 2>&1 | head -3; echo searched"}`
	srv.Script(calls(call("c1", "run_command", look)), ollamatest.Text("looked"))
	h.run("Look around.")
	if rs := results(t, h.events()); strings.Contains(rs[0].Content, secret) {
		t.Fatalf("control: in the workspace itself the command read the database: %q", rs[0].Content)
	}

	srv.Script(calls(call("d1", "run_command", look)), ollamatest.Text("looked"))
	f, err := h.m.RunFrom(ctx, session.Fork{Session: h.id, At: 1, Model: "other"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(f.Files.Workspace) })
	waitFor(t, func() bool { s, _ := st.GetSession(ctx, f.Summary.ID); return s.OpenRun == 0 && s.EventCount > 2 }, "the fork's run")
	child, _ := st.Events(ctx, f.Summary.ID)
	for _, r := range results(t, child) {
		if strings.Contains(r.Content, secret) {
			t.Fatalf("in the fork's copy %s a command read another project's session out of the copied database: %q", f.Files.Workspace, r.Content)
		}
	}
	for _, name := range []string{"loupe.db", "loupe.db-wal", "loupe.db-shm"} {
		if _, err := os.Lstat(filepath.Join(f.Files.Workspace, name)); err == nil {
			t.Fatalf("the fork's copy %s holds %s, Loupe's database", f.Files.Workspace, name)
		}
	}
	said := false
	for _, n := range f.Files.NotCopied {
		said = said || n.Path == "loupe.db" && strings.Contains(n.Note, "Loupe")
	}
	if !said {
		t.Fatalf("the fork does not say it left Loupe's database out of the copy: %+v", f.Files.NotCopied)
	}
}
