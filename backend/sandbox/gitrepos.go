package sandbox

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/loupe-dev/loupe/backend/hands"
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
	// present are the settings files of gitSettingFiles the git
	// directory had when the command started.
	present map[string]bool
	// named: not a git directory on its own, but one a commondir or a
	// .git file names (gitnamed.go). What it held was never vetted as a
	// repository's: the check after the round reads it rather than trust
	// it.
	named bool
	// base is, for a git directory outside the workspace that commands
	// see writable (a linked worktree's own git folder and its
	// submodules' repositories, worktreeShares), the folder the check
	// after the round opens to reach it: that git folder, which is a
	// mount point to the command, so it cannot be swapped. "" for the
	// workspace.
	base string
	// common is the folder its commondir led to when the command
	// started (resolved as git does, pointerDir), "" when it has none:
	// the commondir is read-only, but a symbolic link on its way is the
	// workspace's, and a command that changes it sends git elsewhere.
	common string
	// todos are what the todo lists of an operation under way held when
	// the command started (todoSums).
	todos map[string][32]byte
}

// gitSettingFiles are files of a git directory that git reads settings
// from, or follows, and that a repository usually lacks: the guard cannot
// make read-only what does not exist, so a command that creates one is
// undone afterwards. A repository's hooks folder is made beforehand
// (ensureHooksDir); one a command creates where there was none (in a
// folder a commondir names, say) is renamed the same way.
var gitSettingFiles = []string{"config", "commondir", "config.worktree", "info/attributes", "gitdir", "hooks"}

// gitProtected are the entries of a git directory, of any layout (a .git
// folder, a bare repository, a linked worktree's folder under
// worktrees/, a submodule's under modules/, the workspace itself), that
// make git run a program or send it to settings elsewhere (docs/SECURITY.md
// lists each with the git documentation that says so). Those that exist
// are read-only for commands.
var gitProtected = []string{"config", "config.worktree", "hooks", "commondir", "gitdir", "info/attributes"}

// maxGitFile bounds what is read of a file a command may have written.
const maxGitFile = 1 << 20

// readSmall reads a regular file of at most maxGitFile bytes, without
// following a symlink at its end and without blocking on a FIFO.
func readSmall(path string) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if fi.Size() > maxGitFile {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, maxGitFile)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxGitFile+1))
	if err == nil && len(b) > maxGitFile {
		err = fmt.Errorf("%s is larger than %d bytes", path, maxGitFile)
	}
	return b, err
}

// exists says whether p exists, without following a final symlink.
func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// isGitDir says whether dir is a repository by git's own rule: HEAD, and
// objects and refs folders (a .git folder may lack them while being made;
// then HEAD and config do).
func isGitDir(dir string) bool { return repoRule(filepath.Base(dir), pathHas(dir)) }

// repoRule is isGitDir's rule, asked of a folder named name through has,
// which says whether an entry of the folder is there (follow: through a
// link at it).
func repoRule(name string, has func(entry string, follow bool) bool) bool {
	if !has("HEAD", false) {
		return false
	}
	return has("objects", false) && has("refs", false) || name == ".git" && has("config", false)
}

// worktreeRule is isWorktreeGitDir's rule, asked as repoRule is.
func worktreeRule(has func(entry string, follow bool) bool) bool {
	return has("HEAD", true) && has("commondir", true)
}

// pathHas asks the entries of the folder dir by path.
func pathHas(dir string) func(string, bool) bool {
	return func(entry string, follow bool) bool {
		p := filepath.Join(dir, entry)
		if follow {
			_, err := os.Stat(p)
			return err == nil
		}
		return exists(p)
	}
}

// IsGitDirIn is IsGitDir of the folder rel that look sees (the folder
// Loupe's own process holds open and is about to change an entry of:
// hands.Look; no link is followed, a link counts as there). name is the
// folder's own name (for rel ".", the workspace's).
func IsGitDirIn(look hands.Look, rel, name string) bool {
	has := func(entry string, _ bool) bool {
		_, err := look.Lstat(path.Join(rel, entry))
		return err == nil
	}
	return repoRule(name, has) || worktreeRule(has)
}

// PathLook is a hands.Look on the folder by path, for the judgements of
// a tool's call, which opens its path itself.
type PathLook string

func (d PathLook) Lstat(rel string) (fs.FileInfo, error) {
	return os.Lstat(filepath.Join(string(d), filepath.FromSlash(rel)))
}

// gitPointer reads a .git file ("gitdir: PATH") and returns the directory
// it names, made absolute from the file's folder.
func gitPointer(file string) (string, bool) {
	dir, _, ok := readPointer(file)
	return dir, ok
}

// anyGitDir says whether dir is a git directory of any layout: a
// repository (isGitDir) or a linked worktree's git directory
// (isWorktreeGitDir), which takes its settings from the repository its
// commondir names and its own config.worktree.
func anyGitDir(dir string) bool { return isGitDir(dir) || isWorktreeGitDir(dir) }

// IsGitDir reports whether dir is a git directory of any layout (a .git
// folder, a bare repository, a linked worktree's git folder): the policy
// protects its own files (GitOwnFile) as the view does.
func IsGitDir(dir string) bool { return anyGitDir(dir) }

// GitOwnFile reports whether rel (slash-separated, relative to a git
// directory) is one of git's files there that can make git run a program
// or read settings from elsewhere: one of gitProtected, or under hooks/.
func GitOwnFile(rel string) bool {
	for _, f := range gitProtected {
		if rel == f || f == "hooks" && strings.HasPrefix(rel, "hooks/") {
			return true
		}
	}
	return false
}

// noteGitDir adds the git directory dir to repos, with the settings files
// it has now.
func noteGitDir(repos map[string]gitRepo, dir string) {
	if _, ok := repos[dir]; ok {
		return
	}
	r := gitRepo{gitDir: dir, present: map[string]bool{}, todos: todoSums(dir)}
	for _, f := range gitSettingFiles {
		r.present[f] = exists(filepath.Join(dir, f))
	}
	if c, _, ok := readPointer(filepath.Join(dir, "commondir")); ok {
		r.common = c
	}
	repos[dir] = r
}

// noteRepo adds the entry at p of the workspace ws to repos when it is a
// git directory (of any name and layout: git finds bare repositories too)
// or a .git file. A .git file's repository, when it is in the workspace,
// is noted too, so that what a command adds to it is seen, whatever its
// name.
func noteRepo(repos map[string]gitRepo, ws, p string, d fs.DirEntry) {
	defer noteNamed(repos, ws, p, d)
	switch {
	case d.IsDir() && anyGitDir(p):
		noteGitDir(repos, p)
	case d.Name() == ".git" && !d.IsDir():
		// A .git file, or anything else in its place (git reads a
		// symlink too): what it names is judged afterwards.
		dir, _ := gitPointer(p)
		repos[p] = gitRepo{gitDir: dir, pointer: p}
		if fi, err := os.Lstat(dir); err == nil && fi.IsDir() && anyGitDir(dir) {
			if _, inside := within(ws, dir); inside {
				noteGitDir(repos, dir)
			}
		}
	}
}

// noteRoot notes the workspace itself when it is a git directory (a
// workspace opened on a repository's .git folder, a bare repository or a
// linked worktree's git folder): its settings are as much git's as a
// nested repository's.
func noteRoot(repos map[string]gitRepo, ws string) {
	if anyGitDir(ws) {
		noteGitDir(repos, ws)
	}
}

// walkWorkspace calls fn for every entry under ws (not ws itself), never
// through a link, and never skipping a folder: a git directory's objects/,
// refs/ or logs/ can hold a repository the working tree's index names as
// a submodule, which the user's git enters (and a folder is taken for a git
// directory by names alone, so a decoy's objects/ would be anything). It
// fails, rather than answer with part of the workspace, when the workspace
// has more than maxScanEntries entries, or holds a folder Loupe's process
// cannot list that git could still go through (search permission without
// read permission): what is under it is unknown, and git would find it.
func walkWorkspace(ws string, fn func(p string, d fs.DirEntry)) error {
	n := 0
	return filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == ws {
				return err
			}
			if d != nil && d.IsDir() && unix.Access(p, unix.X_OK) == nil {
				rel, _ := within(ws, p)
				return fmt.Errorf("Loupe cannot list the folder %s (%v), and git can still go into it", filepath.ToSlash(rel), err)
			}
			return nil // git cannot go into it either
		}
		if p == ws {
			return nil
		}
		if n++; n > maxScanEntries {
			return fmt.Errorf("the workspace has more than %d files and folders, more than Loupe checks", maxScanEntries)
		}
		fn(p, d)
		return nil
	})
}

// gitReadOnly lists what the view makes read-only of the repositories
// found in ws: each git directory's entries of gitProtected that exist.
// Before that, a repository that reads config.worktree
// (extensions.worktreeConfig) gets an empty one where it has none, so that
// a command cannot create it: git would read what the command wrote there
// the next time the user runs it.
func gitReadOnly(root *hands.Root, ws string, repos map[string]gitRepo) (out []string, made []placeholder) {
	for _, r := range repos {
		if r.pointer != "" {
			continue
		}
		if _, inside := within(ws, r.gitDir); !inside {
			continue
		}
		if readsWorktreeConfig(r.gitDir) && root != nil {
			rel, _ := within(ws, filepath.Join(r.gitDir, "config.worktree"))
			if p, ok := holdFile(root, filepath.ToSlash(rel)); ok {
				made = append(made, p)
			}
			// Loupe's own: not one the command added.
			r.present["config.worktree"] = exists(filepath.Join(r.gitDir, "config.worktree"))
		}
		for _, f := range gitProtected {
			if p := filepath.Join(r.gitDir, f); exists(p) {
				out = append(out, p)
			}
		}
	}
	return out, made
}

// readsWorktreeConfig says whether git reads config.worktree in the git
// directory dir: its repository's config (the one commondir names, for a
// linked worktree) sets extensions.worktreeConfig.
func readsWorktreeConfig(dir string) bool {
	common := dir
	if c, _, ok := readPointer(filepath.Join(dir, "commondir")); ok {
		common = c
	}
	entries, _ := readGitConfig(filepath.Join(common, "config"))
	for _, kv := range entries {
		if kv.key == "extensions.worktreeconfig" && !strings.EqualFold(kv.value, "false") && kv.value != "0" {
			return true
		}
	}
	return false
}

// worktreeOf is the working tree a git directory belongs to: the folder
// holding the .git folder (or file).
func worktreeOf(r gitRepo) string {
	if r.pointer != "" {
		return filepath.Dir(r.pointer)
	}
	return filepath.Dir(r.gitDir)
}

// readGitConfig reads the settings of a git config file as git reads them
// (parseGitConfig). It never runs git on a file a command wrote. A file
// that cannot be read whole (too large, not a regular file) is an error.
func readGitConfig(path string) ([]configEntry, error) {
	b, err := readSmall(path)
	if err != nil {
		return nil, err
	}
	return parseGitConfig(b), nil
}

// plainSettings are the settings `git init` and `git clone` write: a
// repository a command made with nothing else is left alone. Keys are
// matched with any subsection ("remote.*.url").
var plainSettings = map[string]bool{
	"core.repositoryformatversion": true, "core.filemode": true, "core.bare": true,
	"core.logallrefupdates": true, "core.ignorecase": true, "core.precomposeunicode": true,
	"core.symlinks": true, "core.autocrlf": true, "extensions.objectformat": true,
	"remote.*.url": true, "remote.*.fetch": true, "branch.*.remote": true,
	"branch.*.merge": true, "branch.*.rebase": true, "init.defaultbranch": true,
	"user.name": true, "user.email": true, "submodule.*.url": true, "submodule.*.active": true,
	"core.worktree": true, "core.sparsecheckout": true,
}

// unusual says why a setting of a new repository is not one that git init
// or clone writes, or "" when it is.
func unusual(kv configEntry) string {
	parts := strings.Split(kv.key, ".")
	generic := kv.key
	if len(parts) > 2 {
		generic = parts[0] + ".*." + parts[len(parts)-1]
	}
	if !plainSettings[generic] {
		return "its setting " + kv.key
	}
	if strings.HasSuffix(kv.key, ".url") && strings.Contains(kv.value, "::") {
		return "its setting " + kv.key + " uses a remote helper"
	}
	return ""
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
func worktreeShares(ws string) (shares []gitShare, made []placeholder) {
	dir, common, ok := linkedWorktree(ws)
	if !ok {
		return nil, nil
	}
	shares = []gitShare{{Path: common}}
	for _, sub := range []string{"objects", "refs", "logs"} {
		if fi, err := os.Stat(filepath.Join(common, sub)); err == nil && fi.IsDir() {
			shares = append(shares, gitShare{Path: filepath.Join(common, sub), Writable: true})
		}
	}
	shares = append(shares, gitShare{Path: dir, Writable: true})
	if readsWorktreeConfig(dir) {
		// Git reads the worktree's config.worktree: one the command
		// created in its writable git folder would run on the user's
		// next git. An empty one, read-only, leaves it nothing to create.
		if r, err := hands.Open(dir, nil); err == nil {
			if p, ok := holdFile(r, "config.worktree"); ok {
				made = append(made, p)
			}
			r.Close()
		}
	}
	for _, f := range []string{"commondir", "config.worktree", "gitdir"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			shares = append(shares, gitShare{Path: filepath.Join(dir, f)})
		}
	}
	// The worktree's own submodules keep their repositories in its git
	// folder (modules/NAME, nested as modules/A/modules/B): their settings
	// and hooks are as much git's as the main repository's, and the folder
	// above them is writable.
	for _, m := range moduleGitDirs(dir) {
		if r, err := hands.Open(m, nil); err == nil {
			if _, err := r.Lstat("hooks"); errors.Is(err, fs.ErrNotExist) {
				h, _ := holdDirs(r, "hooks")
				made = append(made, h...)
			}
			r.Close()
		}
		for _, f := range gitProtected {
			if p := filepath.Join(m, f); exists(p) {
				shares = append(shares, gitShare{Path: p})
			}
		}
	}
	return shares, made
}

// noteShared adds to repos the git directories outside the workspace ws
// that worktreeShares makes writable for commands: a linked worktree's own
// git folder and its submodules' repositories there. Nothing keeps a
// command from creating, in those writable folders, a file git reads that
// was not there (a submodule's repository has no commondir; one the
// command writes sends git to settings of its own, and no placeholder can
// stand in: git refuses an empty commondir). The check after the round
// renames it, as in the workspace (settingsAdded).
func noteShared(repos map[string]gitRepo, ws string) {
	dir, _, ok := linkedWorktree(ws)
	if !ok {
		return
	}
	for _, g := range append([]string{dir}, moduleGitDirs(dir)...) {
		noteGitDir(repos, g)
		r := repos[g]
		r.base = dir
		repos[g] = r
	}
}

// linkedWorktree says whether the workspace ws is a linked worktree of a
// repository elsewhere, and returns its git folder (worktrees/NAME of that
// repository) and the repository's common git directory.
func linkedWorktree(ws string) (dir, common string, ok bool) {
	dir, ok = gitPointer(filepath.Join(ws, ".git"))
	if !ok {
		return "", "", false
	}
	if _, inside := within(ws, dir); inside || !isWorktreeGitDir(dir) {
		return "", "", false
	}
	// git's own link back from the worktree's git directory to this .git
	// file: without it, a .git file a command wrote could adopt another
	// project's worktree and open that repository to the workspace.
	back, err := readSmall(filepath.Join(dir, "gitdir"))
	if err != nil {
		return "", "", false
	}
	b := filepath.Clean(strings.TrimSpace(string(back)))
	want := filepath.Join(ws, ".git")
	if rb, err := filepath.EvalSymlinks(b); err == nil {
		b = rb
	}
	if b != want {
		return "", "", false
	}
	common = dir
	if c, _, ok := readPointer(filepath.Join(dir, "commondir")); ok {
		common = c
	}
	if !isGitDir(common) {
		return "", "", false
	}
	return dir, common, true
}

// moduleGitDirs lists the submodules' git directories under the git
// directory dir (modules/**, however deeply nested), without following a
// link on the way.
func moduleGitDirs(dir string) []string {
	var out []string
	_ = filepath.WalkDir(filepath.Join(dir, "modules"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		// Every folder, a git directory's objects/ and refs/ too: a
		// submodule's name can place its repository under another's.
		if isGitDir(p) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// isWorktreeGitDir says whether dir is a linked worktree's git directory
// (it has HEAD and a commondir file, and no config of its own need be).
func isWorktreeGitDir(dir string) bool { return worktreeRule(pathHas(dir)) }
