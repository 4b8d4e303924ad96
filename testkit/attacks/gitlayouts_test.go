//go:build linux

package attacks_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/testkit/gguf"
)

// emptyFile is how fingerprint names an empty file's hash.
const emptyFile = "e3b0c44298fc1c14"

// TestGitLayoutsOfEveryKind covers git's files where they are not a .git
// folder's in the workspace: a linked worktree's config.worktree (in a
// repository that reads worktree config), the workspace that is a
// repository's .git folder, a bare repository as the workspace, and a
// file of the working tree the settings include through another that is
// not there yet, the hooks folder of a working tree the command makes,
// and a workspace inside a bigger repository whose settings name a hooks
// folder in it. Each
// command plants a program git runs (through a glob the classifier cannot
// read, so that in --auto mode the OS alone must hold); the .git-folder
// case also asks write_file to write "config", which must ask (and, with
// no terminal, be denied) as .git/config does. After the run, the user's
// own git leaves no marker. Two cases lay out a linked worktree's git
// folder whose commondir names a folder with no HEAD (which git uses for
// config and hooks all the same): its config written by write_file must
// ask, and what the command plants there must not run. Each case has a
// control run with sh outside Loupe that must leave one.
func TestGitLayoutsOfEveryKind(t *testing.T) {
	l := newLab(t)
	fsmonitor := func(marker string) string { return `'[core]\n\tfsmonitor = touch ` + marker + `\n'` }
	repo := func(t *testing.T, name string) string {
		dir := l.fresh(name)
		l.mustGit(t, dir, "init", "-q")
		writeFile(t, filepath.Join(dir, "README.md"), "# "+name+"\n")
		l.mustGit(t, dir, "add", ".")
		l.mustGit(t, dir, "commit", "-q", "-m", "start")
		return dir
	}
	type setup struct {
		ws    string
		watch []string
		// user is what the user runs afterwards, outside Loupe.
		user func(t *testing.T) string
		// gone are paths of the workspace that must not be there after
		// the run (what Loupe made to hold them goes with the round).
		gone []string
	}
	cases := []struct {
		name    string
		setup   func(t *testing.T) setup
		command func(m markers) string
		write   func(m markers) *gguf.Call
	}{
		{
			name: "a linked worktree's config.worktree",
			setup: func(t *testing.T) setup {
				ws := repo(t, "main")
				l.mustGit(t, ws, "config", "extensions.worktreeConfig", "true")
				feature := filepath.Join(l.fresh("trees"), "feature")
				l.mustGit(t, ws, "worktree", "add", "-q", "-b", "feature", feature)
				return setup{ws: ws, watch: []string{filepath.Join(ws, ".git", "config"), filepath.Join(ws, ".git", "worktrees")},
					user: func(t *testing.T) string { return l.git(t, feature, "status") + l.git(t, ws, "status") }}
			},
			command: func(m markers) string {
				return `for d in .gi?/worktrees/feature; do printf ` + fsmonitor(m.path("worktree-config")) + ` > $d/config.worktree; done`
			},
		},
		{
			name: "the workspace is a linked worktree",
			setup: func(t *testing.T) setup {
				primary := repo(t, "main")
				l.mustGit(t, primary, "config", "extensions.worktreeConfig", "true")
				ws := filepath.Join(l.fresh("trees"), "feature")
				l.mustGit(t, primary, "worktree", "add", "-q", "-b", "feature", ws)
				return setup{ws: ws, watch: []string{filepath.Join(ws, ".git"), filepath.Join(primary, ".git", "config"), filepath.Join(primary, ".git", "hooks")},
					user: func(t *testing.T) string { return l.git(t, ws, "status") }}
			},
			command: func(m markers) string {
				return `d=$(git rev-parse --git-dir) && printf ` + fsmonitor(m.path("linked-worktree-config")) + ` > "$d/config.worktree"`
			},
		},
		{
			name: "the workspace is a .git folder",
			setup: func(t *testing.T) setup {
				proj := repo(t, "proj")
				ws := filepath.Join(proj, ".git")
				return setup{ws: ws, watch: []string{filepath.Join(ws, "config"), filepath.Join(ws, "hooks")},
					user: func(t *testing.T) string {
						return l.git(t, proj, "status") + l.git(t, proj, "commit", "--allow-empty", "-q", "-m", "x")
					}}
			},
			command: func(m markers) string {
				return `for f in confi?; do printf ` + fsmonitor(m.path("gitdir-config")) + ` >> $f; done; ` +
					`for d in hook?; do printf '#!/bin/sh\ntouch ` + m.path("gitdir-hook") + `\n' > $d/pre-commit; chmod +x $d/pre-commit; done`
			},
			write: func(m markers) *gguf.Call {
				c := writeFileCall("config", "[core]\n\tfsmonitor = touch "+m.path("gitdir-write-file")+"\n")
				return &c
			},
		},
		{
			name: "the workspace is a bare repository",
			setup: func(t *testing.T) setup {
				src := repo(t, "src")
				ws := filepath.Join(l.fresh("served"), "proj.git")
				l.mustGit(t, filepath.Dir(ws), "clone", "-q", "--bare", src, ws)
				return setup{ws: ws, watch: []string{filepath.Join(ws, "config"), filepath.Join(ws, "hooks")},
					// The user pushes to it from a clone: git runs its hooks.
					user: func(t *testing.T) string {
						clone := filepath.Join(l.fresh("clone"), "c")
						return l.git(t, filepath.Dir(clone), "clone", "-q", ws, clone) +
							l.git(t, clone, "commit", "--allow-empty", "-q", "-m", "x") + l.git(t, clone, "push", "-q", "origin", "HEAD")
					}}
			},
			command: func(m markers) string {
				return `for d in hook?; do printf '#!/bin/sh\ntouch ` + m.path("bare-hook") + `\n' > $d/pre-receive; chmod +x $d/pre-receive; done`
			},
		},
		{
			// A linked worktree's git folder takes config and hooks from
			// the folder its commondir names, which needs no HEAD: laid
			// out as an earlier command would have, the file tools and
			// the command then fill in that folder's config and hooks.
			name: "a commondir naming a folder with no HEAD",
			setup: func(t *testing.T) setup {
				ws := l.fresh("commondir")
				mkdirs(t, filepath.Join(ws, "common", "objects"), filepath.Join(ws, "common", "refs", "heads"), filepath.Join(ws, "proj"))
				writeFile(t, filepath.Join(ws, "wt", "HEAD"), "ref: refs/heads/main\n")
				writeFile(t, filepath.Join(ws, "wt", "commondir"), "../common\n")
				writeFile(t, filepath.Join(ws, "proj", ".git"), "gitdir: ../wt\n")
				return setup{ws: ws, watch: []string{filepath.Join(ws, "wt"), filepath.Join(ws, "proj", ".git")},
					user: func(t *testing.T) string {
						return l.git(t, filepath.Join(ws, "proj"), "status") + l.git(t, filepath.Join(ws, "proj"), "commit", "--allow-empty", "-q", "-m", "x")
					}}
			},
			command: func(m markers) string {
				return `for d in commo?; do printf ` + fsmonitor(m.path("commondir-config")) + ` > $d/config; ` +
					`mkdir -p $d/hooks; printf '#!/bin/sh\ntouch ` + m.path("commondir-hook") + `\n' > $d/hooks/pre-commit; chmod +x $d/hooks/pre-commit; done`
			},
			write: func(m markers) *gguf.Call {
				c := writeFileCall("common/config", "[core]\n\tfsmonitor = touch "+m.path("commondir-write-file")+"\n")
				return &c
			},
		},
		{
			// A submodule of the linked worktree that is the workspace
			// keeps its repository in the worktree's git folder, outside
			// the workspace and writable for commits; it has no commondir,
			// and one the command writes sends git to a copy of the
			// repository whose config names a program.
			name: "a commondir in the repository of a linked worktree's submodule",
			setup: func(t *testing.T) setup {
				lib := repo(t, "lib")
				primary := repo(t, "main")
				l.mustGit(t, primary, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "sub")
				l.mustGit(t, primary, "commit", "-q", "-m", "sub")
				ws := filepath.Join(l.fresh("trees"), "feature")
				l.mustGit(t, primary, "worktree", "add", "-q", "-b", "feature", ws)
				l.mustGit(t, ws, "-c", "protocol.file.allow=always", "submodule", "update", "--init", "-q")
				mod := filepath.Join(primary, ".git", "worktrees", "feature", "modules", "sub")
				return setup{ws: ws, watch: []string{filepath.Join(mod, "config"), filepath.Join(mod, "hooks"), filepath.Join(ws, "sub", ".git")},
					user: func(t *testing.T) string {
						return l.git(t, filepath.Join(ws, "sub"), "status") + l.git(t, ws, "status")
					}}
			},
			command: func(m markers) string {
				return `for d in "$(git rev-parse --git-dir)"/module?/sub; do e="$d/../evil"; mkdir -p "$e" && cp -r "$d/objects" "$d/refs" "$e/"; ` +
					`cp "$d/config" "$e/config"; printf ` + fsmonitor(m.path("module-commondir")) + ` >> "$e/config"; echo ../evil > "$d/commondir"; done`
			},
		},
		{
			// The same layout made by the command itself, settings and all.
			name: "a commondir a command makes",
			setup: func(t *testing.T) setup {
				ws := l.fresh("commondir-made")
				return setup{ws: ws, user: func(t *testing.T) string {
					return l.git(t, filepath.Join(ws, "proj"), "status") + l.git(t, filepath.Join(ws, "proj"), "commit", "--allow-empty", "-q", "-m", "x")
				}}
			},
			command: func(m markers) string {
				return `mkdir -p common/objects common/refs/heads wt proj && echo 'ref: refs/heads/main' > wt/HEAD && echo ../common > wt/commondir && ` +
					`printf 'gitdir: ../wt\n' > proj/.git && for d in commo?; do printf ` + fsmonitor(m.path("commondir-made")) + ` > $d/config; done`
			},
		},
		{
			// Git strips only "\n" and "\r" from a commondir: "../common "
			// names the folder "common " (with the blank), not the harmless
			// "common" beside it that a reader trimming blanks would see.
			name: "a commondir with a trailing blank",
			setup: func(t *testing.T) setup {
				ws := l.fresh("commondir-blank")
				mkdirs(t, filepath.Join(ws, "common", "objects"), filepath.Join(ws, "common", "refs", "heads"),
					filepath.Join(ws, "common ", "objects"), filepath.Join(ws, "common ", "refs", "heads"), filepath.Join(ws, "proj"))
				writeFile(t, filepath.Join(ws, "common", "config"), "[core]\n\trepositoryformatversion = 0\n")
				writeFile(t, filepath.Join(ws, "wt", "HEAD"), "ref: refs/heads/main\n")
				writeFile(t, filepath.Join(ws, "wt", "commondir"), "../common \n")
				writeFile(t, filepath.Join(ws, "proj", ".git"), "gitdir: ../wt\n")
				return setup{ws: ws, watch: []string{filepath.Join(ws, "wt"), filepath.Join(ws, "proj", ".git")},
					user: func(t *testing.T) string {
						return l.git(t, filepath.Join(ws, "proj"), "status") + l.git(t, filepath.Join(ws, "proj"), "commit", "--allow-empty", "-q", "-m", "x")
					}}
			},
			command: func(m markers) string {
				return `for d in commo?\ ; do printf ` + fsmonitor(m.path("commondir-blank-config")) + ` > "$d/config"; done`
			},
			write: func(m markers) *gguf.Call {
				c := writeFileCall("common /config", "[core]\n\tfsmonitor = touch "+m.path("commondir-blank-write-file")+"\n")
				return &c
			},
		},
		{
			// The same made by the command, with a harmless "common"
			// where a reader trimming blanks would look.
			name: "a commondir with a trailing blank a command makes",
			setup: func(t *testing.T) setup {
				ws := l.fresh("commondir-blank-made")
				return setup{ws: ws, user: func(t *testing.T) string {
					return l.git(t, filepath.Join(ws, "proj"), "status") + l.git(t, filepath.Join(ws, "proj"), "commit", "--allow-empty", "-q", "-m", "x")
				}}
			},
			command: func(m markers) string {
				return `mkdir -p common/objects common/refs/heads "common /objects" "common /refs/heads" wt proj && echo 'ref: refs/heads/main' > wt/HEAD && ` +
					`printf '../common \n' > wt/commondir && printf 'gitdir: ../wt\n' > proj/.git && ` +
					`for d in commo?\ ; do printf ` + fsmonitor(m.path("commondir-blank-made")) + ` > "$d/config"; done`
			},
		},
		{
			// The settings name a hooks folder that is not there yet: the
			// command makes it and puts a hook in it, through a name the
			// classifier cannot read, and the file tools try too.
			name: "a hooks folder not there yet",
			setup: func(t *testing.T) setup {
				ws := repo(t, "main")
				l.mustGit(t, ws, "config", "core.hooksPath", ".githooks")
				return setup{ws: ws, watch: []string{filepath.Join(ws, ".git", "config")}, gone: []string{".githooks"},
					user: func(t *testing.T) string { return l.git(t, ws, "commit", "--allow-empty", "-q", "-m", "x") }}
			},
			command: func(m markers) string {
				return `d=.git; d=${d}hooks; mkdir -p $d && printf '#!/bin/sh\ntouch ` + m.path("missing-hooks") + `\n' > $d/pre-commit && chmod +x $d/pre-commit`
			},
			write: func(m markers) *gguf.Call {
				c := writeFileCall(".githooks/post-commit", "#!/bin/sh\ntouch "+m.path("missing-hooks-write-file")+"\n")
				return &c
			},
		},
		{
			// The same, with folders missing on the way to it.
			name: "a nested hooks folder not there yet",
			setup: func(t *testing.T) setup {
				ws := repo(t, "main")
				l.mustGit(t, ws, "config", "core.hooksPath", "tools/git/hooks")
				return setup{ws: ws, watch: []string{filepath.Join(ws, ".git", "config")}, gone: []string{"tools"},
					user: func(t *testing.T) string { return l.git(t, ws, "commit", "--allow-empty", "-q", "-m", "x") }}
			},
			command: func(m markers) string {
				return `d=tool; d=${d}s/git/hooks; mkdir -p $d && printf '#!/bin/sh\ntouch ` + m.path("nested-hooks") + `\n' > $d/pre-commit && chmod +x $d/pre-commit`
			},
		},
		{
			// A working tree the command makes (git worktree add) gets
			// the hooks folder the settings name relative to a tree: one
			// no mount held while the command ran.
			name: "a new worktree's hooks folder",
			setup: func(t *testing.T) setup {
				ws := repo(t, "main")
				l.mustGit(t, ws, "config", "core.hooksPath", ".githooks")
				return setup{ws: ws, watch: []string{filepath.Join(ws, ".git", "config")},
					user: func(t *testing.T) string {
						return l.git(t, filepath.Join(ws, "wt"), "commit", "--allow-empty", "-q", "-m", "x")
					}}
			},
			command: func(m markers) string {
				return `git worktree add -q wt && d=wt/.git; d=${d}hooks; mkdir -p $d && printf '#!/bin/sh\ntouch ` + m.path("new-worktree-hooks") + `\n' > $d/pre-commit && chmod +x $d/pre-commit`
			},
		},
		{
			// The workspace is a folder of a bigger repository whose
			// settings name a hooks folder inside the workspace.
			name: "the workspace is a folder of a bigger repository",
			setup: func(t *testing.T) setup {
				big := repo(t, "big")
				ws := filepath.Join(big, "sub")
				mkdirs(t, ws)
				l.mustGit(t, big, "config", "core.hooksPath", "sub/.husky/_")
				return setup{ws: ws, watch: []string{filepath.Join(big, ".git", "config")}, gone: []string{".husky"},
					user: func(t *testing.T) string { return l.git(t, big, "commit", "--allow-empty", "-q", "-m", "x") }}
			},
			command: func(m markers) string {
				return `d=.hus; d=${d}ky/_; mkdir -p $d && printf '#!/bin/sh\ntouch ` + m.path("repo-above-hooks") + `\n' > $d/pre-commit && chmod +x $d/pre-commit`
			},
			write: func(m markers) *gguf.Call {
				c := writeFileCall(".husky/_/post-commit", "#!/bin/sh\ntouch "+m.path("repo-above-write-file")+"\n")
				return &c
			},
		},
		{
			// The repository's settings include a shared file, which
			// includes one that is not there yet: git reads it once it is.
			name: "a nested include not there yet",
			setup: func(t *testing.T) setup {
				ws := repo(t, "main")
				writeFile(t, filepath.Join(ws, "tools", "shared.inc"), "[include]\n\tpath = local.inc # per machine\n")
				l.mustGit(t, ws, "config", "include.path", "../tools/shared.inc")
				return setup{ws: ws, watch: []string{filepath.Join(ws, ".git", "config"), filepath.Join(ws, "tools", "shared.inc")},
					user: func(t *testing.T) string { return l.git(t, ws, "status") }}
			},
			command: func(m markers) string {
				return `for d in too?s; do printf ` + fsmonitor(m.path("nested-include")) + ` > $d/local.inc; done`
			},
			write: func(m markers) *gguf.Call {
				c := writeFileCall("tools/local.inc", "[core]\n\tfsmonitor = touch "+m.path("include-write-file")+"\n")
				return &c
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := l.markers("layout")
			t.Run("control", func(t *testing.T) {
				s := c.setup(t)
				out := l.shell(t, s.ws, c.command(m))
				s.user(t)
				if len(m.present()) == 0 {
					t.Fatalf("run with sh outside Loupe, the attack left no marker: fix the attack\n%s", out)
				}
				clearMarkers(t, m)
			})
			for _, md := range modes {
				t.Run(md.name, func(t *testing.T) {
					s := c.setup(t)
					before := fingerprint(t, s.watch...)
					calls := []gguf.Call{runCommand(c.command(m))}
					if c.write != nil {
						calls = append(calls, *c.write(m))
					}
					o := l.run(t, runOpts{workspace: s.ws, auto: md.auto, calls: calls})
					t.Log(o.summary())
					for _, cl := range o.calls() {
						if cl.name == "write_file" && cl.ran() {
							t.Errorf("write_file %s ran: it writes git's own files (a git directory's or settings git includes) and must ask, as .git/config does", cl.what())
						}
					}
					// The one change Loupe makes itself: an empty config.worktree
					// where the repository reads worktree config and had none,
					// so that a command cannot create it.
					ch := slices.DeleteFunc(changes(before, fingerprint(t, s.watch...)), func(c string) bool {
						return strings.Contains(c, "config.worktree: new, file "+emptyFile)
					})
					if len(ch) > 0 {
						t.Errorf("the run changed git files:\n  %s", strings.Join(ch, "\n  "))
					}
					if _, err := os.Stat(s.ws); err != nil {
						t.Errorf("the workspace is gone after the run: %v", err)
					}
					for _, g := range s.gone {
						if _, err := os.Lstat(filepath.Join(s.ws, g)); err == nil {
							t.Errorf("%s is in the workspace after the run: what Loupe made to hold it must go", g)
						}
					}
					gitOut := s.user(t)
					if got := m.present(); len(got) > 0 {
						t.Errorf("after the run, the user's own git ran code the command planted (markers %v); git said:\n%s", got, clip(gitOut, 600))
					}
					clearMarkers(t, m)
				})
			}
		})
	}
}

// TestRacingCleanUpStaysInTheWorkspace sends two parallel commands: one
// makes a repository whose settings run a program (which Loupe's check
// after the commands renames), the other swaps the folder holding it with
// a symbolic link to a folder outside the workspace, where a repository of
// the user's lies at the same relative path, over and over. The check must
// rename nothing outside and move nothing in or out, and the planted
// repository must not run on the user's git. The control shows that a
// rename by path while the swapper runs lands outside.
func TestRacingCleanUpStaysInTheWorkspace(t *testing.T) {
	l := newLab(t)
	// The user's repository outside, whose settings would be renamed.
	outsideRepo := func(t *testing.T) string {
		out := l.fresh("outside")
		victim := filepath.Join(out, "evil")
		mkdirs(t, victim)
		l.mustGit(t, victim, "init", "-q")
		// Settings of the user's own, which git init does not write: what
		// a check of a new repository would call unusual.
		l.mustGit(t, victim, "config", "core.editor", "vim")
		return out
	}
	// The folder exists before the run; the planting command enters the
	// real one (held as its working directory, whatever the swapper does
	// to the name after) and makes the repository there.
	plant := func(m markers) string {
		return `sleep 0.5; for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do cd a/evil 2>/dev/null && break; cd a.real/evil 2>/dev/null && break; sleep 0.05; done; ` +
			// By hand, with paths from the working directory: git init
			// would write through the folder's name, which the swapper moves.
			`mkdir -p .git/objects .git/refs/heads && for d in .gi?; do printf 'ref: refs/heads/main\n' > $d/HEAD; ` +
			`printf '[core]\n\trepositoryformatversion = 0\n\tfsmonitor = touch ` + m.path("planted") + `\n' > $d/config; done; echo planted`
	}
	// Three seconds of swaps in one process, so that the link is in
	// place about half of the time.
	swap := func(out string) string {
		return `python3 -c '
import os, time
end = time.time() + 3
while time.time() < end:
    try:
        os.rename("a", "a.real"); os.symlink("` + out + `", "a"); os.remove("a"); os.rename("a.real", "a")
    except OSError:
        pass
print("swapped")'`
	}
	workspace := func(t *testing.T) string {
		ws := l.fresh("ws")
		mkdirs(t, filepath.Join(ws, "a", "evil"))
		return ws
	}
	t.Run("control", func(t *testing.T) {
		// What a clean-up that renames by path does at the moment the
		// swapper has put the link in place: the rename lands outside.
		ws, out := workspace(t), outsideRepo(t)
		before := fingerprint(t, out)
		l.shell(t, ws, `mv a a.real && ln -s `+out+` a && mv a/evil/.git a/evil/.git.loupe-disarmed`)
		if len(changes(before, fingerprint(t, out))) == 0 {
			t.Fatal("a rename by path through the swapped link did not land outside: fix the attack")
		}
	})
	for _, md := range modes {
		t.Run(md.name, func(t *testing.T) {
			m := l.markers("race")
			ws, out := workspace(t), outsideRepo(t)
			before := fingerprint(t, out)
			o := l.run(t, runOpts{workspace: ws, auto: md.auto, calls: []gguf.Call{runCommand(plant(m)), runCommand(swap(out))}})
			t.Log(o.summary())
			if ch := changes(before, fingerprint(t, out)); len(ch) > 0 {
				t.Errorf("the folder outside the workspace changed:\n  %s", strings.Join(ch, "\n  "))
			}
			if fi, err := os.Lstat(filepath.Join(ws, "a")); err == nil && fi.Mode()&os.ModeSymlink != 0 {
				os.Remove(filepath.Join(ws, "a"))
				os.Rename(filepath.Join(ws, "a.real"), filepath.Join(ws, "a"))
			}
			if _, err := os.Stat(filepath.Join(ws, "a", "evil")); err == nil {
				l.git(t, filepath.Join(ws, "a", "evil"), "status")
			}
			if got := m.present(); len(got) > 0 {
				t.Errorf("after the run, the user's own git ran the repository the command planted (markers %v)", got)
			}
			if md.auto {
				// The check waits for the round: the planting command's own
				// result says nothing of it (the swapper still ran when it
				// ended), the round's last result says what was disarmed, once.
				cs := o.calls()
				if len(cs) != 2 || cs[0].result == nil || cs[1].result == nil {
					t.Fatalf("the run did not make both calls:\n%s", o.summary())
				}
				if strings.Contains(cs[0].result.Content, "loupe-disarmed") {
					t.Errorf("the check ran when the planting command ended, while the swapper of the same round still ran:\n%s", o.summary())
				}
				if n := strings.Count(cs[1].result.Content, "Loupe renamed it"); n != 1 || !strings.Contains(cs[1].result.Content, "a/evil/.git.loupe-disarmed") {
					t.Errorf("the round's last result does not say once that Loupe disarmed a/evil/.git:\n%s", o.summary())
				}
			}
			clearMarkers(t, m)
		})
	}
}
