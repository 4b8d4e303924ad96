package session

import (
	"errors"
	"fmt"
	"github.com/loupe-dev/loupe/backend/place"
	"io/fs"
	"path"
	"path/filepath"
	"sort"

	"github.com/loupe-dev/loupe/backend/hands"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/backend/workspace"
)

// The files of a fork. Every read and write goes through backend/hands:
// the parent's folder is read without following a link, and the copy is
// made inside a folder held open, so a link a command left in the
// workspace copies as a link and steers nothing.

// snap is one change a tool result (or a restore) recorded of a file.
type snap struct {
	seq           int64
	before, after *string
}

// filePlan is what the snapshots say of each file the tools touched,
// against a fork point.
type filePlan struct {
	at       int64
	files    map[string][]snap
	commands []int64
}

// planFiles reads the snapshots of the whole log: every change each
// tool_result and restore recorded, and the commands that ran after at.
func planFiles(evs []trace.Event, at int64) filePlan {
	p := filePlan{at: at, files: map[string][]snap{}, commands: []int64{}}
	for _, e := range evs {
		var changes []trace.FileChange
		switch e.Kind {
		case trace.KindToolResult:
			r, err := trace.Decode[trace.ToolResult](e)
			if err != nil {
				continue
			}
			changes = r.Changes
			if r.Name == "run_command" && e.Seq > at && r.ErrorKind != trace.ErrDenied && r.ErrorKind != trace.ErrInvalidArgs && r.ErrorKind != trace.ErrUnknownTool && r.ErrorKind != trace.ErrSkipped {
				p.commands = append(p.commands, e.Seq)
			}
		case trace.KindRestore:
			r, err := trace.Decode[trace.Restore](e)
			if err != nil {
				continue
			}
			changes = r.Changes
		}
		for _, c := range changes {
			p.files[c.Path] = append(p.files[c.Path], snap{seq: e.Seq, before: c.Before, after: c.After})
		}
	}
	return p
}

// changed lists the files changed after the fork point, by path.
func (p filePlan) changed() []string {
	out := []string{}
	for f, snaps := range p.files {
		if snaps[len(snaps)-1].seq > p.at {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}

func same(a, b *string) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// restore puts every file the snapshots can restore back as it was at the
// fork point, in a copy of the folder as it is now (root). A file is
// restored when its snapshots join up across the fork point: nothing but
// the tools changed it between the last change before the point and the
// first after (and, for one no tool changed after the point, nothing
// since). Otherwise what it held at the point is not known: it is named,
// with what the snapshots show, and left as it is now.
func (p filePlan) restore(root *hands.Root, res *ForkFiles) error {
	paths := make([]string, 0, len(p.files))
	for f := range p.files {
		paths = append(paths, f)
	}
	sort.Strings(paths)
	for _, f := range paths {
		snaps := p.files[f]
		var prev, next *snap
		for i := range snaps {
			if snaps[i].seq <= p.at {
				prev = &snaps[i]
			} else if next == nil {
				next = &snaps[i]
			}
		}
		last := snaps[len(snaps)-1]
		cur, exists, err := root.ReadFile(f, maxRestoreBytes)
		var now *string
		if err == nil && exists {
			s := string(cur)
			now = &s
		}
		switch {
		case next == nil && err != nil:
			res.NotRestored = append(res.NotRestored, FileNote{Path: f, Note: keptReason(err)})
			continue
		case next == nil:
			// No tool changed it after the point: it holds what the tools
			// left unless something else changed it since.
			if same(now, last.after) {
				continue
			}
			res.NotRestored = append(res.NotRestored, FileNote{Path: f, Note: fmt.Sprintf(
				"changed outside Loupe's file tools after event %d (by a command, or by hand): the snapshots do not say what it held at event %d; left as it is now", last.seq, p.at)})
			continue
		case prev != nil && !same(prev.after, next.before):
			res.NotRestored = append(res.NotRestored, FileNote{Path: f, Note: fmt.Sprintf(
				"changed outside Loupe's file tools between events %d and %d (by a command, or by hand): the snapshots do not say whether before or after event %d; left as it is now", prev.seq, next.seq, p.at)})
			continue
		}
		if err := putInCopy(root, f, next.before); err != nil {
			if isKept(err) {
				res.NotRestored = append(res.NotRestored, FileNote{Path: f, Note: keptReason(err)})
				continue
			}
			return fmt.Errorf("restoring %s in the copy: %w", f, err)
		}
		note := fmt.Sprintf("as it was at event %d", p.at)
		if next.before == nil {
			note = fmt.Sprintf("removed: it did not exist at event %d", p.at)
		}
		res.Restored = append(res.Restored, FileNote{Path: f, Note: note})
	}
	return nil
}

// putInCopy writes content at rel of the copy (nil: removes it). A link
// the copy holds at rel is the copy's own (made from the folder as it is
// now), so it is replaced; a link or a folder on the way is refused.
func putInCopy(root *hands.Root, rel string, content *string) error {
	d, name, err := root.OpenParent(rel)
	if errors.Is(err, fs.ErrNotExist) {
		if content == nil {
			return nil
		}
		name = path.Base(rel)
		d, err = root.MkdirAll(path.Dir(rel))
	}
	if err != nil {
		return err
	}
	defer d.Close()
	if fi, err := d.Lstat(name); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if err := d.Remove(name); err != nil {
			return err
		}
	}
	if content == nil {
		err := d.RemoveFile(name)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	return d.WriteFile(name, []byte(*content), 0o644)
}

// copyMargin is what a fork's copy leaves free on the disk it is made on:
// a copy that would take more than the free space less this is refused
// before anything is made.
var copyMargin int64 = 256 << 20

// maxCopyDepth bounds how deep the copy of a folder goes.
const maxCopyDepth = 256

// madeCopy is the folder a fork's copy is being made in.
type madeCopy struct {
	dir    string
	parent *hands.Root // the folder it was made in
	name   string
	root   *hands.Root // the copy itself
}

func (c *madeCopy) close() {
	c.root.Close()
	c.parent.Close()
}

// remove takes a copy that is not used back: it was made by the fork, and
// holds nothing else.
func (c *madeCopy) remove() {
	_ = c.parent.RemoveAll(c.name)
	c.close()
}

// nextFree is the first default copy folder of workspace ws for a fork at
// at that does not exist yet, looked for inside the workspace's parent
// held open.
func nextFree(ws string, at int64) (string, error) {
	parent, err := hands.Open(filepath.Dir(ws), nil)
	if err != nil {
		return "", fmt.Errorf("%w: %v", errForkFolder, err)
	}
	defer parent.Close()
	top, err := parent.OpenDir(".")
	if err != nil {
		return "", fmt.Errorf("%w: %v", errForkFolder, err)
	}
	defer top.Close()
	for n := 1; n < 100; n++ {
		dir := defaultCopyName(ws, at, n)
		if _, err := top.Lstat(filepath.Base(dir)); errors.Is(err, fs.ErrNotExist) {
			return dir, nil
		}
	}
	return "", fmt.Errorf("%w: every name from %s on is taken", errForkFolder, defaultCopyName(ws, at, 1))
}

// copyWorkspace makes folder (or, "", the first free name next to the
// workspace) and copies the workspace, as it is now, into it: folders,
// files with their modes, links as links. What is neither (a pipe, a
// socket) or cannot be read is left out and named.
func copyWorkspace(src *hands.Root, ws, folder string, at int64, res *ForkFiles) (*madeCopy, error) {
	auto := folder == ""
	if auto {
		folder = defaultCopyName(ws, at, 1)
	}
	abs, err := filepath.Abs(folder)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errForkFolder, err)
	}
	if place.Holds(ws, abs) {
		return nil, fmt.Errorf("%w: %s is inside the workspace it would copy; choose a folder outside %s", errForkFolder, abs, ws)
	}
	if err := workspace.Refused(abs); err != nil {
		return nil, fmt.Errorf("%w: %w", errForkFolder, err)
	}
	// The folder the copy goes in is the user's choice (or the
	// workspace's own parent); the copy is made inside it, held open.
	parent, err := hands.Open(filepath.Dir(abs), nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %s cannot be opened: %v", errForkFolder, filepath.Dir(abs), err)
	}
	// Judged again as held: the path to it may lead elsewhere since (a
	// command of a session whose folder holds it swapped it for a link).
	if real, err := parent.Where(); err != nil || place.Holds(ws, filepath.Join(real, filepath.Base(abs))) || workspace.Refused(filepath.Join(real, filepath.Base(abs))) != nil {
		parent.Close()
		return nil, fmt.Errorf("%w: %s changed while Loupe opened it (it leads to %s now); choose a folder outside the workspace and Loupe's own folders", errForkFolder, filepath.Dir(abs), real)
	}
	top, err := parent.OpenDir(".")
	if err != nil {
		parent.Close()
		return nil, fmt.Errorf("%w: %v", errForkFolder, err)
	}
	defer top.Close()
	from, err := src.OpenDir(".")
	if err != nil {
		parent.Close()
		return nil, err
	}
	defer from.Close()
	// What the folder takes on the disk (holes are not counted, and the
	// copy keeps them), against what the disk of the copy has free:
	// measured before anything is made, and held to while it is copied.
	need, _, err := from.Usage(maxCopyDepth)
	if err != nil {
		parent.Close()
		return nil, fmt.Errorf("%w: %s cannot be measured: %v", errForkFolder, ws, err)
	}
	free, err := top.Free()
	if err != nil {
		parent.Close()
		return nil, fmt.Errorf("%w: %v", errForkFolder, err)
	}
	if need > free-copyMargin {
		parent.Close()
		return nil, fmt.Errorf("%w: a copy of %s takes %s, and the disk of %s has %s free (Loupe leaves %s of it free); nothing was made", errForkFolder, ws, sizeText(need), filepath.Dir(abs), sizeText(max(free, 0)), sizeText(copyMargin))
	}
	name := filepath.Base(abs)
	d, err := top.Mkdir(name, 0o755)
	for n := 2; auto && errors.Is(err, fs.ErrExist) && n < 100; n++ {
		// The names next to the workspace are tried in turn; each try
		// is the making of the folder, so none is taken twice.
		abs = defaultCopyName(ws, at, n)
		name = filepath.Base(abs)
		d, err = top.Mkdir(name, 0o755)
	}
	if errors.Is(err, fs.ErrExist) {
		parent.Close()
		return nil, fmt.Errorf("%w: %s exists already; choose a new folder for the copy", errForkFolder, abs)
	}
	if err != nil {
		parent.Close()
		return nil, fmt.Errorf("%w: %v", errForkFolder, err)
	}
	defer d.Close()
	// The folder is copied as it is (its .git too, entry by entry through
	// d); what the snapshots put back on top goes through root, under
	// the guard the tools and Undo have: a snapshot (an imported one, or
	// one of a folder a later command made a repository) never writes
	// git's own files, hooks or Loupe's settings in the copy.
	root, err := d.Root(abs, permission.Policy{Workspace: abs}.ProtectedCheck())
	if err != nil {
		parent.Close()
		return nil, err
	}
	made := &madeCopy{dir: abs, parent: parent, name: name, root: root}
	// A folder's entries cost a block or so more in a copy than they
	// may in the workspace: some room for them, never the whole disk.
	budget := min(need+need/8+copyMargin/4, free-copyMargin)
	if err := copyDir(from, d, 0, &budget, res); err != nil {
		made.remove()
		return nil, fmt.Errorf("copying %s to %s: %w (the copy was removed)", ws, abs, err)
	}
	return made, nil
}

// copyDir copies the entries of from into to. A read that fails leaves the
// entry out and names it; a write that fails stops the copy.
func copyDir(from, to *hands.Dir, depth int, budget *int64, res *ForkFiles) error {
	ents, err := from.ReadDir()
	if err != nil {
		res.NotCopied = append(res.NotCopied, FileNote{Path: from.Rel(), Note: "its list could not be read: " + err.Error()})
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name < ents[j].Name })
	for _, e := range ents {
		rel := path.Join(from.Rel(), e.Name)
		skip := func(why string) { res.NotCopied = append(res.NotCopied, FileNote{Path: rel, Note: why}) }
		if res.leftOut(rel) {
			continue
		}
		switch {
		case e.Type&fs.ModeDir != 0:
			if depth >= maxCopyDepth {
				skip(fmt.Sprintf("more than %d folders deep: not copied", maxCopyDepth))
				continue
			}
			sub, err := from.OpenDir(e.Name)
			if err != nil {
				skip("not copied: " + err.Error())
				continue
			}
			perm := fs.FileMode(0o755)
			if fi, err := sub.Stat(); err == nil {
				perm = fi.Mode().Perm() | 0o700
			}
			made, err := to.Mkdir(e.Name, perm)
			if err != nil {
				sub.Close()
				return err
			}
			err = copyDir(sub, made, depth+1, budget, res)
			sub.Close()
			made.Close()
			if err != nil {
				return err
			}
		case e.Type&fs.ModeSymlink != 0:
			target, err := from.Readlink(e.Name)
			if err != nil {
				skip("not copied: " + err.Error())
				continue
			}
			if err := to.Symlink(target, e.Name); err != nil {
				return err
			}
		case e.Type.IsRegular():
			n, err := from.CopyFile(e.Name, to, *budget)
			*budget -= n
			var fe *hands.FoundError
			switch {
			case errors.As(err, &fe), errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission):
				skip("not copied: " + err.Error())
			case err != nil:
				return err
			}
		default:
			skip(fmt.Sprintf("a %s, not a file or folder: not copied", kindName(e.Type)))
		}
	}
	return nil
}

// sizeText is a size as a person reads it.
func sizeText(n int64) string {
	const unit = 1 << 10
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	f, u := float64(n)/unit, "KiB"
	for _, next := range []string{"MiB", "GiB", "TiB"} {
		if f < unit {
			break
		}
		f, u = f/unit, next
	}
	return fmt.Sprintf("%.1f %s", f, u)
}

func kindName(t fs.FileMode) string {
	switch {
	case t&fs.ModeNamedPipe != 0:
		return "named pipe"
	case t&fs.ModeSocket != 0:
		return "socket"
	case t&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}
