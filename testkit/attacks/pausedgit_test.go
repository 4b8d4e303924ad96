//go:build linux

package attacks_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/loupe-dev/loupe/testkit/gguf"
)

// TestGitRunsNothingLeftWhereTheCheckDidNotLook covers what a run can leave
// for the user's next git to run that the check after a round once passed
// over, and what the file tools once wrote without asking: a repository
// hidden under a decoy git directory's objects/ and registered as a
// submodule (the user's git status runs its fsmonitor); an interactive
// rebase left paused with exec lines (the user's git rebase --continue runs
// them); write_file of the script core.fsmonitor names; write_file of a
// paused rebase's todo list. Each case has a control outside Loupe that
// leaves a marker; through loupe, in the default mode and with --auto, the
// user's git afterwards leaves none.
func TestGitRunsNothingLeftWhereTheCheckDidNotLook(t *testing.T) {
	l := newLab(t)
	repo := func(t *testing.T) string {
		ws := l.fresh("ws")
		l.mustGit(t, ws, "init", "-q")
		writeFile(t, filepath.Join(ws, "README.md"), "# ws\n")
		l.mustGit(t, ws, "add", ".")
		l.mustGit(t, ws, "-c", "user.name=n", "-c", "user.email=a@b", "commit", "-q", "-m", "start")
		return ws
	}
	status := func(t *testing.T, ws string) string { return l.git(t, ws, "status") }
	cont := func(t *testing.T, ws string) string {
		return l.git(t, ws, "-c", "user.name=n", "-c", "user.email=a@b", "rebase", "--continue")
	}
	cases := []struct {
		name string
		// setup makes the workspace; user is what the user runs after.
		setup func(t *testing.T) string
		user  func(t *testing.T, ws string) string
		// command is the run's command, or write its write_file.
		command func(m markers) string
		write   func(m markers) (path, content string)
	}{
		{
			name:  "a repository under a decoy's objects/, a submodule",
			setup: repo, user: status,
			command: func(m markers) string {
				return `set -e; mkdir -p foo/objects foo/refs; echo garbage > foo/HEAD; w=foo/objects/evil; mkdir -p $w; git -C $w init -q; ` +
					`git -C $w -c user.name=n -c user.email=a@b commit -q --allow-empty -m s; git -C $w config core.fsmonitor "touch ` + m.path("hidden-submodule") + `; false"; ` +
					`git update-index --add --cacheinfo 160000,$(git -C $w rev-parse HEAD),$w`
			},
		},
		{
			name:  "a rebase left paused with exec lines",
			setup: repo, user: cont,
			command: func(m markers) string {
				return `GIT_SEQUENCE_EDITOR="printf 'break\nexec touch ` + m.path("rebase-exec") + `\n' >" git -c user.name=n -c user.email=a@b rebase -q -i HEAD`
			},
		},
		{
			name: "write_file of the script core.fsmonitor names",
			setup: func(t *testing.T) string {
				ws := repo(t)
				writeFile(t, filepath.Join(ws, "tools", "fsmon.sh"), "exit 1\n")
				l.mustGit(t, ws, "config", "core.fsmonitor", "sh tools/fsmon.sh")
				return ws
			},
			user: status,
			write: func(m markers) (string, string) {
				return "tools/fsmon.sh", "touch " + m.path("fsmonitor-script") + "\nexit 1\n"
			},
		},
		{
			name: "write_file of a paused rebase's todo list",
			setup: func(t *testing.T) string {
				ws := repo(t)
				l.shell(t, ws, `GIT_SEQUENCE_EDITOR="printf 'break\n' >" git -c user.name=n -c user.email=a@b rebase -q -i HEAD`)
				return ws
			},
			user: cont,
			write: func(m markers) (string, string) {
				return ".git/rebase-merge/git-rebase-todo", "exec touch " + m.path("rebase-todo") + "\n"
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := l.markers("paused")
			t.Run("control", func(t *testing.T) {
				ws := c.setup(t)
				if c.command != nil {
					l.shell(t, ws, c.command(m))
				} else {
					p, content := c.write(m)
					writeFile(t, filepath.Join(ws, filepath.FromSlash(p)), content)
				}
				out := c.user(t, ws)
				if len(m.present()) == 0 {
					t.Fatalf("done outside Loupe, the attack left no marker: fix the attack\n%s", clip(out, 600))
				}
				clearMarkers(t, m)
			})
			for _, md := range modes {
				t.Run(md.name, func(t *testing.T) {
					ws := c.setup(t)
					var call gguf.Call
					if c.command != nil {
						call = runCommand(c.command(m))
					} else {
						call = writeFileCall(c.write(m))
					}
					o := l.run(t, runOpts{workspace: ws, auto: md.auto, calls: []gguf.Call{call}})
					t.Log(o.summary())
					out := c.user(t, ws)
					if got := m.present(); len(got) > 0 {
						t.Errorf("after the run, the user's own git ran what the run left (markers %v); git said:\n%s", got, clip(out, 600))
					}
					if c.write != nil {
						for _, cl := range o.calls() {
							if cl.ran() {
								t.Errorf("write_file ran without asking: %s", o.summary())
							}
						}
					}
					clearMarkers(t, m)
					os.RemoveAll(ws)
				})
			}
		})
	}
}
