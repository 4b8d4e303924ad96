package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/loupe-dev/loupe/backend/hands"
)

// This file is the check of what commands left in the workspace that git
// would run a program from (see gitrepos.go): it runs in Loupe's own,
// unconfined process, on a workspace commands have just written. So it
// goes through backend/hands: the workspace is held open, every folder is
// opened from the one above it without following a symbolic link, files
// are read from the folder that was opened (bounded, never a FIFO), and a
// rename is made by name inside that held folder. A folder a command
// swapped for a link (to somewhere outside, or to .git) is refused, not
// followed: nothing outside the workspace is read, renamed or moved in,
// and nothing is moved out of it. It never renames the workspace itself.

// disarmNewRepos undoes what commands did to the workspace's repositories
// that could make git run a program: a repository they made whose
// settings or hooks are not what git init writes is renamed so that git
// does not find it (the workspace itself, when it became one, keeps its
// name and has those files renamed instead); a settings file they added
// to an existing repository (config, commondir, config.worktree,
// info/attributes, gitdir) is renamed; a database companion they created
// is removed; a hooks folder the settings name for a working tree (one
// the commands made, say) that was not held during the round and has a
// hook is renamed (worktrees.go). before is what the workspace held when
// they started (by absolute path, as planWorkspace notes it), folders the
// hooks folders held then. It returns one sentence per change, for the
// model and the user.
func disarmNewRepos(ws string, folder [2]uint64, before map[string]gitRepo, absent []string, unreadable, folders map[string]bool) []string {
	return disarmLeftBy("", ws, folder, before, absent, unreadable, folders)
}

// disarmLeftBy is disarmNewRepos of what who left ("MCP server x"; "" for
// the commands).
func disarmLeftBy(who, ws string, folder [2]uint64, before map[string]gitRepo, absent []string, unreadable, folders map[string]bool) []string {
	c := &cleanup{ws: ws, who: who, before: before, unreadable: unreadable, folders: folders}
	root, err := hands.Open(ws, nil)
	if err != nil {
		return []string{fmt.Sprintf("Loupe could not open the workspace to check what %s left there (%v); do not run git there before you check it", c.all(), err)}
	}
	defer root.Close()
	// The folder they ran in, or none: a path swapped for a link since
	// would have the check walk, and rename in, a folder they never saw.
	if dev, ino, err := root.ID(); folder != ([2]uint64{}) && (err != nil || [2]uint64{dev, ino} != folder) {
		return []string{fmt.Sprintf("Loupe did not check what %s left in %s, because that path no longer leads to the folder they ran in (it was replaced, or made a link, meanwhile); before you run git in that folder or where the path leads now, look for .git folders and files you did not make (git would run the programs their settings name) and remove them", c.all(), ws)}
	}
	c.root = root
	c.settingsAdded()
	if top, err := root.OpenDir("."); err == nil {
		c.judge(nil, ".", top)
		c.walk(top, 0)
		top.Close()
		c.newHooksFolders()
	} else {
		c.say("Loupe could not read the workspace to check what %s left there (%v); do not run git there before you check it", c.all(), err)
	}
	c.walkShares()
	c.removeAbsent(absent)
	return c.notes
}

// walkShares looks through each git folder outside the workspace that
// commands could write (worktreeShares: a linked worktree's own git
// folder) as walk does the workspace: a whole repository a command made
// there is as much git's as one made in the workspace. A submodule's
// repository under modules/ (nested as modules/A/modules/B) is one git
// finds by name: the user's git submodule update uses it and runs its
// hooks. Each is judged like a new repository in the workspace.
func (c *cleanup) walkShares() {
	bases := map[string]bool{}
	for _, r := range c.before {
		if r.base != "" {
			bases[r.base] = true
		}
	}
	for _, b := range slices.Sorted(maps.Keys(bases)) {
		shared, err := hands.Open(b, nil)
		if err != nil {
			continue // gone: nothing for git to read
		}
		c.at = b
		if top, err := shared.OpenDir("."); err == nil {
			c.walk(top, 0)
			top.Close()
		} else {
			c.say("Loupe could not read %s to check what %s left there (%v); do not run git there before you check it", b, c.all(), err)
		}
		c.at = ""
		shared.Close()
	}
}

// maxWalkDepth bounds how deep the check descends (a command can nest
// folders far deeper than any project; each level holds a handle). A
// folder below it is disarmed, never passed over.
const maxWalkDepth = 256

type cleanup struct {
	ws     string
	who    string // what left it: "" for the commands (one, all)
	root   *hands.Root
	before map[string]gitRepo
	notes  []string
	// unreadable are the folders (absolute paths) Loupe could not list
	// before the round, which the view made read-only to the commands.
	unreadable map[string]bool
	// at is the folder the held folders being looked at are relative
	// to, when it is not the workspace (settingsAddedIn).
	at string
	// folders are the hooks folders held for the commands' time
	// (viewPlan.folders); trees the working trees the walk found, each
	// as its git directory and the .git entry git finds it by
	// (worktrees.go).
	folders map[string]bool
	trees   []gitRepo
}

// name is how the entry name of the held folder d is named to the model
// and the user.
func (c *cleanup) name(d *hands.Dir, name string) string {
	if c.at == "" {
		return path.Join(d.Rel(), name)
	}
	return c.shown(filepath.Join(c.at, filepath.FromSlash(d.Rel()), name))
}

// one and all name what left what is checked, in a sentence: one of the
// commands, or the commands.
func (c *cleanup) one() string {
	if c.who != "" {
		return c.who
	}
	return "a command"
}

func (c *cleanup) all() string {
	if c.who != "" {
		return c.who
	}
	return "the commands"
}

func (c *cleanup) say(format string, args ...any) {
	c.notes = append(c.notes, fmt.Sprintf(format, args...))
}

// abs is the absolute path of rel (relative to the folder the held
// folders are in: the workspace, or c.at), as the plan keys repositories.
func (c *cleanup) abs(rel string) string {
	base := c.ws
	if c.at != "" {
		base = c.at // a held folder outside (walkShares)
	}
	if rel == "." {
		return base
	}
	return filepath.Join(base, filepath.FromSlash(rel))
}

// settingsAdded renames the settings files of gitSettingFiles that a
// repository there before lacked and has now.
func (c *cleanup) settingsAdded() {
	for _, p := range slices.Sorted(maps.Keys(c.before)) {
		r := c.before[p]
		if r.pointer != "" {
			continue // its repository is noted on its own (noteRepo)
		}
		root, base := c.root, c.ws
		if r.base != "" {
			// A git folder of the workspace's repository outside it,
			// that commands could write (worktreeShares).
			shared, err := hands.Open(r.base, nil)
			if err != nil {
				continue // gone: nothing for git to read
			}
			root, base = shared, r.base
			c.at = base
		}
		c.settingsAddedIn(root, base, r)
		if root != c.root {
			root.Close()
			c.at = ""
		}
	}
}

// settingsAddedIn renames what settingsAdded looks for in the git
// directory r, reached from root (the folder base, held open).
func (c *cleanup) settingsAddedIn(root *hands.Root, base string, r gitRepo) {
	rel, ok := within(base, r.gitDir)
	if !ok {
		return
	}
	d, err := root.OpenDir(filepath.ToSlash(rel))
	if errors.Is(err, fs.ErrNotExist) {
		return // gone: nothing for git to read
	}
	if err != nil {
		// A folder on the way became a link: not followed.
		c.say("Loupe could not check the repository %s (%v); do not run git there before you check it", c.shown(r.gitDir), err)
		return
	}
	defer d.Close()
	c.disarmTodos(d, r.todos)
	for _, f := range gitSettingFiles {
		if r.present[f] {
			continue
		}
		if untouchedPlaceholder(d, f) {
			continue // Loupe's, held read-only, and removed after
		}
		why := "git reads " + f + " for settings or a pointer to them"
		if f == "hooks" {
			why = "git runs the programs in a repository's hooks folder"
		}
		c.disarmEntry(d, f, why)
	}
	if r.common == "" {
		return
	}
	// The commondir it had: the same text, but a link on its way may
	// now lead elsewhere.
	b, _, err := d.ReadFile("commondir", maxGitFile)
	if err != nil {
		return // gone or replaced: the loop above saw to a new one
	}
	if t, ok := pointerText("commondir", b); ok {
		if now, _ := pointerDir(r.gitDir, t); now == r.common {
			return
		}
	}
	c.rename(d, "commondir", "its commondir now leads to another folder than when the command started (a symbolic link on its way was changed)")
}

// untouchedPlaceholder says whether the entry name of the held folder d is
// a placeholder this process holds (IsPlaceholder) as Loupe made it: an
// empty folder, or an empty file.
func untouchedPlaceholder(d *hands.Dir, name string) bool {
	if strings.Contains(name, "/") {
		return false
	}
	fi, err := d.Lstat(name)
	if err != nil || !IsPlaceholder(fi) {
		return false
	}
	if !fi.IsDir() {
		return fi.Mode().IsRegular() && fi.Size() == 0
	}
	sub, err := d.OpenDir(name)
	if err != nil {
		return false
	}
	defer sub.Close()
	ents, err := sub.ReadDir()
	return err == nil && len(ents) == 0
}

// shown is how a path is named to the model and the user: relative to the
// workspace inside it, absolute outside.
func (c *cleanup) shown(p string) string {
	if rel, ok := within(c.ws, p); ok {
		return filepath.ToSlash(rel)
	}
	return p
}

// disarmEntry renames name (one component, or "info/attributes") of the
// held folder d, if there is anything there. A folder on the way that is
// now a symbolic link (rebase-merge moved into the working tree, a link
// left in its place: git follows it) is never followed: the link itself
// is renamed, in d, and git finds nothing there.
func (c *cleanup) disarmEntry(d *hands.Dir, name, why string) {
	if dir, file, ok := strings.Cut(name, "/"); ok {
		sub, err := d.OpenDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return
		}
		if fi, lerr := d.Lstat(dir); err != nil && lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			c.rename(d, dir, why+"; "+dir+" is a symbolic link: git follows it, Loupe does not")
			return
		}
		if err != nil {
			c.say("%s left %s, which could make git run a program (%s), and Loupe could not disarm it: %v; do not run git there before you check it", c.one(), c.name(d, name), why, err)
			return
		}
		defer sub.Close()
		c.disarmEntry(sub, file, why)
		return
	}
	if _, err := d.Lstat(name); err != nil {
		return
	}
	c.rename(d, name, why)
}

// rename moves the entry name of the held folder d aside, to
// NAME.loupe-disarmed (or -2, -3, …), in the same folder: git no longer
// finds it, and nothing leaves the folder.
func (c *cleanup) rename(d *hands.Dir, name, why string) {
	rel := c.name(d, name)
	var err error
	for i := 1; i <= 100; i++ {
		moved := name + ".loupe-disarmed"
		if i > 1 {
			moved = fmt.Sprintf("%s.loupe-disarmed-%d", name, i)
		}
		if err = d.Rename(name, d, moved); err == nil {
			c.say("%s left %s, which could make git run a program (%s); Loupe renamed it to %s so that git does not use it", c.one(), rel, why, c.name(d, moved))
			return
		}
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	c.say("%s left %s, which could make git run a program (%s), and Loupe could not disarm it: %v; do not run git there before you check it", c.one(), rel, why, err)
}

// walk looks at every folder under the held folder d (never through a
// link, and skipping none: a git directory's objects/ or refs/ can hold a
// repository that the index names as a submodule, and the user's git goes
// there), judging each git directory and .git file it finds. What it
// cannot judge, it disarms and says so: a folder deeper than maxWalkDepth,
// or one Loupe's process cannot open (a command took its read permission
// away; git needs only to pass through it), unless it was so before the
// round and so read-only to the commands (unreadable).
func (c *cleanup) walk(d *hands.Dir, depth int) {
	ents, err := d.ReadDir()
	if err != nil && len(ents) == 0 {
		c.say("Loupe could not list %s to check what %s left there (%v); do not run git there before you check it", c.name(d, ""), c.all(), err)
		return
	}
	for _, e := range ents {
		switch {
		case e.Type.IsDir():
			if depth >= maxWalkDepth {
				c.rename(d, e.Name, fmt.Sprintf("it lies deeper than the %d folders Loupe checks, so what is in it is unknown", maxWalkDepth))
				continue
			}
			sub, err := d.OpenDir(e.Name)
			if errors.Is(err, fs.ErrPermission) {
				if !c.unreadable[c.abs(path.Join(d.Rel(), e.Name))] {
					c.rename(d, e.Name, "Loupe cannot read it to check what is in it, and git can still go into it")
				}
				continue
			}
			if err != nil {
				continue // became a link or went away: not followed
			}
			if c.judge(d, e.Name, sub) {
				c.walk(sub, depth+1)
			}
			sub.Close()
		case e.Name == ".git":
			// A .git file, or anything else in its place (git reads a
			// symlink too).
			c.judgePointer(d)
		}
	}
}

// judge looks at the folder sub, held open, named name in the held folder
// parent (nil for the workspace itself): when it is a git directory the
// commands made, or one that is not the one that was there, and it would
// have git run something, it is disarmed. It says whether to look inside.
func (c *cleanup) judge(parent *hands.Dir, name string, sub *hands.Dir) bool {
	kind := gitDirKindAt(sub)
	if kind == "" {
		return true
	}
	p := c.abs(sub.Rel())
	if old, ok := c.before[p]; ok && old.pointer == "" && !old.named {
		c.noteTree(sub, kind)
		return true // there before: settingsAdded covered it
	}
	c.disarmTodos(sub, nil)
	why := c.dangerous(sub)
	switch {
	case why == "":
		c.noteTree(sub, kind)
	case parent == nil:
		c.noteTree(sub, kind)
		// The workspace itself became a repository: Loupe never renames
		// the workspace; it disarms the files that make git run
		// something instead.
		for _, f := range gitProtected {
			if f == "config" && !c.unusualConfig(sub, f) {
				continue
			}
			c.disarmEntry(sub, f, "the workspace itself is now a repository, and "+why)
		}
	default:
		c.rename(parent, name, why)
		return false
	}
	return true
}

// judgePointer judges the .git entry of the held folder d: a .git file
// the commands wrote (or changed) that names a repository Loupe cannot
// read in the workspace, or one that would run a program, is renamed.
func (c *cleanup) judgePointer(d *hands.Dir) {
	rel := path.Join(d.Rel(), ".git")
	b, _, err := d.ReadFile(".git", maxGitFile)
	target, plain := "", false
	if err == nil {
		if t, ok := pointerText(".git", b); ok {
			target, plain = pointerDir(c.abs(d.Rel()), t)
		}
	}
	if old, ok := c.before[c.abs(rel)]; ok && old.pointer != "" && err == nil && target != "" && target == old.gitDir {
		c.noteTreeOf(target, c.abs(rel))
		return // the same pointer as before
	}
	why := ""
	var g *hands.Dir
	switch {
	case err != nil || target == "":
		why = "its .git names no repository Loupe can read"
	case !plain:
		why = notPlain(".git file")
	default:
		t, inside := within(c.ws, target)
		if !inside {
			why = "its .git file points outside the workspace"
			break
		}
		if g, err = c.root.OpenDir(filepath.ToSlash(t)); err != nil {
			why = "its .git file names no repository Loupe can read"
		} else {
			why = c.dangerous(g)
			g.Close()
		}
	}
	if why != "" {
		c.rename(d, ".git", why)
		return
	}
	c.noteTreeOf(target, c.abs(rel))
}

// notPlain is why a pointer that does not name its folder as written
// (pointerDir) is disarmed: git init, clone and worktree never write one,
// and Loupe and git could take it for different folders.
func notPlain(what string) string {
	return "its " + what + " does not name its folder plainly (a blank or control character, or a symbolic link on the way)"
}

// gitDirKindAt says what the held folder d is to git: "repository" (HEAD,
// objects and refs; or a .git folder with HEAD and config, being made),
// "worktree" (a linked worktree's git folder: HEAD and commondir), or "".
func gitDirKindAt(d *hands.Dir) string {
	has := func(n string) bool { _, err := d.Lstat(n); return err == nil }
	if !has("HEAD") {
		return ""
	}
	switch {
	case has("objects") && has("refs"):
		return "repository"
	case has("commondir"):
		return "worktree"
	case path.Base(d.Rel()) == ".git" && has("config"):
		return "repository"
	}
	return ""
}

// dangerous says why the git directory g (held open) would have git run
// something or look elsewhere, or "" when it would not. What it reads, it
// reads from folders it opened inside the workspace.
func (c *cleanup) dangerous(g *hands.Dir) string {
	dirs := []*hands.Dir{g}
	// A worktree's git directory takes its settings from its common one.
	b, _, err := g.ReadFile("commondir", maxGitFile)
	switch {
	case err == nil:
		t, ok := pointerText("commondir", b)
		if !ok {
			break // git refuses an empty commondir
		}
		abs, plain := pointerDir(c.abs(g.Rel()), t)
		if !plain {
			return notPlain("commondir")
		}
		rel, inside := within(c.ws, abs)
		if !inside {
			return "its commondir points outside the workspace"
		}
		// A git directory that was one before is vetted (its settings
		// were read-only); a folder only named as one was not.
		if old, known := c.before[abs]; !known || old.named {
			common, err := c.root.OpenDir(filepath.ToSlash(rel))
			if err != nil {
				return "its commondir names a folder Loupe cannot read"
			}
			defer common.Close()
			dirs = append(dirs, common)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return "its commondir cannot be checked (" + err.Error() + ")"
	}
	for _, dir := range dirs {
		for _, f := range []string{"config", "config.worktree"} {
			b, _, err := dir.ReadFile(f, maxGitFile)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return "its settings cannot be checked (" + f + ": " + err.Error() + ")"
			}
			for _, kv := range parseGitConfig(b) {
				if why := unusual(kv); why != "" {
					return why
				}
			}
		}
		switch hooks, err := dir.OpenDir("hooks"); {
		case err == nil:
			ents, _ := hooks.ReadDir()
			hooks.Close()
			for _, e := range ents {
				if !strings.HasSuffix(e.Name, ".sample") {
					return "it has a hook, " + e.Name
				}
			}
		case !errors.Is(err, fs.ErrNotExist):
			return "its hooks are not a folder Loupe can read (" + err.Error() + ")"
		}
		if info, err := dir.OpenDir("info"); err == nil {
			_, aerr := info.Lstat("attributes")
			info.Close()
			if aerr == nil {
				return "it has info/attributes"
			}
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "its info folder is not one Loupe can read (" + err.Error() + ")"
		}
	}
	return ""
}

// unusualConfig says whether the config file f of the held folder d holds
// a setting that git init or clone does not write (or cannot be read
// whole).
func (c *cleanup) unusualConfig(d *hands.Dir, f string) bool {
	b, _, err := d.ReadFile(f, maxGitFile)
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err != nil {
		return true
	}
	for _, kv := range parseGitConfig(b) {
		if unusual(kv) != "" {
			return true
		}
	}
	return false
}

// removeAbsent removes what the commands created where Loupe's database
// companions must not be (a rollback journal SQLite would play into the
// database): the entry itself, a link too, never what it points at.
func (c *cleanup) removeAbsent(absent []string) {
	for _, p := range absent {
		rel, ok := within(c.ws, p)
		if !ok || rel == "." {
			continue
		}
		d, name, err := c.root.OpenParent(filepath.ToSlash(rel))
		if err != nil {
			continue
		}
		if _, err := d.Lstat(name); err == nil && d.Remove(name) == nil {
			c.say("%s created %s, beside Loupe's database; Loupe removed it", c.one(), filepath.ToSlash(rel))
		}
		d.Close()
	}
}
