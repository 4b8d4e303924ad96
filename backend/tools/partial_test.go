package tools

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/loupe-dev/loupe/backend/hands"
)

// The leftovers of a crashed write are removed from the folder the write
// used; a folder that is now a link to one outside leads the removal
// nowhere.
func TestRemovePartialWritesStaysInTheWorkspace(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	left := ".main.go.loupe-1234.tmp"
	for _, d := range []string{filepath.Join(ws, "src"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, left), []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(ws, "out")); err != nil {
		t.Fatal(err)
	}
	root, err := hands.Open(ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if n := RemovePartialWrites(root, "out/main.go"); n != 0 {
		t.Errorf("removed %d files through a link out", n)
	}
	if _, err := os.Stat(filepath.Join(outside, left)); err != nil {
		t.Errorf("the file outside was removed: %v", err)
	}
	if n := RemovePartialWrites(root, "src/main.go"); n != 1 {
		t.Errorf("removed %d of the write's leftovers, want 1", n)
	}
}
