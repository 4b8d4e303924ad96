package workspace_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/workspace"
)

// A folder in Loupe's own data folder is no workspace either, wherever
// --db put it; a project folder next to the refused ones is.
func TestAWorkspaceIsNotInLoupesDataFolder(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	t.Setenv("HOME", home)
	data := filepath.Join(t.TempDir(), "loupe-data")
	in := filepath.Join(data, "sessions", "x")
	ok := filepath.Join(home, "src", ".config-tools")
	for _, d := range []string{in, ok} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w := workspace.New(nil, filepath.Join(data, "loupe.db"), data)
	if _, err := w.CheckNew(in); err == nil || !strings.Contains(err.Error(), "data folder") {
		t.Fatalf("CheckNew of a folder in the data folder: %v", err)
	}
	if _, err := w.CheckNew(ok); err != nil {
		t.Fatalf("a project folder in the home folder: %v", err)
	}
}
