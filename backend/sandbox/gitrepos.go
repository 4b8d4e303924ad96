package sandbox

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Git runs programs named in a repository's settings and hooks the next
// time the user runs git there, outside the sandbox. The view makes the
// settings and hooks of every repository in the workspace read-only (see
// CommandGuard in backend/permission); this file covers what that cannot:
//
//   - a hooks folder that a repository's settings place in the working tree
//     (core.hooksPath = .husky), which is an ordinary folder to the guard:
//     it is made read-only too;
//   - a repository the command itself creates (`git init` in a folder of a
//     bigger repository, a .git file pointing at a folder it wrote): nothing
//     existed to make read-only when it started. After the command, such a
//     repository is checked, and if its settings or hooks would run a
//     program, it is renamed so that git no longer finds it, and the
//     command's output says so.

// gitRepo is one repository found in the workspace: its git directory and,
// for a .git file, the file.
type gitRepo struct {
	gitDir  string // the directory holding HEAD and config
	pointer string // the .git file pointing at gitDir, if any
}

// isGitDirName says whether the directory dir is a repository's git
// directory by its place: a .git folder, or one under .git/modules.
func isGitDirName(dir string) bool {
	sep := string(filepath.Separator)
	return filepath.Base(dir) == ".git" || strings.Contains(dir, sep+".git"+sep+"modules"+sep) || strings.Contains(dir, sep+".git"+sep+"worktrees"+sep)
}

// isGitDir says whether dir holds a repository (HEAD and config).
func isGitDir(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil {
		return false
	}
	_, err := os.Stat(filepath.Join(dir, "config"))
	return err == nil
}

// gitPointer reads a .git file ("gitdir: PATH") and returns the directory
// it names, made absolute from the file's folder.
func gitPointer(file string) (string, bool) {
	b, err := os.ReadFile(file)
	if err != nil || len(b) > 4096 {
		return "", false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	target, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return "", false
	}
	target = strings.TrimSpace(target)
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(file), target)
	}
	return filepath.Clean(target), true
}

// noteRepo adds the entry at p to repos when it is a git directory or a
// .git file.
func noteRepo(repos map[string]gitRepo, p string, d fs.DirEntry) {
	switch {
	case d.IsDir() && isGitDirName(p) && isGitDir(p):
		repos[p] = gitRepo{gitDir: p}
	case d.Type().IsRegular() && d.Name() == ".git":
		if dir, ok := gitPointer(p); ok {
			repos[p] = gitRepo{gitDir: dir, pointer: p}
		}
	}
}

// findRepos lists the repositories under ws: git directories and .git
// files. It does not follow symlinks, and skips a repository's objects,
// refs and logs, where none can be.
func findRepos(ws string) map[string]gitRepo {
	repos := map[string]gitRepo{}
	_ = filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && isGitDirName(filepath.Dir(p)) {
			switch d.Name() {
			case "objects", "refs", "logs", "lfs":
				return fs.SkipDir
			}
		}
		noteRepo(repos, p, d)
		return nil
	})
	return repos
}

// worktreeOf is the working tree a git directory belongs to: the folder
// holding the .git folder (or file).
func worktreeOf(r gitRepo) string {
	if r.pointer != "" {
		return filepath.Dir(r.pointer)
	}
	return filepath.Dir(r.gitDir)
}

// programsInWorktree returns the files and folders under ws that a
// repository's settings have git run: its hooks folder (core.hooksPath =
// .husky) and programs given by path (core.fsmonitor = ./watch.sh). A hooks
// folder named "_" (how husky lays out its hooks: "_/h" runs the scripts
// beside it) counts with its parent.
func programsInWorktree(r gitRepo, ws string) []string {
	var out []string
	for _, kv := range readGitConfig(filepath.Join(r.gitDir, "config")) {
		if kv.value == "" || dangerousKey(kv) == "" || strings.HasPrefix(kv.key, "include") {
			continue
		}
		if strings.HasSuffix(kv.key, ".path") {
			continue // a place, not a program
		}
		p := kv.value
		if strings.EqualFold(kv.key, "core.hookspath") {
			if !filepath.IsAbs(p) {
				p = filepath.Join(worktreeOf(r), p)
			}
			if p = filepath.Clean(p); filepath.Base(p) == "_" {
				p = filepath.Dir(p)
			}
		} else {
			// A program: its first word, when it names a file.
			p = strings.TrimPrefix(strings.Fields(p)[0], "!")
			if !strings.ContainsRune(p, '/') {
				continue
			}
			if !filepath.IsAbs(p) {
				p = filepath.Join(worktreeOf(r), p)
			}
			p = filepath.Clean(p)
		}
		if rel, ok := within(ws, p); ok && rel != "." {
			if _, err := os.Lstat(p); err == nil {
				out = append(out, p)
			}
		}
	}
	return out
}

// configEntry is one setting of a git config file.
type configEntry struct{ key, value string }

// readGitConfig reads the settings of a git config file well enough to
// find the ones that run programs: "[section]" / "[section "sub"]" headers
// and "key = value" lines. It never runs git on a file a command wrote.
func readGitConfig(path string) []configEntry {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []configEntry
	section := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				continue
			}
			head := strings.TrimSpace(line[1:end])
			name, sub, hasSub := strings.Cut(head, " ")
			section = strings.ToLower(name)
			if hasSub {
				section += "." + strings.Trim(strings.TrimSpace(sub), `"`)
			}
			line = strings.TrimSpace(line[end+1:])
			if line == "" {
				continue
			}
		}
		key, value, _ := strings.Cut(line, "=")
		out = append(out, configEntry{key: section + "." + strings.ToLower(strings.TrimSpace(key)), value: strings.Trim(strings.TrimSpace(value), `"`)})
	}
	return out
}

// runsPrograms are the last words of setting names under which git runs a
// program, opens an included file, or sends itself elsewhere.
var runsPrograms = []string{
	"fsmonitor", "hookspath", "sshcommand", "pager", "editor", "askpass", "gitproxy",
	"external", "textconv", "command", "cmd", "program", "helper", "driver",
	"clean", "smudge", "process", "path", "packobjectshook", "uploadpack", "receivepack",
	"difffilter", "browser", "proxycommand",
}

// dangerousKey says why one setting would have git run something (or
// read another file, or work elsewhere), or "" when it would not.
func dangerousKey(kv configEntry) string {
	last := kv.key[strings.LastIndexByte(kv.key, '.')+1:]
	if strings.HasPrefix(kv.key, "alias.") {
		if strings.HasPrefix(kv.value, "!") {
			return fmt.Sprintf("its setting %s runs %q", kv.key, kv.value)
		}
		return ""
	}
	if strings.HasPrefix(kv.key, "include") {
		return fmt.Sprintf("its setting %s includes %q", kv.key, kv.value)
	}
	for _, w := range runsPrograms {
		if last == w || strings.HasSuffix(last, w) {
			return fmt.Sprintf("its setting %s = %q", kv.key, kv.value)
		}
	}
	return ""
}

// dangerous says why a repository's settings or hooks would run something
// when the user runs git, or "" when they would not.
func dangerous(r gitRepo) string {
	for _, kv := range readGitConfig(filepath.Join(r.gitDir, "config")) {
		if why := dangerousKey(kv); why != "" {
			return why
		}
	}
	ents, _ := os.ReadDir(filepath.Join(r.gitDir, "hooks"))
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".sample") {
			return "it has a hook, " + e.Name()
		}
	}
	return ""
}

// disarmNewRepos checks the repositories under ws that were not there
// before the command (see the file comment) and renames those that would
// run a program, so that git does not find them. It returns one sentence
// per renamed repository, for the command's output.
func disarmNewRepos(ws string, before map[string]gitRepo) []string {
	var notes []string
	for p, r := range findRepos(ws) {
		old, existed := before[p]
		if existed && old.gitDir == r.gitDir {
			continue
		}
		why := dangerous(r)
		if why == "" {
			continue
		}
		moved := p + ".loupe-disarmed"
		for i := 2; ; i++ {
			if _, err := os.Lstat(moved); err != nil {
				break
			}
			moved = fmt.Sprintf("%s.loupe-disarmed-%d", p, i)
		}
		rel, _ := within(ws, p)
		if err := os.Rename(p, moved); err != nil {
			notes = append(notes, fmt.Sprintf("the command made a git repository at %s that would run a program when git runs (%s), and Loupe could not disarm it: %v; do not run git there before you check it", rel, why, err))
			continue
		}
		movedRel, _ := within(ws, moved)
		notes = append(notes, fmt.Sprintf("the command made a git repository at %s that would run a program when git runs there (%s); Loupe renamed it to %s so that git does not use it", rel, why, movedRel))
	}
	return notes
}

// gitShare is a folder outside the workspace that git needs there: the
// repository of a workspace that is a linked worktree (`git worktree add`),
// whose .git file points into another repository.
type gitShare struct {
	Path     string `json:"path"`
	Writable bool   `json:"writable,omitempty"`
}

// worktreeShares returns what a workspace that is a linked worktree needs
// of its repository: the common git directory read-only, with the parts a
// commit writes (objects, refs, logs) and the worktree's own git directory
// writable, less its settings and its pointer to the common directory
// (which a command could point at settings of its own).
func worktreeShares(ws string) []gitShare {
	dir, ok := gitPointer(filepath.Join(ws, ".git"))
	if !ok {
		return nil
	}
	if _, inside := within(ws, dir); inside || !isWorktreeGitDir(dir) {
		return nil
	}
	common := dir
	if b, err := os.ReadFile(filepath.Join(dir, "commondir")); err == nil {
		c := strings.TrimSpace(string(b))
		if !filepath.IsAbs(c) {
			c = filepath.Join(dir, c)
		}
		common = filepath.Clean(c)
	}
	if !isGitDir(common) {
		return nil
	}
	shares := []gitShare{{Path: common}}
	for _, sub := range []string{"objects", "refs", "logs"} {
		if fi, err := os.Stat(filepath.Join(common, sub)); err == nil && fi.IsDir() {
			shares = append(shares, gitShare{Path: filepath.Join(common, sub), Writable: true})
		}
	}
	shares = append(shares, gitShare{Path: dir, Writable: true})
	for _, f := range []string{"commondir", "config.worktree", "gitdir"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			shares = append(shares, gitShare{Path: filepath.Join(dir, f)})
		}
	}
	return shares
}

// isWorktreeGitDir says whether dir is a linked worktree's git directory
// (it has HEAD and a commondir file, and no config of its own need be).
func isWorktreeGitDir(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil {
		return false
	}
	_, err := os.Stat(filepath.Join(dir, "commondir"))
	return err == nil
}
