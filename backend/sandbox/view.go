package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/loupe-dev/loupe/backend/hands"
)

// This file plans what a confined command sees of the file system. The
// helper builds that view in its own mount namespace (view_linux.go): a new
// root holding only the system's read-only directories, the workspace, a
// private temp directory and home, the per-workspace cache, and whatever the
// user exposed. Inside the workspace, the paths the policy protects are
// read-only and the paths it denies are hidden, enforced by the kernel (read-only
// bind mounts), so they hold whatever command the classifier failed to see
// through.

// Access is what a command may do with one path of the workspace.
type Access int

const (
	// Writable is the default: read, write, rename, remove.
	Writable Access = iota
	// ReadOnly paths can be read but not changed, renamed or removed.
	ReadOnly
	// Hidden paths look empty to the command (an empty directory or an
	// empty file) and cannot be changed.
	Hidden
)

func (a Access) String() string {
	switch a {
	case ReadOnly:
		return "read-only"
	case Hidden:
		return "hidden"
	}
	return "writable"
}

// PathGuard says what a command may do with the workspace entry at rel
// (slash-separated, relative to the workspace). It is asked for every entry,
// parents before their children; what is under a ReadOnly or Hidden
// directory is not asked about. isDir is false for a symlink: a link is not
// followed, what it points to is judged where it is.
type PathGuard func(rel string, isDir bool) Access

// Bounds of the workspace scan. A workspace past them is still confined
// (nothing outside it is reachable) but a command in it is refused rather
// than run with some protected paths left writable.
const (
	maxScanEntries  = 2_000_000
	maxGuardedPaths = 4096
)

// ErrTooManyGuarded is returned (wrapped) when a workspace has more paths to
// protect than one command's view can hold.
var ErrTooManyGuarded = errors.New("too many protected paths")

// viewPlan is what the helper mounts over the workspace, in order: Pins
// (directories bound onto themselves, so that a command cannot rename or
// remove the directories that hold a protected path and put a writable copy
// in their place), then ReadOnly and Hidden paths. All paths are absolute,
// with the workspace's symlinks resolved.
type viewPlan struct {
	Pins     []string `json:"pins,omitempty"`
	ReadOnly []string `json:"read_only,omitempty"`
	Hidden   []string `json:"hidden,omitempty"`
	// Links are symlinks that stay as they are (a mount over the link
	// itself): the ones on the way to a file git reads as settings, which
	// a command could otherwise point elsewhere.
	Links []string `json:"links,omitempty"`
	// repos are the repositories found, by the path of their .git
	// folder or file, to tell afterwards which ones the command made.
	repos map[string]gitRepo
	// absent are paths that must stay hidden (Loupe's database
	// companions) and did not exist: one the command creates is removed.
	absent []string
	// unreadable are the folders Loupe's process could not list (by
	// absolute path): they are read-only to the command, since what it
	// would leave there could not be checked.
	unreadable map[string]bool
	// placeholders are what Loupe made to hold a path that was not there
	// (placeholder.go), removed once no command of the workspace runs.
	placeholders []placeholder
	// folders are the hooks folders the settings named for the working
	// trees there were (programsOf, by the path they lead to), held
	// read-only, or empty and read-only, for the command's time: one
	// the check after the round finds for a working tree and that is
	// not among them, the commands could have filled (newHooksFolders).
	folders map[string]bool
	// folder is the workspace folder the plan was made of (device and
	// inode of the folder opened): the check after the command checks
	// that folder or says it could not (the path may lead elsewhere by
	// then). Loupe's own, never sent to the helper.
	folder [2]uint64
}

// Len is how many mounts the plan makes.
func (p viewPlan) Len() int { return len(p.Pins) + len(p.ReadOnly) + len(p.Hidden) + len(p.Links) }

// planWorkspace walks the workspace ws (an absolute path with symlinks
// resolved) and asks guard about every entry. hide adds absolute paths that
// must be hidden wherever they are (Loupe's database and its companions);
// those inside ws join the plan.
func planWorkspace(ws string, guard PathGuard, hide []string) (plan viewPlan, err error) {
	add := func(abs string, a Access) {
		switch a {
		case ReadOnly:
			plan.ReadOnly = append(plan.ReadOnly, abs)
		case Hidden:
			plan.Hidden = append(plan.Hidden, abs)
		}
	}
	for _, h := range hide {
		if rel, ok := within(ws, h); ok && rel != "." {
			if _, err := os.Lstat(h); err == nil {
				add(h, Hidden)
			} else if strings.HasSuffix(h, "-journal") {
				// A rollback journal a command plants would be played
				// into the database when Loupe next opens it. (The -wal
				// and -shm exist while Loupe has the database open, and
				// Loupe itself may create them meanwhile.)
				plan.absent = append(plan.absent, h)
			}
		}
	}
	// What Loupe itself makes in the workspace before the command (an
	// empty hooks folder, an empty config.worktree) goes through a
	// handle on it: a parallel command may be swapping folders for links.
	root, err := hands.Open(ws, nil)
	if err != nil {
		return viewPlan{}, fmt.Errorf("sandbox: open the workspace: %w", err)
	}
	defer root.Close()
	if dev, ino, err := root.ID(); err == nil {
		plan.folder = [2]uint64{dev, ino}
	}
	// What is made here is released if the plan fails (the command does
	// not run), else by the caller after the command or the round.
	var held []placeholder
	defer func() {
		if err != nil {
			releasePlaceholders(ws, held)
		}
	}()
	plan.repos = map[string]gitRepo{}
	held = append(held, ensureHooksDir(root, ws, ws)...)
	noteRoot(plan.repos, ws)
	noteShared(plan.repos, ws)
	n := 0
	err = filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == ws {
				return err
			}
			// A folder Loupe's process cannot list: git may still go
			// through it (search permission without read), and the
			// check after the command could not see what it left
			// there, so the command may not change it (nor its
			// permissions).
			if fi, lerr := os.Lstat(p); lerr == nil && fi.IsDir() {
				if plan.unreadable == nil {
					plan.unreadable = map[string]bool{}
				}
				plan.unreadable[p] = true
				add(p, ReadOnly)
			}
			return nil
		}
		if p == ws {
			return nil
		}
		if n++; n > maxScanEntries {
			return fmt.Errorf("the workspace has more than %d files and folders to check", maxScanEntries)
		}
		if d.IsDir() {
			held = append(held, ensureHooksDir(root, ws, p)...)
		}
		noteRepo(plan.repos, ws, p, d)
		if d.Type()&fs.ModeSocket != 0 {
			// A server's socket in the workspace (a tmux or database
			// server the user runs there) would run whatever the
			// command asks outside the sandbox.
			add(p, Hidden)
			return nil
		}
		if guard == nil {
			return nil
		}
		rel := filepath.ToSlash(p[len(ws)+1:])
		a := guard(rel, d.IsDir())
		if a == Writable {
			return nil
		}
		add(p, a)
		if d.IsDir() {
			return fs.SkipDir
		}
		return nil
	})
	if err != nil {
		return viewPlan{}, fmt.Errorf("sandbox: check the workspace for protected paths: %w", err)
	}
	var programLinks []string
	plan.folders = map[string]bool{}
	for _, r := range plan.repos {
		pp := programsOf(r, ws)
		for _, t := range pp.folders {
			plan.folders[t.path] = true
		}
		for _, t := range pp.away {
			plan.folders[t.given] = true
		}
	}
	if guard != nil {
		// The repositories the workspace is a folder of count as its
		// own wherever their settings name a path inside it
		// (reposAbove), as for the file tools (FactsOf); they are not
		// in plan.repos, which the check after the round may rename.
		above, _ := reposAbove(ws)
		for _, r := range append(slices.Collect(maps.Values(plan.repos)), above...) {
			pp := programsOf(r, ws)
			for _, p := range pp.paths {
				add(p, ReadOnly)
			}
			programLinks = append(programLinks, pp.links...)
			// A hooks folder the settings name that is not there yet:
			// made empty and read-only for the command's time, so that
			// it cannot make it and put a hook in it.
			for _, t := range pp.missing {
				ro, made, herr := holdPath(root, ws, t, true)
				held = append(held, made...)
				if herr != nil {
					err = herr
					return viewPlan{}, err
				}
				for _, p := range ro {
					add(p, ReadOnly)
				}
			}
		}
		// Git's own files, whatever the repository's layout (the guard
		// judges paths by name, .git/config; a bare repository, a
		// linked worktree's folder or the workspace itself has them
		// under other names).
		gro, made := gitReadOnly(root, ws, plan.repos)
		held = append(held, made...)
		for _, p := range gro {
			if p != ws {
				add(p, ReadOnly)
			}
		}
		// Files the settings of any of them include, existing or not.
		ro, links, made, ierr := includedReadOnly(root, ws, plan.repos)
		held = append(held, made...)
		if ierr != nil {
			err = ierr
			return viewPlan{}, err
		}
		for _, p := range ro {
			add(p, ReadOnly)
		}
		plan.Links = append(links, programLinks...)
	}
	plan.placeholders = held
	plan.ReadOnly, plan.Hidden = dedupe(plan.ReadOnly), dedupe(plan.Hidden)
	if err := noLinks(ws, plan.ReadOnly); err != nil {
		return viewPlan{}, err
	}
	// A hidden path wins over a read-only one, and nothing is mounted
	// under a hidden or read-only directory (the outer mount covers it).
	plan.ReadOnly = slices.DeleteFunc(plan.ReadOnly, func(p string) bool { return slices.Contains(plan.Hidden, p) })
	plan.ReadOnly = withoutCovered(plan.ReadOnly, append(plan.Hidden, plan.ReadOnly...))
	plan.Hidden = withoutCovered(plan.Hidden, plan.Hidden)
	plan.Links = withoutCovered(dedupe(plan.Links), append(plan.Hidden, plan.ReadOnly...))
	pins := map[string]bool{}
	for _, p := range append(append(append([]string{}, plan.ReadOnly...), plan.Hidden...), plan.Links...) {
		for d := filepath.Dir(p); d != ws && len(d) > len(ws); d = filepath.Dir(d) {
			pins[d] = true
		}
	}
	for d := range pins {
		plan.Pins = append(plan.Pins, d)
	}
	sortByDepth(plan.Pins)
	sortByDepth(plan.ReadOnly)
	sortByDepth(plan.Hidden)
	sortByDepth(plan.Links)
	plan.ReadOnly = withoutCovered(plan.ReadOnly, plan.ReadOnly)
	if plan.Len() > maxGuardedPaths {
		return viewPlan{}, fmt.Errorf("sandbox: %w: the workspace has %d paths to make read-only or hide, more than the %d one command can have; narrow the path rules",
			ErrTooManyGuarded, plan.Len(), maxGuardedPaths)
	}
	return plan, nil
}

// ErrLinkedProtected is returned (wrapped) when a path that must be
// read-only for commands is a symbolic link.
var ErrLinkedProtected = errors.New("a protected path is a symbolic link")

// noLinks refuses a plan in which a path to make read-only is a symbolic
// link (.git/config -> ../shared/gitconfig, .git/hooks -> ../scripts/hooks):
// a mount lands on what the link leads to, and the link itself stays in a
// writable folder, so a command could replace it with a file of its own
// that git would then read or run. The error says what to do instead.
func noLinks(ws string, readOnly []string) error {
	for _, p := range readOnly {
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		rel, _ := within(ws, p)
		to, _ := os.Readlink(p)
		hint := ""
		if filepath.Base(p) == "hooks" {
			hint = " (for hooks kept elsewhere, set core.hooksPath to that folder instead of linking to it)"
		}
		return fmt.Errorf("sandbox: %w: %s leads to %s, and a command could replace the link with a file of its own, which git or Loupe would then read; make %s the file or folder itself%s and run the command again",
			ErrLinkedProtected, filepath.ToSlash(rel), to, filepath.ToSlash(rel), hint)
	}
	return nil
}

// ensureHooksDir gives a repository without a hooks directory (a clone
// made without templates) an empty one, so that the guard can make it
// read-only: otherwise a command could create it and plant a hook. It is
// made inside the repository's folder as opened from the workspace's
// handle, never through a link.
func ensureHooksDir(root *hands.Root, ws, dir string) []placeholder {
	if !isGitDir(dir) {
		return nil
	}
	rel, ok := within(ws, dir)
	if !ok {
		return nil
	}
	d, err := root.OpenDir(filepath.ToSlash(rel))
	if err != nil {
		return nil
	}
	defer d.Close()
	if _, err := d.Lstat("hooks"); errors.Is(err, fs.ErrNotExist) {
		made, _ := holdDirs(root, path.Join(filepath.ToSlash(rel), "hooks"))
		return made
	}
	return nil
}

// within says whether p is dir or under it, and gives p relative to dir.
func within(dir, p string) (string, bool) {
	r, err := filepath.Rel(dir, p)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return "", false
	}
	return r, true
}

func dedupe(list []string) []string {
	seen := map[string]bool{}
	out := list[:0]
	for _, p := range list {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// withoutCovered drops the paths that lie under another path of covers.
func withoutCovered(list, covers []string) []string {
	out := []string{}
	for _, p := range list {
		covered := false
		for _, c := range covers {
			if c != p && strings.HasPrefix(p, c+string(filepath.Separator)) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, p)
		}
	}
	return out
}

// sortByDepth orders paths so that a directory comes before what is under
// it (mounts must be made parents first).
func sortByDepth(list []string) {
	sort.Slice(list, func(i, j int) bool {
		di, dj := strings.Count(list[i], string(filepath.Separator)), strings.Count(list[j], string(filepath.Separator))
		if di != dj {
			return di < dj
		}
		return list[i] < list[j]
	})
}
