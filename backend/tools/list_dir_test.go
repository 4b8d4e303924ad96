package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestListDir(t *testing.T) {
	ws, dir := newWorkspace(t, map[string]string{
		"b.txt":       "",
		"a.txt":       "",
		"Z.md":        "",
		"src/main.go": "",
		".git/HEAD":   "",
		"empty/.keep": "",
	})
	symlink(t, "a.txt", filepath.Join(dir, "link"))
	if err := os.Remove(filepath.Join(dir, "empty", ".keep")); err != nil {
		t.Fatal(err)
	}

	res := mustRun(t, ws, "list_dir", map[string]any{"path": "."})
	want := ".git/\nZ.md\na.txt\nb.txt\nempty/\nlink -> a.txt\nsrc/\n"
	if res.Content != want || res.Truncated {
		t.Errorf("list .:\n%s\nwant:\n%s", res.Content, want)
	}
	if res := mustRun(t, ws, "list_dir", map[string]any{"path": "src"}); res.Content != "main.go\n" {
		t.Errorf("list src: %q", res.Content)
	}
	if res := mustRun(t, ws, "list_dir", map[string]any{"path": filepath.Join(dir, "src")}); res.Content != "main.go\n" {
		t.Errorf("list absolute src: %q", res.Content)
	}
	if res := mustRun(t, ws, "list_dir", map[string]any{"path": "empty"}); res.Content != "empty is empty" {
		t.Errorf("list empty: %q", res.Content)
	}
	for path, msg := range map[string]string{
		"a.txt":   "a.txt is a file, not a directory; use read_file",
		"missing": "missing does not exist",
	} {
		if _, err := call(t, ws, "list_dir", map[string]any{"path": path}); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("list %s: %v, want %q", path, err, msg)
		}
	}
}

func TestListDirCap(t *testing.T) {
	files := map[string]string{}
	for i := range listMaxEntries + 5 {
		files[fmt.Sprintf("many/f%04d", i)] = ""
	}
	ws, _ := newWorkspace(t, files)
	res := mustRun(t, ws, "list_dir", map[string]any{"path": "many"})
	lines := strings.Split(strings.TrimSuffix(res.Content, "\n"), "\n")
	if len(lines) != listMaxEntries+1 || lines[0] != "f0000" || lines[listMaxEntries-1] != "f0999" {
		t.Errorf("%d lines, first %q, last entry %q", len(lines), lines[0], lines[len(lines)-2])
	}
	if want := "[showing the first 1000 of 1005 entries; use glob to narrow down]"; lines[len(lines)-1] != want || !res.Truncated {
		t.Errorf("note %q (Truncated %v), want %q", lines[len(lines)-1], res.Truncated, want)
	}
}
