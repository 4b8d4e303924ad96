package session_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/trace"
)

func adv7FirstResult(t *testing.T, h *harness) int64 {
	t.Helper()
	for _, e := range h.events() {
		if e.Kind == trace.KindToolResult {
			return e.Seq
		}
	}
	t.Fatal("no tool result")
	return 0
}

func adv7OneWrite(t *testing.T) *harness {
	t.Helper()
	h := newHarness(t, permission.ModeAuto, nil)
	h.srv.Script(
		calls(call("c1", "write_file", `{"path":"a.txt","content":"one\n"}`)),
		ollamatest.Text("done"),
	)
	h.run("write")
	return h
}

// A copy's folder inside the workspace is refused ("…is inside the
// workspace it would copy"), but the test is a prefix test on the relative
// path: a folder whose name starts with two dots ("..then") is taken for
// one outside. The copy is then made inside the workspace it copies, and
// copies itself into itself (the workspace is listed after the folder is
// made), folder in folder.
func TestAdv7ForkCopyFolderNamedWithTwoDotsIsInsideTheWorkspace(t *testing.T) {
	h := adv7OneWrite(t)
	at := adv7FirstResult(t, h)
	folder := filepath.Join(h.ws, "..then")
	f, err := h.m.Fork(context.Background(), session.Fork{Session: h.id, At: at, Files: session.FilesCopy, Folder: folder})
	if err == nil {
		_, nested := os.Lstat(filepath.Join(folder, "..then"))
		t.Fatalf("a copy was made inside the workspace it copies, at %s (holds itself: %v; not copied: %d notes)", f.Files.Workspace, nested == nil, len(f.Files.NotCopied))
	}
}

// Control: a folder plainly inside the workspace is refused.
func TestAdv7ForkCopyFolderInsideTheWorkspaceIsRefused(t *testing.T) {
	h := adv7OneWrite(t)
	at := adv7FirstResult(t, h)
	if _, err := h.m.Fork(context.Background(), session.Fork{Session: h.id, At: at, Files: session.FilesCopy, Folder: filepath.Join(h.ws, "then")}); err == nil {
		t.Fatal("a copy inside the workspace was made")
	}
}

func allocated(t *testing.T, p string) int64 {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Blocks * 512
}

// A command can make a file that costs nothing on disk (truncate -s 1G
// big: a hole). The copy of "A copy as it was then" reads each file whole
// (up to 1 GiB each, in memory) and writes every byte: a workspace of
// such files fills the disk when the user forks a copy. Here one 64 MiB
// hole: the copy should cost the disk what the workspace does.
func TestAdv7ForkCopyDoesNotFillTheDiskWithHoles(t *testing.T) {
	h := adv7OneWrite(t)
	at := adv7FirstResult(t, h)
	big := filepath.Join(h.ws, "big")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(64 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	folder := filepath.Join(t.TempDir(), "then")
	if _, err := h.m.Fork(context.Background(), session.Fork{Session: h.id, At: at, Files: session.FilesCopy, Folder: folder}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(folder, "big")); err != nil {
		return // left out: bounded
	}
	if src, dst := allocated(t, big), allocated(t, filepath.Join(folder, "big")); dst > src+(1<<20) {
		t.Fatalf("the copy of a %d-byte hole takes %d bytes on disk (the workspace's: %d)", 64<<20, dst, src)
	}
}
