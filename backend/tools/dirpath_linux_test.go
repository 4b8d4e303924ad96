//go:build linux

package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// moveOnCheck is a guard that, when the tool asks about the directory it
// has opened for writing, moves that directory elsewhere (as a parallel
// command could) and approves.
type moveOnCheck struct {
	n        *int
	from, to string
}

func (m moveOnCheck) Check(string) error {
	if *m.n++; *m.n == 2 {
		return os.Rename(m.from, m.to)
	}
	return nil
}

// A directory moved after it was opened and checked does not carry the
// write to where it went: the old file is put back (or the new one taken
// away) and the write is refused.
func TestWriteIntoAMovedDirectoryIsTakenBack(t *testing.T) {
	for _, tt := range []struct{ path, before string }{
		{"d/config", "old\n"},
		{"d/new.txt", ""},
	} {
		ws, dir := newWorkspace(t, map[string]string{"d/config": "old\n"})
		tool, _ := Builtins(ws, nil).Get("write_file")
		n := 0
		g := moveOnCheck{n: &n, from: filepath.Join(dir, "d"), to: filepath.Join(dir, "moved")}
		_, err := tool.Run(WithGuard(context.Background(), g), args(t, map[string]any{"path": tt.path, "content": "new\n"}))
		if err == nil || !strings.Contains(err.Error(), "changed while Loupe was opening it") {
			t.Fatalf("write %s: %v; want it refused", tt.path, err)
		}
		moved := filepath.Join(dir, "moved", filepath.Base(tt.path))
		b, err := os.ReadFile(moved)
		switch {
		case tt.before == "" && !os.IsNotExist(err):
			t.Errorf("%s was left behind: %q %v", moved, b, err)
		case tt.before != "" && string(b) != tt.before:
			t.Errorf("%s = %q, %v; want the old content back", moved, b, err)
		}
		assertNoTempFiles(t, dir)
	}
}
