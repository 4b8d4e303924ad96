package demo

import (
	"os"
	"path/filepath"
	"testing"
)

// Removing a copy removes what a run left in it, links as links: the
// folder and the file they point at, outside the copy, stay.
func TestRemoveCopyDoesNotFollowWhatARunLeft(t *testing.T) {
	dir, err := NewWorkspace()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	outside := t.TempDir()
	keep := filepath.Join(outside, "keep.txt")
	if err := os.WriteFile(keep, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "made/deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	for target, at := range map[string]string{outside: "made/out", keep: "made/deep/keep", "../../..": "made/deep/up"} {
		if err := os.Symlink(target, filepath.Join(dir, at)); err != nil {
			t.Fatal(err)
		}
	}
	if err := RemoveCopy(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Fatalf("the copy is still there: %v", err)
	}
	if b, err := os.ReadFile(keep); err != nil || string(b) != "mine" {
		t.Fatalf("a file outside the copy was touched: %q %v", b, err)
	}
	if err := RemoveCopy(outside); err == nil {
		t.Fatal("a folder that is not a copy was removed")
	}
	if _, err := os.Stat(keep); err != nil {
		t.Fatal(err)
	}
}
