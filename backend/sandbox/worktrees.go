package sandbox

import (
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/loupe-dev/loupe/backend/hands"
)

// A working tree's settings can name a hooks folder relative to it
// (core.hooksPath = .githooks, husky's .husky/_), or a template folder
// (init.templateDir), from the user's ~/.gitconfig too: git runs what is
// in it. The view holds that folder read-only for every working tree there
// is when a command starts (programsOf, planWorkspace). A command that
// makes a new working tree (git worktree add, git init, a .git file naming
// a repository) gets a new such folder that nothing held: the check after
// the round finds every working tree the workspace now has (each git
// directory and .git entry the walk finds, and each linked worktree a
// repository's worktrees/ lists), works out its hooks folders with the
// code that plans the mounts, and renames one that was not held during the
// round and now has a hook in it, as it renames a new repository's hooks.

// noteTree notes the git directory sub (held open, of the kind
// gitDirKindAt says) as a working tree's: a .git folder's tree is the
// folder above, a bare repository's hooks are its own, and a linked
// worktree's folder (worktrees/NAME) names its tree in its gitdir file.
func (c *cleanup) noteTree(sub *hands.Dir, kind string) {
	if c.at != "" {
		return // outside the workspace: its trees are found in it
	}
	dir := c.abs(sub.Rel())
	if kind != "worktree" {
		c.trees = append(c.trees, gitRepo{gitDir: dir})
		return
	}
	b, _, err := sub.ReadFile("gitdir", maxGitFile)
	if err != nil {
		return // git finds the tree by its .git file, which the walk sees
	}
	t := strings.TrimSpace(string(b))
	if t == "" {
		return
	}
	if !filepath.IsAbs(t) {
		t = filepath.Join(dir, t)
	}
	c.noteTreeOf(dir, filepath.Clean(t))
}

// noteTreeOf notes the working tree whose .git entry is pointer (in the
// workspace) and whose git directory is gitDir.
func (c *cleanup) noteTreeOf(gitDir, pointer string) {
	if c.at != "" || gitDir == "" {
		return
	}
	if _, ok := within(c.ws, pointer); !ok {
		return
	}
	c.trees = append(c.trees, gitRepo{gitDir: gitDir, pointer: pointer})
}

// newHooksFolders renames each hooks folder the settings now name for a
// working tree of the workspace that was not held during the round and
// holds a hook.
func (c *cleanup) newHooksFolders() {
	seen := map[string]bool{}
	for _, r := range c.trees {
		pp := programsOf(r, c.ws)
		for _, t := range pp.folders {
			if c.folders[t.path] || seen[t.path] {
				continue
			}
			seen[t.path] = true
			c.disarmHooksFolder(t.path, worktreeOf(r))
		}
		// One that a link of the workspace leads out of it (to a
		// folder a command may write that outlasts it, its cache): the
		// link itself is renamed, never followed.
		for _, t := range pp.away {
			if c.folders[t.given] || seen[t.given] {
				continue
			}
			seen[t.given] = true
			for _, l := range t.links {
				if rel, ok := within(c.ws, l); ok && rel != "." {
					c.disarmLink(l, worktreeOf(r))
					break
				}
			}
		}
	}
}

// disarmLink renames the symbolic link l (absolute, in the workspace), on
// the way to a hooks folder of the working tree tree, in its held parent
// folder.
func (c *cleanup) disarmLink(l, tree string) {
	rel, _ := within(c.ws, l)
	d, name, err := c.root.OpenParent(filepath.ToSlash(rel))
	if err != nil {
		return // gone, or its folder is no longer one: git cannot use it
	}
	defer d.Close()
	if fi, err := d.Lstat(name); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return
	}
	c.rename(d, name, "it is a symbolic link out of the workspace on the way to the hooks folder the settings name for the working tree "+c.shown(tree)+", and git runs the programs there")
}

// disarmHooksFolder renames the folder p (absolute, in the workspace) of
// the working tree tree when it has anything in it but git's samples. It
// is reached from the workspace's handle, never through a link: a folder
// on the way that became one is refused and named.
func (c *cleanup) disarmHooksFolder(p, tree string) {
	rel, ok := within(c.ws, p)
	if !ok || rel == "." {
		return
	}
	d, name, err := c.root.OpenParent(filepath.ToSlash(rel))
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	why := "git takes programs from it: the settings name it for the working tree " + c.shown(tree) + " (core.hooksPath or init.templateDir), and it was not held read-only while the commands ran"
	if err != nil {
		c.say("%s left %s, which could make git run a program (%s), and Loupe could not check it: %v; do not run git there before you check it", c.one(), filepath.ToSlash(rel), why, err)
		return
	}
	defer d.Close()
	fi, err := d.Lstat(name)
	if err != nil {
		return
	}
	if fi.IsDir() {
		sub, err := d.OpenDir(name)
		if err == nil {
			ents, lerr := sub.ReadDir()
			sub.Close()
			if lerr == nil && !slices.ContainsFunc(ents, func(e hands.Entry) bool { return !strings.HasSuffix(e.Name, ".sample") }) {
				return // empty, or git's samples only
			}
		}
	} else if fi.Mode()&fs.ModeSymlink == 0 {
		return // a file: git takes no hooks from it
	}
	c.rename(d, name, why)
}
