//go:build unix

package tools

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO is refused before it is opened: opening one would block until a
// writer appears.
func TestReadFileRefusesFIFO(t *testing.T) {
	ws, dir := newWorkspace(t, nil)
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"read_file", "edit_file"} {
		a := map[string]any{"path": "fifo"}
		if tool == "edit_file" {
			a = map[string]any{"path": "fifo", "old_string": "a", "new_string": "b"}
		}
		_, err := call(t, ws, tool, a)
		if err == nil || !strings.Contains(err.Error(), "fifo is not a regular file") {
			t.Errorf("%s: %v", tool, err)
		}
	}
}
