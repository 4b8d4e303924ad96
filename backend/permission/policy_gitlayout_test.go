package permission

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// gitInit runs git as the user would to lay out a repository.
func gitInit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.email=a@b", "-c", "user.name=n"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// Git's own files are protected whatever the repository's layout: the
// workspace opened on a .git folder or a bare repository (its "config"
// is a repository's config), a bare repository in a folder, a linked
// worktree's git folder, and a HEAD that would make a folder a new
// repository. Each asks, in every mode, as .git/config does; what is
// not git's stays writable.
func TestGitFilesOfEveryLayoutAreProtected(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	proj := t.TempDir()
	gitInit(t, proj, "init", "-q")
	gitInit(t, proj, "commit", "-q", "--allow-empty", "-m", "first")
	gitInit(t, proj, "worktree", "add", "-q", "-b", "feature", filepath.Join(t.TempDir(), "feature"))
	bare := filepath.Join(t.TempDir(), "bare.git")
	gitInit(t, filepath.Dir(bare), "init", "-q", "--bare", bare)
	nested := t.TempDir()
	gitInit(t, filepath.Join(nested), "init", "-q", "--bare", "vendor/lib.git")
	must(t, os.MkdirAll(filepath.Join(nested, "notes"), 0o755))

	cases := []struct {
		ws        string
		protected []string
		free      []string
	}{
		{ws: filepath.Join(proj, ".git"), // the workspace is a .git folder
			protected: []string{"config", "config.worktree", "hooks/pre-commit", "commondir", "info/attributes", "worktrees/feature/config.worktree", "worktrees/feature/commondir", "worktrees/feature/gitdir"},
			free:      []string{"description", "notes.txt"}},
		{ws: bare, // a bare repository
			protected: []string{"config", "hooks/post-update", "config.worktree", "info/attributes"},
			free:      []string{"description", "README"}},
		{ws: filepath.Join(proj, ".git", "hooks"), // inside a git folder
			protected: []string{"pre-commit", "post-checkout"}},
		{ws: nested, // a bare repository in a folder; a HEAD would make a new one
			protected: []string{"vendor/lib.git/config", "vendor/lib.git/hooks/pre-receive", "vendor/lib.git/commondir", "notes/HEAD", "HEAD"},
			free:      []string{"notes/config", "vendor/lib.git/description", "vendor/config"}},
	}
	for _, tc := range cases {
		for _, mode := range []Mode{ModeAsk, ModeAuto} {
			p := Policy{Mode: mode, Workspace: tc.ws, Rules: []Rule{{Effect: EffectAllow, Path: "**"}},
				Tools: map[string]ToolSetting{"write_file": ToolAlways}}
			for _, q := range tc.protected {
				if d := p.Decide(Call{Tool: "write_file", Paths: []string{q}}); d.Verdict != Ask || !d.OnceOnly {
					t.Errorf("%s in %s (%s): write_file %s: %v %q, want ask", mode, tc.ws, filepath.Base(tc.ws), q, d.Verdict, d.Reasons)
				}
			}
			for _, q := range tc.free {
				if d := p.Decide(Call{Tool: "write_file", Paths: []string{q}}); d.Verdict != Run {
					t.Errorf("%s in %s: write_file %s: %v %q, want run", mode, tc.ws, q, d.Verdict, d.Reasons)
				}
			}
			// A command that names HEAD (git log HEAD) is not asked about
			// for it: git writes HEAD. (In a hooks folder, every name is
			// a hook.)
			if d := p.Decide(runCmd("git log HEAD")); filepath.Base(tc.ws) != "hooks" && d.Verdict == Ask && d.OnceOnly {
				t.Errorf("%s: git log HEAD asks: %q", mode, d.Reasons)
			}
		}
	}
}
