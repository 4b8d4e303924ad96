package session_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/trace"
)

func oneWriteAt(t *testing.T) (*harness, int64) {
	t.Helper()
	h := newHarness(t, permission.ModeAuto, nil)
	h.srv.Script(
		calls(call("c1", "write_file", `{"path":"a.txt","content":"one\n"}`)),
		ollamatest.Text("done"),
	)
	h.run("write")
	for _, e := range h.events() {
		if e.Kind == trace.KindToolResult {
			return h, e.Seq
		}
	}
	t.Fatal("no tool result")
	return nil, 0
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
// big: a hole). "A copy as it was then" costs the disk what the workspace
// does: the hole stays a hole, the data around it is copied, and the
// file's size is the same.
func TestForkCopyDoesNotFillTheDiskWithHoles(t *testing.T) {
	h, at := oneWriteAt(t)
	big := filepath.Join(h.ws, "big")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("head"), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("tail"), 64<<20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	folder := filepath.Join(t.TempDir(), "then")
	if _, err := h.m.Fork(context.Background(), session.Fork{Session: h.id, At: at, Files: session.FilesCopy, Folder: folder}); err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(folder, "big")
	if src, dst := allocated(t, big), allocated(t, copied); dst > src+(1<<20) {
		t.Fatalf("the copy of a %d-byte file, mostly a hole, takes %d bytes on disk (the workspace's: %d)", 64<<20+4, dst, src)
	}
	b, err := os.ReadFile(copied)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 64<<20+4 || string(b[:4]) != "head" || string(b[64<<20:]) != "tail" || strings.Trim(string(b[4:64<<20]), "\x00") != "" {
		t.Fatalf("the copy is not the file: %d bytes, starts %q", len(b), b[:min(len(b), 8)])
	}
}

// A copy that would not fit on its disk, less what Loupe leaves free, is
// refused before anything is made, and the refusal says the sizes.
func TestForkCopyThatWouldNotFitIsRefusedBeforeAnythingIsMade(t *testing.T) {
	h, at := oneWriteAt(t)
	data := make([]byte, 8<<20)
	for i := range data {
		data[i] = byte(i%251 + 1)
	}
	if err := os.WriteFile(filepath.Join(h.ws, "data.bin"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	under := t.TempDir()
	var st syscall.Statfs_t
	if err := syscall.Statfs(under, &st); err != nil {
		t.Fatal(err)
	}
	// The disk keeps 4 MiB less than the copy needs beyond the margin.
	free := int64(st.Bavail) * int64(st.Bsize)
	session.SetCopyMargin(t, free-4<<20)
	folder := filepath.Join(under, "then")
	_, err := h.m.Fork(context.Background(), session.Fork{Session: h.id, At: at, Files: session.FilesCopy, Folder: folder})
	if err == nil {
		t.Fatal("a copy that does not fit was made")
	}
	for _, want := range []string{"takes 8.", "MiB", "free", "nothing was made"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal %q does not say %q", err, want)
		}
	}
	if _, serr := os.Lstat(folder); serr == nil {
		t.Errorf("the refused copy left %s", folder)
	}
}
