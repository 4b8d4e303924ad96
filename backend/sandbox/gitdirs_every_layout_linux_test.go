package sandbox_test

// Which folders are git directories, whatever the layout: each case lays
// out a repository as git or a command would (a .git folder, a .git file,
// a bare repository with a linked worktree, the workspace as a git folder,
// linked worktrees on either side, submodules in the main and in a linked
// worktree, a commondir naming a folder with no HEAD, and layouts a
// command makes itself). For every git directory of it, the file tools'
// policy (in auto mode, with an allow-everything rule) must ask before
// writing its settings, hooks, commondir, config.worktree and
// info/attributes; then a real sandboxed command tries to plant a program
// there in every way git would run it (append to config, a hook, a
// commondir to a copy of the repository whose config names the program,
// config.worktree, info/attributes), and the user's git status and commit
// in the working tree afterwards, on the host, must run nothing.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/sandbox"
)

// gitLayout is one repository layout: the workspace, the working tree the
// user runs git in afterwards, and the git directories to attack (relative
// to the workspace, or absolute when outside it).
type gitLayout struct {
	ws, tree string
	dirs     []string
	// made is a command that lays the repository out in the sandbox,
	// run before the file tools are judged ("" when the host did).
	made string
}

// plantEverything is a command that tries every way of making git run the
// marker program from the git directory D: its config, a hook, a commondir
// sending git to a copy of the repository whose config names the program,
// config.worktree and info/attributes (with the filter its copy defines).
func plantEverything(dir, marker string) string {
	return `D='` + dir + `'; E="$D/evil"
mkdir -p "$E"; cp -r "$D/objects" "$D/refs" "$E/" 2>/dev/null; cp "$D/packed-refs" "$E/" 2>/dev/null; mkdir -p "$E/objects" "$E/refs"
cp "$D/config" "$E/config" 2>/dev/null; printf '[core]\n\tfsmonitor = "touch ` + marker + `.common; false"\n[filter "x"]\n\tclean = "touch ` + marker + `.filter; cat"\n' >> "$E/config"
printf '[core]\n\tfsmonitor = "touch ` + marker + `.config; false"\n' >> "$D/config"; echo "config=$?"
mkdir -p "$D/hooks"; printf '#!/bin/sh\ntouch ` + marker + `.hook\n' > "$D/hooks/pre-commit"; chmod +x "$D/hooks/pre-commit"; echo "hook=$?"
[ -e "$D/commondir" ] || { echo evil > "$D/commondir"; echo "commondir=$?"; }
printf '[core]\n\tfsmonitor = "touch ` + marker + `.worktree; false"\n' >> "$D/config.worktree"; echo "config.worktree=$?"
mkdir -p "$D/info"; echo '* filter=x' > "$D/info/attributes"; echo "attributes=$?"
`
}

func TestGitDirsOfEveryLayout(t *testing.T) {
	needs(t, protections(t).Writes)
	cases := map[string]func(t *testing.T) gitLayout{
		"a .git folder": func(t *testing.T) gitLayout {
			ws := t.TempDir()
			initRepo(t, ws)
			return gitLayout{ws: ws, tree: ws, dirs: []string{".git"}}
		},
		"a .git file naming a folder in the workspace": func(t *testing.T) gitLayout {
			ws := t.TempDir()
			os.MkdirAll(filepath.Join(ws, "store"), 0o755)
			git(t, ws, "init", "-q", "--separate-git-dir", "store/proj.git", "proj")
			git(t, filepath.Join(ws, "proj"), "commit", "-q", "--allow-empty", "-m", "first")
			return gitLayout{ws: ws, tree: filepath.Join(ws, "proj"), dirs: []string{"store/proj.git"}}
		},
		"a bare repository with a linked worktree in the workspace": func(t *testing.T) gitLayout {
			ws, src := t.TempDir(), t.TempDir()
			initRepo(t, src)
			git(t, ws, "clone", "-q", "--bare", src, "lib.git")
			git(t, filepath.Join(ws, "lib.git"), "worktree", "add", "-q", "../libwt")
			return gitLayout{ws: ws, tree: filepath.Join(ws, "libwt"), dirs: []string{"lib.git", "lib.git/worktrees/libwt"}}
		},
		"the workspace is a .git folder": func(t *testing.T) gitLayout {
			proj := t.TempDir()
			initRepo(t, proj)
			return gitLayout{ws: filepath.Join(proj, ".git"), tree: proj, dirs: []string{"."}}
		},
		"the workspace is a bare repository with a linked worktree elsewhere": func(t *testing.T) gitLayout {
			src := t.TempDir()
			initRepo(t, src)
			ws := filepath.Join(t.TempDir(), "bare.git")
			git(t, src, "clone", "-q", "--bare", src, ws)
			wt := filepath.Join(t.TempDir(), "wt")
			git(t, ws, "worktree", "add", "-q", wt)
			return gitLayout{ws: ws, tree: wt, dirs: []string{".", "worktrees/wt"}}
		},
		"a linked worktree elsewhere of the workspace's repository": func(t *testing.T) gitLayout {
			ws := t.TempDir()
			initRepo(t, ws)
			wt := filepath.Join(t.TempDir(), "W")
			git(t, ws, "worktree", "add", "-q", wt)
			return gitLayout{ws: ws, tree: wt, dirs: []string{".git/worktrees/W"}}
		},
		"the workspace is a linked worktree": func(t *testing.T) gitLayout {
			main := t.TempDir()
			initRepo(t, main)
			ws := filepath.Join(t.TempDir(), "W")
			git(t, main, "worktree", "add", "-q", ws)
			return gitLayout{ws: ws, tree: ws, dirs: []string{filepath.Join(main, ".git", "worktrees", "W")}}
		},
		"a submodule of the main worktree": func(t *testing.T) gitLayout {
			ws, lib := t.TempDir(), t.TempDir()
			initRepo(t, lib)
			initRepo(t, ws)
			git(t, ws, "submodule", "add", "-q", lib, "sub")
			git(t, ws, "commit", "-q", "-m", "sub")
			return gitLayout{ws: ws, tree: filepath.Join(ws, "sub"), dirs: []string{".git/modules/sub"}}
		},
		"a submodule of a linked worktree elsewhere": func(t *testing.T) gitLayout {
			ws, lib := t.TempDir(), t.TempDir()
			initRepo(t, lib)
			initRepo(t, ws)
			git(t, ws, "submodule", "add", "-q", lib, "sub")
			git(t, ws, "commit", "-q", "-m", "sub")
			wt := filepath.Join(t.TempDir(), "W")
			git(t, ws, "worktree", "add", "-q", wt)
			git(t, wt, "submodule", "update", "--init", "-q")
			return gitLayout{ws: ws, tree: filepath.Join(wt, "sub"), dirs: []string{".git/worktrees/W/modules/sub"}}
		},
		"a submodule of the linked worktree that is the workspace": func(t *testing.T) gitLayout {
			main, lib := t.TempDir(), t.TempDir()
			initRepo(t, lib)
			initRepo(t, main)
			git(t, main, "submodule", "add", "-q", lib, "sub")
			git(t, main, "commit", "-q", "-m", "sub")
			ws := filepath.Join(t.TempDir(), "W")
			git(t, main, "worktree", "add", "-q", ws)
			git(t, ws, "submodule", "update", "--init", "-q")
			return gitLayout{ws: ws, tree: filepath.Join(ws, "sub"), dirs: []string{filepath.Join(main, ".git", "worktrees", "W", "modules", "sub")}}
		},
		"made by a command: a commondir naming a folder with no HEAD": func(t *testing.T) gitLayout {
			ws := t.TempDir()
			return gitLayout{ws: ws, tree: filepath.Join(ws, "proj"), dirs: []string{"common", "wt"},
				made: `mkdir -p common/objects common/refs/heads wt proj && echo 'ref: refs/heads/main' > wt/HEAD && echo ../common > wt/commondir && printf 'gitdir: ../wt\n' > proj/.git && echo made`}
		},
		"made by a command: a commondir and a .git file, the folders not yet a repository": func(t *testing.T) gitLayout {
			ws := t.TempDir()
			return gitLayout{ws: ws, tree: filepath.Join(ws, "proj"), dirs: []string{"common"},
				made: `mkdir -p common wt proj && echo ../common > wt/commondir && printf 'gitdir: ../wt\n' > proj/.git && echo made`}
		},
		"made by a command: git init with a separate git folder": func(t *testing.T) gitLayout {
			ws := t.TempDir()
			return gitLayout{ws: ws, tree: filepath.Join(ws, "proj"), dirs: []string{"store/proj.git"},
				made: `mkdir store && git init -q --separate-git-dir store/proj.git proj && git -C proj -c user.email=a@b -c user.name=n commit -q --allow-empty -m first && echo made`}
		},
		"made by a command: a linked worktree in the workspace": func(t *testing.T) gitLayout {
			ws := t.TempDir()
			initRepo(t, ws)
			return gitLayout{ws: ws, tree: filepath.Join(ws, "wt2"), dirs: []string{".git/worktrees/wt2"},
				made: `git worktree add -q wt2 && echo made`}
		},
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			l := setup(t)
			if l.made != "" {
				out := crun(t, sandbox.Confined{Workspace: l.ws, Guard: guardFor(l.ws, "")}, l.made)
				t.Logf("laid out: %q", out.Text)
				if !strings.Contains(out.Text, "made") {
					t.Fatalf("the command could not lay the repository out: %q", out.Text)
				}
			}
			// The file tools, in auto mode with every path allowed: git's
			// own files of each git directory ask (or, outside the
			// workspace, are refused).
			pol := permission.Policy{Mode: permission.ModeAuto, Workspace: l.ws,
				Rules: []permission.Rule{{Effect: permission.EffectAllow, Path: "**"}}}
			for _, d := range l.dirs {
				for _, f := range []string{"config", "hooks/pre-commit", "commondir", "config.worktree", "info/attributes"} {
					p := filepath.ToSlash(filepath.Join(d, f))
					if dec := pol.Decide(permission.Call{Tool: "write_file", Paths: []string{p}}); dec.Verdict == permission.Run {
						t.Errorf("write_file %s runs without asking: %q", p, dec.Reasons)
					}
				}
			}
			// A command, then the user's git.
			marker := filepath.Join(t.TempDir(), "RAN")
			script := ""
			for _, d := range l.dirs {
				script += plantEverything(d, marker)
			}
			out := crun(t, sandbox.Confined{Workspace: l.ws, Guard: guardFor(l.ws, "")}, script)
			t.Logf("command: %q", out.Text)
			git := func(args ...string) string { return hostGit(t, l.tree, args...) }
			t.Logf("git status: %s", git("status", "--short"))
			git("commit", "-q", "--allow-empty", "-m", "user")
			os.WriteFile(filepath.Join(l.tree, "new.txt"), []byte("x\n"), 0o644)
			git("add", "new.txt")
			for _, m := range []string{".config", ".common", ".hook", ".worktree", ".filter"} {
				if ran(t, marker+m) {
					t.Errorf("the user's git ran the program the command planted (%s) in %v", strings.TrimPrefix(m, "."), l.dirs)
				}
			}
		})
	}
}
