package permission

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The file tools alone, in auto mode, one write per round (so every
// decision is taken on fresh git facts), lay out a whole repository under
// .git/worktrees/NEW (config first, then objects/, refs/, and HEAD last:
// none asks), then point a submodule's .git file at it. No command runs,
// so no check after a round looks. The user's next git status at the top
// recurses into the submodule and runs the core.fsmonitor of the config
// the model wrote, unconfined.
func TestFileToolsCannotBuildARepositoryGitRuns(t *testing.T) {
	for _, control := range []bool{true, false} {
		name := "through the policy"
		if control {
			name = "control"
		}
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			src, ws := t.TempDir(), t.TempDir()
			git := func(dir string, args ...string) string {
				c := exec.Command("git", append([]string{"-c", "user.name=n", "-c", "user.email=a@b", "-c", "protocol.file.allow=always"}, args...)...)
				c.Dir = dir
				out, _ := c.CombinedOutput()
				return string(out)
			}
			git(src, "init", "-q")
			git(src, "commit", "-q", "--allow-empty", "-m", "lib")
			git(ws, "init", "-q")
			git(ws, "submodule", "add", "-q", src, "lib")
			git(ws, "commit", "-q", "-m", "with lib")
			marker := filepath.Join(t.TempDir(), "RAN")
			writes := []struct{ path, content string }{
				{".git/worktrees/new/config", "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = touch " + marker + "; false\n"},
				{".git/worktrees/new/objects/k", "x\n"},
				{".git/worktrees/new/refs/k", "x\n"},
				{".git/worktrees/new/HEAD", "ref: refs/heads/main\n"},
				{"lib/.git", "gitdir: ../.git/worktrees/new\n"},
			}
			p := Policy{Mode: ModeAuto, Workspace: ws}
			for _, w := range writes {
				if !control {
					d := decideTool(t, p, "write_file", map[string]any{"path": w.path, "content": w.content})
					if d.Verdict != Run {
						t.Logf("write_file %s: %v %q (held)", w.path, d.Verdict, d.Reasons)
						return
					}
				}
				f := filepath.Join(ws, w.path)
				os.MkdirAll(filepath.Dir(f), 0o755)
				if err := os.WriteFile(f, []byte(w.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			t.Logf("user's git status: %s", git(ws, "status", "--short"))
			if _, err := os.Stat(marker); err != nil {
				t.Fatalf("control/attack: the user's git status did not run the fsmonitor")
			}
			if !control {
				t.Errorf("every write_file ran in auto mode without asking, and the user's git status then ran a program the model's config named")
			}
		})
	}
}

// Each way of that attack, on its own: a HEAD in any folder that is not a
// git directory yet asks, inside a git directory too (where a .git file or
// a submodule can send git), and so does every entry named .git that is not
// a folder (a submodule's, a linked worktree's, a new one), in auto mode
// too.
// Beside them, ordinary files in the same folders run in auto mode.
func TestFileToolsCannotBuildARepositoryInsideAGitDirectory(t *testing.T) {
	src, ws := t.TempDir(), t.TempDir()
	shell(t, src, `git init -q; git -c user.name=n -c user.email=a@b commit -q --allow-empty -m lib`)
	shell(t, ws, `git init -q; git -c user.name=n -c user.email=a@b commit -q --allow-empty -m init; mkdir -p sub/.git/x .git/x .git/info/x; `+
		`git -c protocol.file.allow=always submodule add -q `+src+` lib; git worktree add -q wt; mkdir -p .git/worktrees/new/modules/m`)
	for _, mode := range []Mode{ModeAuto} {
		p := Policy{Mode: mode, Workspace: ws}
		for _, f := range []string{".git/x/HEAD", ".git/logs/x/HEAD", ".git/info/x/HEAD", ".git/worktrees/new/HEAD",
			".git/worktrees/new/modules/m/HEAD", ".git/worktrees/other/HEAD", "sub/.git/x/HEAD", ".git/worktrees/new/config",
			"lib/.git", "wt/.git", "new/.git", "sub/x/.git"} {
			if d := decideTool(t, p, "write_file", map[string]any{"path": f, "content": "gitdir: .git/worktrees/new\n"}); d.Verdict != Ask {
				t.Errorf("%s: write_file %s: %v %q, want ask (it would make or point at a repository git then runs)", mode, f, d.Verdict, d.Reasons)
			}
		}
		for _, f := range []string{".git/x/notes", ".git/worktrees/new/notes", "sub/.git/x/notes", "lib/README", "wt/main.go", "sub/.gitignore"} {
			if d := decideTool(t, p, "write_file", map[string]any{"path": f, "content": "x\n"}); d.Verdict != Run {
				t.Errorf("write_file %s asks in auto mode: %v %q", f, d.Verdict, d.Reasons)
			}
		}
	}
}
