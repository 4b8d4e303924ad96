package session_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/workspace"
)

const gitConfig = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"

// approveAll answers every question the runs ask with yes, for this call,
// as a user clicking Approve does.
func (h *harness) approveAll() {
	go func() {
		for a := range h.asks {
			_ = h.answer(a.CallID, true)
		}
	}()
}

// linkCommand makes the link the way a turn's command would: a real
// run_command through the sandbox where the kernel can confine commands,
// and otherwise the same ln run by the test between the turns.
func (h *harness) linkCommand(t *testing.T, command string) []ollamatest.Reply {
	if workspace.Protections().Sandboxed() {
		return []ollamatest.Reply{calls(call("c9", "run_command", `{"command":"`+command+`"}`)), ollamatest.Text("linked")}
	}
	t.Logf("commands cannot be confined here (%s): the link is made by the test", workspace.Protections().Summary())
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = h.ws
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v %s", command, err, out)
	}
	return nil
}

func (h *harness) undo(run int, force bool) session.RestoreResult {
	h.t.Helper()
	out, err := h.m.Do(context.Background(), session.UndoRun{Session: h.id, Run: run, Force: force})
	if err != nil {
		h.t.Fatalf("undo run %d (force %v): %v", run, force, err)
	}
	if out.Restore == nil {
		h.t.Fatalf("undo run %d gave no restore result", run)
	}
	return *out.Restore
}

// The scenario: a turn writes notes.txt whose "before" is text the
// model chose; a later command replaces notes.txt with a link to
// .git/config; Undo this turn must not write through the link, must say
// what it found, and must not write through it when told to overwrite.
func TestUndoNeverWritesThroughALinkACommandMade(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	h.write(".git/config", gitConfig)
	h.approveAll()
	evil := `[core]\n\tfsmonitor = touch FSMONITOR-RAN\n`
	h.srv.Script(
		calls(call("c1", "write_file", `{"path":"notes.txt","content":"`+evil+`"}`)),
		ollamatest.Text("wrote the model's text"),
		// What it writes now is .git/config's text (the model can read
		// it), so that, read through the link, the file looks as Loupe
		// left it: no conflict to see.
		calls(call("c2", "write_file", `{"path":"notes.txt","content":`+strconv.Quote(gitConfig)+`}`)),
		ollamatest.Text("overwrote it"),
	)
	h.run("one")
	h.run("two")
	if r := h.linkCommand(t, "ln -sf .git/config notes.txt"); r != nil {
		h.srv.Script(r...)
		h.run("three")
	}
	if fi, err := os.Lstat(filepath.Join(h.ws, "notes.txt")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the command did not make the link: %v %v", fi, err)
	}

	res := h.undo(2, false)
	h.configUnchanged(t)
	if res.Done || len(res.Conflicts) != 1 {
		t.Fatalf("undo over a link: %+v", res)
	}
	c := res.Conflicts[0]
	if c.Path != "notes.txt" || !c.Kept || c.Reason != "notes.txt is now a symbolic link to .git/config; not restored" {
		t.Fatalf("the conflict does not name the link: %+v", c)
	}
	h.configUnchanged(t)

	res = h.undo(2, true)
	if !res.Done || len(res.Restored) != 0 || len(res.Conflicts) != 1 || !res.Conflicts[0].Kept {
		t.Fatalf("forced undo over a link: %+v", res)
	}
	h.configUnchanged(t)
	if target, err := os.Readlink(filepath.Join(h.ws, "notes.txt")); err != nil || target != ".git/config" {
		t.Fatalf("the link was changed: %q %v", target, err)
	}
}

func (h *harness) configUnchanged(t *testing.T) {
	t.Helper()
	if s, _ := h.read(".git/config"); s != gitConfig {
		t.Fatalf(".git/config changed: %q", s)
	}
}

// A file a turn created is removed by its undo; when a command has since
// turned its folder into a link to .git, the removal would delete
// .git/config: it is refused, and says which folder is the link.
func TestUndoRemovesNothingThroughALinkedFolder(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	h.write(".git/config", gitConfig)
	h.approveAll()
	h.srv.Script(
		calls(call("c1", "write_file", `{"path":"sub/config","content":"made by the turn\n"}`)),
		ollamatest.Text("made it"),
	)
	h.run("one")
	if r := h.linkCommand(t, "rm -r sub && ln -s .git sub"); r != nil {
		h.srv.Script(r...)
		h.run("two")
	}
	for _, force := range []bool{false, true} {
		res := h.undo(1, force)
		if len(res.Conflicts) != 1 || !res.Conflicts[0].Kept || len(res.Restored) != 0 {
			t.Fatalf("undo (force %v) through a linked folder: %+v", force, res)
		}
		if want := "sub is now a symbolic link to .git (on the way to sub/config); not restored"; res.Conflicts[0].Reason != want {
			t.Fatalf("reason %q, want %q", res.Conflicts[0].Reason, want)
		}
		h.configUnchanged(t)
	}
}

// Undo never changes a protected path, even one a tool changed with the
// user's yes: the tools ask before each such change, undo cannot.
func TestUndoLeavesProtectedPathsAlone(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	h.approveAll()
	h.write(".env", "TOKEN=mine\n")
	h.srv.Script(
		calls(call("c1", "write_file", `{"path":".env","content":"TOKEN=changed\n"}`),
			call("c2", "write_file", `{"path":"notes.txt","content":"changed\n"}`)),
		ollamatest.Text("done"),
	)
	h.run("one")
	res := h.undo(1, false)
	if res.Done || len(res.Conflicts) != 1 || !res.Conflicts[0].Kept || !strings.Contains(res.Conflicts[0].Reason, ".env is protected") {
		t.Fatalf("undo of a protected path: %+v", res)
	}
	res = h.undo(1, true)
	if !res.Done || len(res.Restored) != 1 || res.Restored[0] != "notes.txt" {
		t.Fatalf("forced undo: %+v", res)
	}
	if s, _ := h.read(".env"); s != "TOKEN=changed\n" {
		t.Fatalf("undo changed .env: %q", s)
	}
	if s, _ := h.read("notes.txt"); s != "alpha\nbeta\n" {
		t.Fatalf("notes.txt was not put back: %q", s)
	}
}
