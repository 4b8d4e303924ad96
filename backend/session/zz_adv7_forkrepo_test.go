package session_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/trace"
)

const adv7Evil = "[core]\n\tfsmonitor = touch FSMONITOR-RAN\n"

// adv7RepoLater: turn 1 writes r/config with a setting that runs a
// program (r is no repository: nothing protects the name), turn 2 makes it
// harmless, turn 3's command lays r out as a repository (HEAD, objects,
// refs) around the harmless settings, which the check after the round
// leaves (nothing in it would run). It returns the seq of turn 1's result.
func adv7RepoLater(t *testing.T) (*harness, int64) {
	t.Helper()
	h := newHarness(t, permission.ModeAuto, nil)
	h.approveAll()
	replies := []ollamatest.Reply{
		calls(call("c1", "write_file", `{"path":"r/config","content":"[core]\n\tfsmonitor = touch FSMONITOR-RAN\n"}`)),
		ollamatest.Text("one"),
		calls(call("c2", "write_file", `{"path":"r/config","content":"[core]\n\tbare = true\n"}`)),
		ollamatest.Text("two"),
	}
	h.srv.Script(replies...)
	h.run("one")
	h.run("two")
	if more := h.linkCommand(t, "mkdir -p r/objects r/refs && echo ref: refs/heads/main > r/HEAD"); more != nil {
		h.srv.Script(more...)
		h.run("three")
	}
	for _, p := range []string{"r/HEAD", "r/objects", "r/refs"} {
		if _, err := os.Lstat(filepath.Join(h.ws, p)); err != nil {
			t.Fatalf("precondition: the command's repository is not there (%v)", err)
		}
	}
	var at int64
	for _, e := range h.events() {
		if e.Kind == trace.KindToolResult {
			if r, _ := trace.Decode[trace.ToolResult](e); r.CallID == "c1" {
				at = e.Seq
			}
		}
	}
	return h, at
}

// "A copy as it was then" puts r/config back as it was at turn 1 inside a
// folder that is by now a repository: the copy holds a repository whose
// settings run a program when the user's git looks at it. Undo, in the
// workspace, refuses the same write (r/config is a repository's own file
// there: the control below); the copy is written with no protected list.
func TestAdv7ForkCopyDoesNotArmARepositoryACommandLaidOut(t *testing.T) {
	h, at := adv7RepoLater(t)
	folder := filepath.Join(t.TempDir(), "then")
	f, err := h.m.Fork(context.Background(), session.Fork{Session: h.id, At: at, Files: session.FilesCopy, Folder: folder})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(folder, "r", "config")); string(b) == adv7Evil {
		t.Fatalf("the copy's repository r has core.fsmonitor from the snapshot (restored %+v, not restored %+v)", f.Files.Restored, f.Files.NotRestored)
	}
}

// Control: undo of turn 2 in the workspace keeps r/config (protected now).
func TestAdv7UndoDoesNotArmARepositoryACommandLaidOut(t *testing.T) {
	h, _ := adv7RepoLater(t)
	res := h.undo(2, true)
	if b, _ := os.ReadFile(filepath.Join(h.ws, "r", "config")); string(b) == adv7Evil {
		t.Fatalf("undo armed r/config: %+v", res)
	}
}
