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

// "A copy as it was then" refuses a folder inside the workspace it would
// copy (the copy would hold itself) however the folder is written: plainly,
// with a name that starts with two dots ("..then" is a name in it, not a way
// out), through a link to the workspace. A folder beside it is fine.
func TestForkCopyRefusesEveryFolderInsideTheWorkspace(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	h.srv.Script(
		calls(call("c1", "write_file", `{"path":"a.txt","content":"one\n"}`)),
		ollamatest.Text("done"),
	)
	h.run("write")
	var at int64
	for _, e := range h.events() {
		if e.Kind == trace.KindToolResult {
			at = e.Seq
			break
		}
	}
	link := filepath.Join(t.TempDir(), "ws-link")
	if err := os.Symlink(h.ws, link); err != nil {
		t.Fatal(err)
	}
	for _, folder := range []string{
		filepath.Join(h.ws, "then"),
		filepath.Join(h.ws, "..then"),
		filepath.Join(h.ws, "..", filepath.Base(h.ws), "deep", "then"),
		filepath.Join(link, "then"),
		h.ws,
	} {
		if f, err := h.m.Fork(context.Background(), session.Fork{Session: h.id, At: at, Files: session.FilesCopy, Folder: folder}); err == nil {
			t.Errorf("%s: a copy was made inside the workspace it copies, at %s", folder, f.Files.Workspace)
		}
	}
	beside := filepath.Join(filepath.Dir(h.ws), filepath.Base(h.ws)+"..then")
	f, err := h.m.Fork(context.Background(), session.Fork{Session: h.id, At: at, Files: session.FilesCopy, Folder: beside})
	if err != nil {
		t.Fatalf("%s, beside the workspace: %v", beside, err)
	}
	if b, err := os.ReadFile(filepath.Join(f.Files.Workspace, "a.txt")); err != nil || string(b) != "one\n" {
		t.Errorf("the copy beside holds %q, %v", b, err)
	}
}
