package sandbox

import (
	"errors"
	"github.com/loupe-dev/loupe/backend/place"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/loupe-dev/loupe/backend/hands"
)

// A path git would read or run from that is not there yet (a file some
// settings include, a hooks folder core.hooksPath names) cannot be made
// read-only by a mount: a mount needs something to cover. The view makes
// an empty file or folder there first, and the command sees it read-only,
// so it can neither make the path nor fill it. What Loupe made is its own
// and goes once no command that may see it runs any more (heldFor: nested
// workspaces too): it is never left in the user's tree, and the tools'
// listings do not show it meanwhile (IsPlaceholder).

// placeholder is one file or folder Loupe made to hold a path, known by
// its inode so that only what Loupe made is removed.
type placeholder struct {
	base     string // the folder held open (the workspace, or a git folder outside)
	rel      string // slash-separated, relative to base
	dev, ino uint64
	dir      bool
}

// holdDirs makes each folder of rel (under root) that is missing, one at a
// time inside the one above (no link followed), and returns those it
// made, parents first. An error says why the last could not be made.
// Each is noted as held (noteHold) under the lock every Loupe process
// takes, so that none sees one made and not noted yet.
func holdDirs(root *hands.Root, rel string) ([]placeholder, error) {
	notes, unlock, err := holdsLock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	var made []placeholder
	parts := strings.Split(rel, "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		if _, err := root.Lstat(p); err == nil {
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			return made, err
		}
		d, err := root.MkdirAll(p)
		if err != nil {
			return made, err
		}
		fi, err := d.Stat()
		d.Close()
		if err != nil {
			return made, err
		}
		h, err := newPlaceholder(notes, root.Dir(), p, fi, true)
		if err != nil {
			return made, err
		}
		made = append(made, h)
	}
	return made, nil
}

// holdFile makes rel (under root) an empty file unless something is there,
// inside its held parent folder, and returns it when it made it (noted as
// holdDirs notes a folder).
func holdFile(root *hands.Root, rel string) (placeholder, bool) {
	notes, unlock, err := holdsLock()
	if err != nil {
		return placeholder{}, false
	}
	defer unlock()
	d, name, err := root.OpenParent(rel)
	if err != nil {
		return placeholder{}, false
	}
	defer d.Close()
	if _, err := d.Lstat(name); !errors.Is(err, fs.ErrNotExist) {
		return placeholder{}, false
	}
	if d.WriteFile(name, nil, 0o644) != nil {
		return placeholder{}, false
	}
	fi, err := d.Lstat(name)
	if err != nil {
		return placeholder{}, false
	}
	p, err := newPlaceholder(notes, root.Dir(), rel, fi, false)
	return p, err == nil
}

// newPlaceholder notes what was just made at rel under base as held by
// this process (the caller holds the notes' lock); what cannot be noted
// is removed again: another process would take it for the workspace's.
func newPlaceholder(notes, base, rel string, fi fs.FileInfo, dir bool) (placeholder, error) {
	dev, ino := fileID(fi)
	p := placeholder{base: base, rel: rel, dev: dev, ino: ino, dir: dir}
	f, err := noteHold(notes, base, rel, dev, ino, dir)
	if err != nil {
		removePlaceholder(p)
		return placeholder{}, err
	}
	activity.Lock()
	defer activity.Unlock()
	if h := activity.live[[2]uint64{dev, ino}]; h != nil {
		h.refs++
		if f != nil {
			f.Close()
		}
	} else {
		activity.live[[2]uint64{dev, ino}] = &hold{f: f, refs: 1}
	}
	return p, nil
}

// IsPlaceholder says whether fi (from an lstat) is a file or folder the
// sandbox made to hold a path for a command and will remove: the tools'
// listings leave it out, as it is not the workspace's.
func IsPlaceholder(fi fs.FileInfo) bool {
	dev, ino := fileID(fi)
	if dev == 0 && ino == 0 {
		return false
	}
	activity.Lock()
	defer activity.Unlock()
	return activity.live[[2]uint64{dev, ino}] != nil
}

// HoldsPaths says whether any placeholder is there now: the listings
// need to look (an lstat per entry) only then.
func HoldsPaths() bool {
	activity.Lock()
	defer activity.Unlock()
	return len(activity.live) > 0
}

// releasePlaceholders hands back what a command (or a round's commands)
// made or took up for the workspace ws, and lets go of every placeholder
// handed back so far (by any workspace) that no running command of this
// process may see any more (heldFor): the rest waits for the release that
// follows the end of the last command that may. A placeholder let go is
// removed only when no other Loupe process holds it either (lastHold).
func releasePlaceholders(ws string, list []placeholder) {
	// The notes' lock first, then activity's (as holdDirs takes them).
	notes, unlock, lerr := holdsLock()
	if lerr == nil {
		defer unlock()
	}
	activity.Lock()
	defer activity.Unlock()
	for _, p := range list {
		activity.pending = append(activity.pending, pendingHold{ws: ws, p: p})
	}
	// Held under the lock: no command of this process starts (and finds
	// one of them there as if it were the workspace's) while they go.
	// Later ones first: a folder's children were made after it.
	var keep []pendingHold
	for i := len(activity.pending) - 1; i >= 0; i-- {
		h := activity.pending[i]
		if heldFor(h) || h.p.dir && holdsPendingUnder(h.p, keep) {
			keep = append(keep, h)
			continue
		}
		letGo(notes, lerr == nil, h.p)
	}
	slices.Reverse(keep)
	activity.pending = keep
}

// letGo drops one of this process's references to the placeholder p (the
// caller holds both locks); with the last, its hold, and p is removed when
// no other process holds it. Without the notes' lock (locked false) it is
// left, with its note, for the next command whose view covers it.
func letGo(notes string, locked bool, p placeholder) {
	k := [2]uint64{p.dev, p.ino}
	h := activity.live[k]
	if h != nil {
		if h.refs--; h.refs > 0 {
			return
		}
		delete(activity.live, k)
	}
	if !locked {
		if h != nil && h.f != nil {
			h.f.Close()
		}
		return
	}
	if h != nil && !lastHold(notes, h.f, p.dev, p.ino) {
		return // another process holds it: it removes it
	}
	if !removePlaceholder(p) && p.dir && holdsNotedUnder(notes, p) {
		return // a placeholder of another process is in it
	}
	forgetHold(notes, p.dev, p.ino)
}

// holdsNotedUnder says whether a placeholder some process noted lies in
// the folder p.
func holdsNotedUnder(notes string, p placeholder) bool {
	at := filepath.Join(p.base, filepath.FromSlash(p.rel))
	for _, n := range notedHolds(notes) {
		if r, ok := within(at, n.Path); ok && r != "." {
			return true
		}
	}
	return false
}

// pendingHold is a placeholder handed back by a command of the workspace
// ws and not removed yet.
type pendingHold struct {
	ws string
	p  placeholder
}

// heldFor says whether a running command may see the placeholder h as
// part of its view (the caller holds activity's lock): one whose
// workspace is h's, holds it or lies in it (nested workspaces share
// folders: the outer one's placeholder is a read-only mount in the inner
// one's command too, and the kernel takes that mount away when the
// placeholder goes), one whose workspace holds the placeholder (made in a
// git folder outside h's workspace), or one whose workspace is not known.
// Removed while such a command ran, the path it held would be free to it.
func heldFor(h pendingHold) bool {
	if activity.running[""] > 0 {
		return true
	}
	at := filepath.Join(h.p.base, filepath.FromSlash(h.p.rel))
	for w, n := range activity.running {
		if n <= 0 {
			continue
		}
		if overlaps(w, h.ws) {
			return true
		}
		if place.Holds(w, at) {
			return true
		}
	}
	return false
}

// overlaps says whether one of the folders a and b holds the other, by
// where they are (place.Holds): two sessions may name one folder through a
// link, or a bind mount, and a yes only makes one wait for the other.
func overlaps(a, b string) bool {
	return place.Holds(a, b) || place.Holds(b, a)
}

// holdsPendingUnder says whether a placeholder still waiting lies inside
// the placeholder folder p: p stays until it goes.
func holdsPendingUnder(p placeholder, waiting []pendingHold) bool {
	at := filepath.Join(p.base, filepath.FromSlash(p.rel))
	for _, h := range waiting {
		if r, ok := within(at, filepath.Join(h.p.base, filepath.FromSlash(h.p.rel))); ok && r != "." {
			return true
		}
	}
	return false
}

// removePlaceholder removes p if it is still what Loupe made: the same
// inode, and empty (a folder a command put something in, or a file it
// wrote, is no longer Loupe's to remove). It works inside the held parent
// folder, by name, never through a link. It says whether p is still there
// as Loupe made it (a folder that is not empty).
func removePlaceholder(p placeholder) (left bool) {
	root, err := hands.Open(p.base, nil)
	if err != nil {
		return false
	}
	defer root.Close()
	d, name, err := root.OpenParent(p.rel)
	if err != nil {
		return false
	}
	defer d.Close()
	fi, err := d.Lstat(name)
	if err != nil {
		return false
	}
	if dev, ino := fileID(fi); dev != p.dev || ino != p.ino || fi.IsDir() != p.dir {
		return false
	}
	if p.dir {
		// Removing a folder that is not empty fails: what is in it
		// stays, and so does the folder.
		return d.Remove(name) != nil
	}
	if fi.Mode().IsRegular() && fi.Size() == 0 {
		_ = d.RemoveFile(name)
	}
	return false
}

// relIn is p relative to base, slash-separated, when it lies under it.
func relIn(base, p string) (string, bool) {
	r, ok := within(base, p)
	if !ok || r == "." {
		return "", false
	}
	return path.Clean(strings.ReplaceAll(r, "\\", "/")), true
}
