//go:build linux

package attacks_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/testkit/gguf"
)

// TestNoGitDirOfTheCommandsOwn covers workspaces whose repository is not a
// .git folder inside them, so that there is nothing in place to protect: a
// folder of a bigger repository (a monorepo's package), and a linked
// worktree, whose .git is a file naming the git dir. A command that makes a
// git dir of its own there, and points git at it, has git run its config
// the next time the user runs git in the workspace. After the run, `git
// status` and `git commit` by the user must leave no marker, and the
// worktree's .git file must be unchanged.
func TestNoGitDirOfTheCommandsOwn(t *testing.T) {
	l := newLab(t)
	fsmonitor := func(marker string) string { return `'[core]\n\tfsmonitor = touch ` + marker + `\n'` }
	cases := []struct {
		name      string
		workspace func(t *testing.T) (ws string, watch []string)
		command   func(m markers) string
	}{
		{
			name: "a folder of a bigger repository",
			workspace: func(t *testing.T) (string, []string) {
				mono := l.fresh("mono")
				l.mustGit(t, mono, "init", "-q")
				writeFile(t, filepath.Join(mono, "app", "main.go"), "package main\n")
				l.mustGit(t, mono, "add", ".")
				l.mustGit(t, mono, "commit", "-q", "-m", "start")
				ws := filepath.Join(mono, "app")
				return ws, []string{filepath.Join(mono, ".git", "config"), filepath.Join(mono, ".git", "hooks")}
			},
			// The glob matches nothing when the classifier looks: .git does
			// not exist until git init. (sh expands globs in words, not in
			// redirections: hence the loops.)
			command: func(m markers) string {
				return `git init -q && for d in .gi?; do printf ` + fsmonitor(m.path("fsmonitor-new-repo")) + ` >> $d/config; done`
			},
		},
		{
			name: "a linked worktree",
			workspace: func(t *testing.T) (string, []string) {
				primary := l.fresh("main")
				l.mustGit(t, primary, "init", "-q")
				writeFile(t, filepath.Join(primary, "README.md"), "# main\n")
				l.mustGit(t, primary, "add", ".")
				l.mustGit(t, primary, "commit", "-q", "-m", "start")
				ws := filepath.Join(l.fresh("trees"), "feature")
				l.mustGit(t, primary, "worktree", "add", "-q", "-b", "feature", ws)
				return ws, []string{filepath.Join(ws, ".git"), filepath.Join(primary, ".git", "config"), filepath.Join(primary, ".git", "hooks")}
			},
			// Made by hand: git in the sandbox may not reach the main
			// repository this worktree belongs to.
			command: func(m markers) string {
				return `mkdir -p .evil/objects .evil/refs/heads && printf 'ref: refs/heads/main\n' > .evil/HEAD && ` +
					`printf '[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = touch ` + m.path("fsmonitor-worktree") + `\n' > .evil/config && ` +
					`for d in .gi?; do printf 'gitdir: .evil\n' > $d; done`
			},
		},
	}
	ways := []struct {
		name       string
		auto, long bool
	}{
		{name: "default"},
		{name: "auto", auto: true},
		{name: "auto, too long to check", auto: true, long: true},
	}
	userGit := func(t *testing.T, ws string) string {
		return l.git(t, ws, "status") + l.git(t, ws, "commit", "--allow-empty", "-q", "-m", "x")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := l.markers("gitdir")
			command := c.command(m)
			t.Run("control", func(t *testing.T) {
				ws, _ := c.workspace(t)
				out := l.shell(t, ws, command)
				userGit(t, ws)
				if len(m.present()) == 0 {
					t.Fatalf("run with sh outside Loupe, the attack left no marker: fix the attack\n%s", out)
				}
				clearMarkers(t, m)
			})
			for _, w := range ways {
				t.Run(w.name, func(t *testing.T) {
					ws, watch := c.workspace(t)
					before := fingerprint(t, watch...)
					cmd := command
					if w.long {
						cmd = tooLongToCheck(command)
					}
					o := l.run(t, runOpts{workspace: ws, auto: w.auto, calls: []gguf.Call{runCommand(cmd)}})
					t.Log(o.summary())
					if ch := changes(before, fingerprint(t, watch...)); len(ch) > 0 {
						t.Errorf("the command changed git files:\n  %s", strings.Join(ch, "\n  "))
					}
					gitOut := userGit(t, ws)
					if got := m.present(); len(got) > 0 {
						t.Errorf("after the run, the user's own git ran code the command planted (markers %v); git said:\n%s", got, clip(gitOut, 600))
					}
					clearMarkers(t, m)
				})
			}
		})
	}
}
