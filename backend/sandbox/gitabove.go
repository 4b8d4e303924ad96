package sandbox

import (
	"os"
	"path/filepath"
)

// reposAbove lists the repositories the workspace ws is a folder of (a
// package of a bigger repository, a folder inside a .git folder or a bare
// repository), as git finds them going up from it: a folder that is a git
// directory itself, a .git folder, or the repository a .git file names.
// Git run in the workspace reads their settings, and the user's git in
// that repository runs what they name, so whatever their settings name
// inside the workspace (a hooks folder, a program, an included file) is
// held as a repository's of the workspace would be: by the view for
// commands and by the file tools, from this one list. They are never the
// workspace's to rename. seen are the folders looked at and the .git
// entries read, for FactsOf to tell when one changes (a repository made
// above, a .git file pointed elsewhere).
func reposAbove(ws string) (repos []gitRepo, seen []string) {
	for d := filepath.Dir(ws); ; d = filepath.Dir(d) {
		seen = append(seen, d)
		if anyGitDir(d) {
			repos = append(repos, gitRepo{gitDir: d})
		}
		dot := filepath.Join(d, ".git")
		if fi, err := os.Lstat(dot); err == nil {
			seen = append(seen, dot)
			if fi.IsDir() {
				repos = append(repos, gitRepo{gitDir: dot})
			} else if dir, ok := gitPointer(dot); ok {
				repos = append(repos, gitRepo{gitDir: dir, pointer: dot})
			}
		}
		if filepath.Dir(d) == d {
			return repos, seen
		}
	}
}

// HooksFolderOf says whether the folder ws is itself a hooks folder that
// the settings of the repository it lies in (or is) name (core.hooksPath =
// .githooks, the folder opened on .githooks; husky's .husky/_ opened on
// .husky): every file in it would be a program the user's git runs, and
// no part of it can be held for a command. It returns that repository's
// git directory.
func HooksFolderOf(ws string) (string, bool) {
	real, err := filepath.EvalSymlinks(ws)
	if err != nil {
		return "", false
	}
	repos, _ := reposAbove(real)
	if anyGitDir(real) {
		repos = append(repos, gitRepo{gitDir: real})
	}
	for _, r := range repos {
		if programsOf(r, real).self {
			return r.gitDir, true
		}
	}
	return "", false
}
