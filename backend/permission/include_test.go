package permission

import (
	"os/exec"
	"testing"
)

// A file the repository's settings include is git's settings too: the file
// tools ask before changing it, in every mode, also before it exists.
func TestIncludedSettingsAsk(t *testing.T) {
	ws := t.TempDir()
	for _, a := range [][]string{{"init", "-q"}, {"config", "--local", "include.path", "../.gitconfig"}, {"config", "--local", "includeIf.gitdir:**.path", "../tools/git.inc"}} {
		c := exec.Command("git", a...)
		c.Dir = ws
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", a, err, out)
		}
	}
	p := Policy{Mode: ModeAuto, Workspace: ws}
	for _, f := range []string{".gitconfig", "tools/git.inc"} {
		if d := p.Decide(Call{Tool: "write_file", Paths: []string{f}}); d.Verdict == Run {
			t.Errorf("write_file %s runs in auto mode, though .git/config includes it", f)
		}
	}
	if d := p.Decide(Call{Tool: "write_file", Paths: []string{"other.conf"}}); d.Verdict != Run {
		t.Errorf("write_file of a file no setting includes asks: %v %q", d.Verdict, d.Reasons)
	}
}
