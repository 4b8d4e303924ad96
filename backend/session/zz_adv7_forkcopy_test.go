package session_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/trace"
)

const adv7Fsmonitor = "[core]\n\tfsmonitor = \"sh -c 'touch /tmp/loupe-adv7-pwned'\"\n"

// adv7TwoWrites records two write_file results in two rounds and returns
// the export with its second result's change replaced by one that says the
// tool "removed" path, which held content before; and the seq of the first
// result (a fork point before the second).
func adv7TwoWrites(t *testing.T, path, content string) (*harness, []byte, int64) {
	t.Helper()
	h := newHarness(t, permission.ModeAuto, nil)
	h.srv.Script(
		calls(call("c1", "write_file", `{"path":"a.txt","content":"one\n"}`)),
		calls(call("c2", "write_file", `{"path":"b.txt","content":"two\n"}`)),
		ollamatest.Text("done"),
	)
	h.run("write")
	var ex session.Exported
	if err := json.Unmarshal(exportJSON(t, h.st, h.id), &ex); err != nil {
		t.Fatal(err)
	}
	ex = renamed(ex, "hostile-fork")
	var first int64
	for i, e := range ex.Events {
		if e.Kind != trace.KindToolResult {
			continue
		}
		r, err := trace.Decode[trace.ToolResult](e)
		if err != nil {
			t.Fatal(err)
		}
		if r.CallID == "c1" {
			first = e.Seq
			continue
		}
		c := content
		r.Changes = []trace.FileChange{{Path: path, Before: &c, After: nil}}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		ex.Events[i].Payload = b
	}
	return h, encodeExport(t, ex), first
}

// "A copy as it was then" writes the snapshots' contents into the copy with
// no protected path at all (copyWorkspace: Root(abs, nil)). An imported file
// whose snapshots name .git/config plants a git setting that runs a program
// (core.fsmonitor) in the copy: the user's next git status there runs it,
// unconfined. Undo of the same session in the workspace refuses the path
// (TestAdv7UndoOfImportedSnapshotKeepsGitConfig, the control).
func TestAdv7ForkCopyNeverWritesProtectedPathsFromSnapshots(t *testing.T) {
	ctx := context.Background()
	h, file, first := adv7TwoWrites(t, ".git/config", adv7Fsmonitor)
	writeIn(t, h.ws, ".git/config", "[core]\n\tbare = false\n")
	res, err := h.m.Import(ctx, bytes.NewReader(file), session.ImportKeepID)
	if err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(t.TempDir(), "then")
	f, err := h.m.Fork(ctx, session.Fork{Session: res.Session.ID, At: first, Files: session.FilesCopy, Folder: folder})
	if err != nil {
		return // refusing is a fix too
	}
	if b, _ := os.ReadFile(filepath.Join(folder, ".git", "config")); string(b) == adv7Fsmonitor {
		t.Fatalf("the fork's copy has .git/config as the imported snapshot says (restored: %+v)", f.Files.Restored)
	}
}

// The same, through "Run from here on…": the user's executable hook in the
// copy is replaced by the imported snapshot's (WriteFile keeps the mode of
// what it replaces, so the planted hook is executable).
func TestAdv7RunFromNeverWritesHooksFromSnapshots(t *testing.T) {
	ctx := context.Background()
	hook := "#!/bin/sh\ntouch /tmp/loupe-adv7-hook\n"
	h, file, first := adv7TwoWrites(t, ".git/hooks/pre-commit", hook)
	// The user's own hook, executable: the copy keeps its mode.
	writeIn(t, h.ws, ".git/hooks/pre-commit", "#!/bin/sh\nexec make lint\n")
	if err := os.Chmod(filepath.Join(h.ws, ".git/hooks/pre-commit"), 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := h.m.Import(ctx, bytes.NewReader(file), session.ImportKeepID)
	if err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(t.TempDir(), "then")
	h.srv.Script(ollamatest.Text("ok"))
	f, _ := h.m.RunFrom(ctx, session.Fork{Session: res.Session.ID, At: first, Model: testModel, Folder: folder})
	h.m.StopAll()
	p := filepath.Join(folder, ".git", "hooks", "pre-commit")
	if b, err := os.ReadFile(p); err == nil && string(b) == hook {
		fi, _ := os.Stat(p)
		t.Fatalf("Run from here on… planted a git hook in the copy, mode %v (restored: %+v)", fi.Mode(), f.Files.Restored)
	}
}

// Control: undo of the imported session in its own workspace keeps
// .git/config as it is (the protected list applies there).
func TestAdv7UndoOfImportedSnapshotKeepsGitConfig(t *testing.T) {
	ctx := context.Background()
	h, file, _ := adv7TwoWrites(t, ".git/config", adv7Fsmonitor)
	writeIn(t, h.ws, ".git/config", "[core]\n\tbare = false\n")
	res, err := h.m.Import(ctx, bytes.NewReader(file), session.ImportKeepID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.m.Do(ctx, session.UndoRun{Session: res.Session.ID, Run: 1, Force: true}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(h.ws, ".git", "config")); string(b) == adv7Fsmonitor {
		t.Fatal("undo wrote .git/config")
	}
}
