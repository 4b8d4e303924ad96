package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
)

// A folder is a git directory to git not only when it looks like one (HEAD,
// objects, refs: isGitDir) but also when something sends git there: a
// linked worktree's git folder takes its settings, hooks and info from the
// folder its commondir file names, and a .git file's "gitdir:" line makes
// git use the folder it names. Such a folder needs no HEAD of its own (a
// common directory has none to git: it reads HEAD from the worktree's
// folder, and only objects/ and refs/ from the common one), so nothing in
// it says "repository". Loupe therefore treats every folder a commondir
// file or a .git file names as a git directory, whether the pointer is
// live yet or not: its config, hooks, info/attributes and the rest of
// gitProtected are git's own, to the file tools (GitFacts.Named, for the
// policy), to the view (read-only) and to the check after a round (what a
// command added there is renamed, what was there before it became live is
// read).

// namedDir returns the folder that the workspace entry p names as a git
// directory, if it is a commondir file or a .git file (of any folder: git
// reads a commondir of a folder that has no HEAD yet as soon as one is
// added). The folder is made absolute from the file's folder; it need not
// exist.
func namedDir(p string, d fs.DirEntry) (string, bool) {
	if d.IsDir() {
		return "", false
	}
	switch d.Name() {
	case "commondir":
		dir, _, ok := readPointer(p)
		return dir, ok
	case ".git":
		return gitPointer(p)
	}
	return "", false
}

// noteNamed adds to repos the folder that the entry p names as a git
// directory (namedDir), when it is a folder inside the workspace: with
// named set when it is not a git directory on its own, so that the check
// after the round does not take what it holds as vetted.
func noteNamed(repos map[string]gitRepo, ws, p string, d fs.DirEntry) {
	dir, ok := namedDir(p, d)
	if !ok {
		return
	}
	if _, inside := within(ws, dir); !inside {
		return
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return
	}
	if _, known := repos[dir]; known {
		return
	}
	noteGitDir(repos, dir)
	if !anyGitDir(dir) {
		r := repos[dir]
		r.named = true
		repos[dir] = r
	}
}

// LinkedGitFiles lists where the workspace ws's own git directories (its
// .git folder or the folder its .git file names, the workspace itself when
// it is one, and the folders those name through commondir) have git's own
// files (GitOwnFile: config, hooks, commondir, …) that are symbolic links
// into the workspace: git reads or runs what the link leads to, so that
// path is as much git's as the link (slash-separated, relative to ws). The
// policy protects them; the view refuses to run a command while such a
// link exists (viewPlan: a link cannot be made read-only).
func LinkedGitFiles(ws string) []string {
	real, err := filepath.EvalSymlinks(ws)
	if err != nil {
		return nil
	}
	var dirs []string
	add := func(d string) {
		if anyGitDir(d) {
			dirs = append(dirs, d)
			if c, _, ok := readPointer(filepath.Join(d, "commondir")); ok {
				dirs = append(dirs, c)
			}
		}
	}
	add(real)
	dot := filepath.Join(real, ".git")
	if fi, err := os.Lstat(dot); err == nil && fi.IsDir() {
		add(dot)
	} else if d, ok := gitPointer(dot); ok {
		add(d)
	}
	var out []string
	for _, d := range dirs {
		for _, f := range gitProtected {
			p := filepath.Join(d, f)
			fi, err := os.Lstat(p)
			if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				continue
			}
			target, err := filepath.EvalSymlinks(p)
			if err != nil {
				// Dangling: git would read what a file made there holds.
				target = linkTarget(p)
			}
			if rel, inside := within(real, target); inside && rel != "." {
				out = append(out, filepath.ToSlash(rel))
			}
		}
	}
	return out
}

// linkTarget is where the symlink p points, made absolute from its folder
// (its target need not exist).
func linkTarget(p string) string {
	t, err := os.Readlink(p)
	if err != nil {
		return ""
	}
	if !filepath.IsAbs(t) {
		t = filepath.Join(filepath.Dir(p), t)
	}
	return filepath.Clean(t)
}
