package workspace_test

import (
	"bytes"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/workspace"
)

// When the placeholders' notes cannot be locked (here Loupe's state folder
// cannot be made: a file stands where it goes), Loupe says so in its log
// as it starts, rather than leaving what a killed Loupe made in the user's
// tree without a word.
func TestAPlaceholderSweepThatCannotLockSaysSo(t *testing.T) {
	xdg := t.TempDir()
	if err := os.WriteFile(filepath.Join(xdg, "loupe"), []byte("not a folder"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_STATE_HOME", xdg)
	var buf bytes.Buffer
	log.SetOutput(&buf)
	t.Cleanup(func() { log.SetOutput(os.Stderr) })
	workspace.New(nil, "", "")
	got := buf.String()
	if !strings.Contains(got, "loupe: ") || !strings.Contains(got, "placeholders") || !strings.Contains(got, "stays until") {
		t.Fatalf("Loupe's log as it starts: %q; want a line saying the placeholders could not be swept and what becomes of them", got)
	}
}
