package permission

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A file some settings include is git's settings too: the file tools ask
// before changing it, in every mode, also before it exists, however the
// call names it (through a symlinked folder, with "..", with "./"), and
// also when it is included by an included file, by a nested repository's
// settings or by config.worktree.
func TestIncludedSettingsAsk(t *testing.T) {
	ws := t.TempDir()
	git := func(dir string, a ...string) {
		t.Helper()
		c := exec.Command("git", a...)
		c.Dir = dir
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", a, err, out)
		}
	}
	write := func(rel, s string) {
		t.Helper()
		f := filepath.Join(ws, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(ws, "init", "-q")
	git(ws, "config", "--local", "include.path", "../.gitconfig")
	git(ws, "config", "--local", "--add", "include.path", "../tools/git.inc")
	git(ws, "config", "--local", "includeIf.onbranch:release/*.path", "../release.inc")
	write("tools/git.inc", "[include]\n\tpath = more.inc ; machine settings\n")
	if err := os.Symlink("tools", filepath.Join(ws, "t2")); err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(ws, "vendor", "lib")
	if err := os.MkdirAll(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	git(lib, "init", "-q")
	git(lib, "config", "--local", "include.path", "../.gitconfig")
	git(ws, "config", "--local", "extensions.worktreeConfig", "true")
	git(ws, "config", "--worktree", "include.path", "../wt.inc")

	p := Policy{Mode: ModeAuto, Workspace: ws}
	for _, f := range []string{
		".gitconfig", "tools/git.inc", "t2/git.inc", "tools/../tools/git.inc", "./tools/git.inc",
		"tools/more.inc", "t2/more.inc", "release.inc", "vendor/lib/.gitconfig", "wt.inc",
	} {
		if d := p.Decide(Call{Tool: "write_file", Paths: []string{f}}); d.Verdict == Run {
			t.Errorf("write_file %s runs in auto mode, though git reads it as settings", f)
		}
	}
	if d := p.Decide(Call{Tool: "write_file", Paths: []string{"other.conf"}}); d.Verdict != Run {
		t.Errorf("write_file of a file no setting includes asks: %v %q", d.Verdict, d.Reasons)
	}
}
