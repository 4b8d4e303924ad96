package tools

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

func TestWriteFile(t *testing.T) {
	ws, dir := newWorkspace(t, map[string]string{"old.txt": "one\ntwo\n"})

	res := mustRun(t, ws, "write_file", map[string]any{"path": "new.txt", "content": "hello\n"})
	if res.Content != "wrote 6 bytes to new.txt (created)" {
		t.Errorf("create: %q", res.Content)
	}
	if got := readTestFile(t, filepath.Join(dir, "new.txt")); got != "hello\n" {
		t.Errorf("new.txt = %q", got)
	}
	if res.Display == nil || res.Display.Path != "new.txt" ||
		res.Display.Diff != "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hello\n" {
		t.Errorf("create display: %+v", res.Display)
	}

	res = mustRun(t, ws, "write_file", map[string]any{"path": "old.txt", "content": "one\nTWO\n"})
	if res.Content != "wrote 8 bytes to old.txt (overwrote)" {
		t.Errorf("overwrite: %q", res.Content)
	}
	if want := "--- a/old.txt\n+++ b/old.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n"; res.Display.Diff != want {
		t.Errorf("overwrite diff:\n%s\nwant:\n%s", res.Display.Diff, want)
	}
	if got := readTestFile(t, filepath.Join(dir, "old.txt")); got != "one\nTWO\n" {
		t.Errorf("old.txt = %q", got)
	}

	res = mustRun(t, ws, "write_file", map[string]any{"path": "a/b/c/deep.txt", "content": ""})
	if res.Content != "wrote 0 bytes to a/b/c/deep.txt (created)" {
		t.Errorf("deep: %q", res.Content)
	}
	if fi, err := os.Stat(filepath.Join(dir, "a", "b", "c", "deep.txt")); err != nil || fi.Size() != 0 {
		t.Errorf("deep.txt: %v %v", fi, err)
	}
	assertNoTempFiles(t, dir)
}

func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".loupe-") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}

func TestWriteFileKeepsMode(t *testing.T) {
	ws, dir := newWorkspace(t, map[string]string{"run.sh": "#!/bin/sh\n"})
	path := filepath.Join(dir, "run.sh")
	if err := os.Chmod(path, 0o750); err != nil {
		t.Fatal(err)
	}
	mustRun(t, ws, "write_file", map[string]any{"path": "run.sh", "content": "#!/bin/sh\necho hi\n"})
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o750 {
		t.Errorf("mode = %v, want 0750", fi.Mode().Perm())
	}
	mustRun(t, ws, "edit_file", map[string]any{"path": "run.sh", "old_string": "hi", "new_string": "bye"})
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o750 {
		t.Errorf("mode after edit = %v, want 0750", fi.Mode().Perm())
	}
	mustRun(t, ws, "write_file", map[string]any{"path": "fresh.txt", "content": "x"})
	if fi, _ := os.Stat(filepath.Join(dir, "fresh.txt")); fi.Mode().Perm() != 0o644 {
		t.Errorf("new file mode = %v, want 0644", fi.Mode().Perm())
	}
}

func TestWriteFileErrors(t *testing.T) {
	ws, dir := newWorkspace(t, map[string]string{"file.txt": "x", "dir/in.txt": "y"})
	tests := []struct {
		path, want string
	}{
		{"dir", "dir is a directory"},
		{".", "is the workspace directory"},
		{"file.txt/child.txt", "file.txt/child.txt"}, // parent is a file
	}
	for _, tt := range tests {
		_, err := call(t, ws, "write_file", map[string]any{"path": tt.path, "content": "z"})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("write %s: %v; want error containing %q", tt.path, err, tt.want)
		}
	}
	if got := readTestFile(t, filepath.Join(dir, "file.txt")); got != "x" {
		t.Errorf("file.txt changed to %q", got)
	}
	assertNoTempFiles(t, dir)
}

// TestWriteFileIsAtomic reads the file while it is rewritten: every read
// must see one whole version. A write that truncates and then writes in
// place would show empty or partial content.
func TestWriteFileIsAtomic(t *testing.T) {
	a := bytes.Repeat([]byte("A"), 4<<20)
	b := bytes.Repeat([]byte("B"), 4<<20)
	ws, dir := newWorkspace(t, map[string]string{"big.txt": string(a)})
	reg := Builtins(ws, nil)
	tool, _ := reg.Get("write_file")
	path := filepath.Join(dir, "big.txt")

	var stop atomic.Bool
	var wg sync.WaitGroup
	var bad atomic.Value
	reads := 0
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			got, err := os.ReadFile(path)
			if err != nil {
				bad.Store("read error: " + err.Error())
				return
			}
			if !bytes.Equal(got, a) && !bytes.Equal(got, b) {
				bad.Store("saw a partial file")
				return
			}
			reads++
		}
	}()
	for i := range 10 {
		content := a
		if i%2 == 0 {
			content = b
		}
		if _, err := tool.Run(t.Context(), args(t, map[string]any{"path": "big.txt", "content": string(content)})); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	if msg := bad.Load(); msg != nil {
		t.Fatal(msg)
	}
	if reads == 0 {
		t.Fatal("the reader never ran")
	}
}

func TestWriteFilePreviewDoesNotWrite(t *testing.T) {
	ws, dir := newWorkspace(t, map[string]string{"f.txt": "a\n"})
	tool, _ := Builtins(ws, nil).Get("write_file")
	d, err := tool.(Previewer).Preview(t.Context(), args(t, map[string]any{"path": "f.txt", "content": "b\n"}))
	if err != nil {
		t.Fatal(err)
	}
	if want := "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+b\n"; d.Diff != want || d.Path != "f.txt" {
		t.Errorf("preview %+v, want diff %q", d, want)
	}
	d, err = tool.(Previewer).Preview(t.Context(), args(t, map[string]any{"path": "new/g.txt", "content": "c\n"}))
	if err != nil || !strings.HasPrefix(d.Diff, "--- /dev/null\n") {
		t.Errorf("preview of a new file: %+v %v", d, err)
	}
	if got := readTestFile(t, filepath.Join(dir, "f.txt")); got != "a\n" {
		t.Errorf("preview wrote: %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); !os.IsNotExist(err) {
		t.Errorf("preview created a directory: %v", err)
	}
}
