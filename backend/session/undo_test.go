package session_test

import (
	"context"
	"github.com/loupe-dev/loupe/backend/session"
	"os"
	"path/filepath"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/trace"
)

func (h *harness) read(name string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(h.ws, name))
	return string(b), err == nil
}

// Undo puts files back turn by turn: edits are reverted, created files
// removed.
func TestUndoRuns(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	ctx := context.Background()
	h.srv.Script(
		calls(call("c1", "write_file", `{"path":"new.txt","content":"fresh\n"}`),
			call("c2", "edit_file", `{"path":"README.md","old_string":"hello","new_string":"HELLO"}`)),
		ollamatest.Text("done 1"),
		calls(call("c3", "edit_file", `{"path":"notes.txt","old_string":"beta","new_string":"BETA"}`)),
		ollamatest.Text("done 2"),
	)
	h.run("one")
	h.run("two")
	if s, _ := h.read("notes.txt"); s != "alpha\nBETA\n" {
		t.Fatalf("notes.txt = %q", s)
	}
	res, err := restored(h.m.Do(ctx, session.UndoRun{Session: h.id, Run: 2, Force: false}))
	if err != nil || !res.Done || len(res.Restored) != 1 || res.Restored[0] != "notes.txt" {
		t.Fatalf("undo run 2: %+v %v", res, err)
	}
	if s, _ := h.read("notes.txt"); s != "alpha\nbeta\n" {
		t.Fatalf("notes.txt after undo = %q", s)
	}
	if s, _ := h.read("README.md"); s != "# Demo\nHELLO from the workspace\n" {
		t.Fatalf("undo of run 2 touched run 1's change: %q", s)
	}
	if _, err := h.m.Do(ctx, session.UndoRun{Session: h.id, Run: 1, Force: false}); err != nil {
		t.Fatal(err)
	}
	if s, _ := h.read("README.md"); s != "# Demo\nhello from the workspace\n" {
		t.Fatalf("README.md after undo = %q", s)
	}
	if _, ok := h.read("new.txt"); ok {
		t.Fatal("a file the agent created was not removed by undo")
	}
	var restores int
	for _, e := range h.events() {
		if e.Kind == trace.KindRestore {
			restores++
		}
	}
	if restores != 2 {
		t.Fatalf("%d restore events, want 2", restores)
	}
}

// A file changed outside Loupe since is named, and only overwritten when
// the user says so.
func TestRestoreAsksBeforeOverwritingOutsideChanges(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	ctx := context.Background()
	h.srv.Script(
		calls(call("c1", "edit_file", `{"path":"README.md","old_string":"hello","new_string":"HELLO"}`)),
		ollamatest.Text("done"),
	)
	h.run("shout")
	var callSeq int64
	for _, e := range h.events() {
		if e.Kind == trace.KindToolCall {
			callSeq = e.Seq
		}
	}
	h.write("README.md", "# Demo\nmy own change\n")
	res, err := restored(h.m.Do(ctx, session.RestoreFiles{Session: h.id, Seq: callSeq, Force: false}))
	if err != nil || res.Done || len(res.Conflicts) != 1 || res.Conflicts[0].Path != "README.md" {
		t.Fatalf("restore over an outside change: %+v %v", res, err)
	}
	if s, _ := h.read("README.md"); s != "# Demo\nmy own change\n" {
		t.Fatal("the outside change was overwritten without asking")
	}
	res, err = restored(h.m.Do(ctx, session.RestoreFiles{Session: h.id, Seq: callSeq, Force: true}))
	if err != nil || !res.Done {
		t.Fatalf("forced restore: %+v %v", res, err)
	}
	if s, _ := h.read("README.md"); s != "# Demo\nhello from the workspace\n" {
		t.Fatalf("README.md = %q", s)
	}
	evs := h.events()
	p, _ := trace.Decode[trace.Restore](evs[len(evs)-1])
	if len(p.Overwritten) != 1 || p.Overwritten[0] != "README.md" {
		t.Fatalf("restore event = %+v", p)
	}
}

// restored is what a restore command did.
func restored(out session.Outcome, err error) (session.RestoreResult, error) {
	if out.Restore == nil {
		return session.RestoreResult{}, err
	}
	return *out.Restore, err
}
