package permission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/testkit/asuser"
)

// A folder Loupe's process cannot list but git can go through (search
// permission without read, chmod 311) may hold a repository whose
// settings include a file or name a program of the working tree: the walk
// that finds them cannot see it, so it does not answer with part of the
// workspace. Every file tool write asks, in auto mode too, and says why; a
// read still runs. A folder git cannot enter either (chmod 000) changes
// nothing. As root every folder is readable, so this runs as the user
// nobody (asuser).
func TestFileToolsAskWhenTheWorkspaceCannotBeSeenWhole(t *testing.T) {
	if !asuser.Run(t) {
		return
	}
	for _, c := range []struct {
		name string
		mode os.FileMode
		asks bool
	}{
		{"a folder git can pass through", 0o311, true},
		{"a folder git cannot enter either", 0o000, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws := t.TempDir()
			shell(t, ws, `git init -q; mkdir -p locked/lib; git -C locked/lib init -q; git -C locked/lib config include.path ../../shared.inc`)
			if err := os.Chmod(filepath.Join(ws, "locked"), c.mode); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(filepath.Join(ws, "locked"), 0o755) })
			p := Policy{Mode: ModeAuto, Workspace: ws}
			for _, f := range []string{"shared.inc", "src/main.go"} {
				d := decideTool(t, p, "write_file", map[string]any{"path": f, "content": "x"})
				switch {
				case c.asks && d.Verdict == Run:
					t.Errorf("write_file %s runs in auto mode, though Loupe cannot list locked/, where git goes", f)
				case c.asks && !strings.Contains(strings.Join(d.Reasons, " "), "could not check the whole workspace"):
					t.Errorf("write_file %s asks without saying why: %q", f, d.Reasons)
				case !c.asks && d.Verdict != Run && f == "src/main.go":
					t.Errorf("write_file %s asks in auto mode, though git cannot enter the unreadable folder: %q", f, d.Reasons)
				}
			}
			raw := []byte(`{"path":"README.md"}`)
			if rc, err := CallFor("read_file", raw, true); err != nil {
				t.Fatal(err)
			} else if d := p.Decide(rc); d.Verdict != Run {
				t.Errorf("read_file asks in auto mode: %q", d.Reasons)
			}
		})
	}
}
