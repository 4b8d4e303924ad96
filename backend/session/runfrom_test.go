package session_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

// "Run from here on…" at the task's message: one action forks the session
// with another model in a copy of the workspace and runs the task again
// there to its end. The child's requests go to the other model, what it
// writes lands in the copy, and the parent's folder and log are as they
// were.
func TestRunFromHereRunsTheRestOnAnotherModelInACopy(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	ctx := context.Background()
	h.srv.AddModel(ollamatest.ModelSpec{Name: "other", ContextLength: 32768})
	h.srv.Script(
		calls(call("call_1", "write_file", `{"path":"out.txt","content":"parent\n"}`)),
		ollamatest.Text("Wrote it."),
	)
	h.run("Write out.txt.")
	before := exportedJSON(t, h)
	n := sessionCount(t, h)
	evs := h.events()
	if _, err := h.m.RunFrom(ctx, session.Fork{Session: h.id, At: int64(len(evs)), Model: "other"}); err == nil || !strings.Contains(err.Error(), "nothing of it left to run") {
		t.Fatalf("run from the run's end: %v", err)
	}
	if sessionCount(t, h) != n {
		t.Fatal("a refused run from here made a session")
	}

	sent := len(h.srv.Requests())
	h.srv.Script(
		calls(call("c_1", "write_file", `{"path":"out.txt","content":"child\n"}`)),
		ollamatest.Text("Wrote it too."),
	)
	f, err := h.m.RunFrom(ctx, session.Fork{Session: h.id, At: 1, Model: "other"})
	if err != nil {
		t.Fatal(err)
	}
	if !f.Files.Copy || f.Files.Workspace == h.ws || f.Summary.Model != "other" {
		t.Fatalf("the fork works in %s (copy %v) with %s, want a copy with the other model", f.Files.Workspace, f.Files.Copy, f.Summary.Model)
	}
	waitFor(t, func() bool {
		s, _ := h.st.GetSession(ctx, f.Summary.ID)
		return s.OpenRun == 0 && s.EventCount > 2
	}, "the child's run to end")
	child, _ := h.st.Events(ctx, f.Summary.ID)
	invariants.Check(t, child)
	if end := lastEnd(t, child); end.Reason != trace.EndAnswered || end.FinalText != "Wrote it too." {
		t.Fatalf("the child ended %+v", end)
	}
	for _, r := range h.srv.Requests()[sent:] {
		if !bytes.Contains(r.Body, []byte(`"model":"other"`)) {
			t.Fatalf("a request of the child went to another model: %s", r.Body)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(f.Files.Workspace, "out.txt")); string(got) != "child\n" {
		t.Fatalf("the copy's out.txt = %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(h.ws, "out.txt")); string(got) != "parent\n" {
		t.Fatalf("the parent's out.txt = %q: the child wrote in the parent's folder", got)
	}
	if !bytes.Equal(exportedJSON(t, h), before) {
		t.Fatal("the parent's log changed")
	}
}
