package tools

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/loupe-dev/loupe/backend/hands"
)

// ErrOutsideWorkspace is matched (errors.Is) by every error that refuses a
// path because it leads out of the workspace.
var ErrOutsideWorkspace = errors.New("outside the workspace")

// Workspace is the directory the agent works in. Every file operation goes
// through an os.Root opened on it, so `..`, absolute paths and symlinks
// cannot reach outside, whatever the model sends.
type Workspace struct {
	// writeMu serialises write_file and edit_file: the agent runs parallel
	// calls concurrently, and two edits of one file must not read the same
	// old content and lose one of the changes.
	writeMu sync.Mutex
	root    *os.Root
	dir     string // absolute, as given
	real    string // dir with symlinks resolved, to recognise absolute paths
	seen    *Seen  // what the model last saw of each file (nil: not tracked)
}

// OpenWorkspace opens dir as a workspace. Close it when done.
func OpenWorkspace(dir string) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", dir, err)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", dir, err)
	}
	return &Workspace{root: root, dir: abs, real: real}, nil
}

// Dir is the workspace's absolute path.
func (w *Workspace) Dir() string { return w.dir }

// Is says whether the folder the workspace holds open is the one fi
// describes (an os.Stat of it).
func (w *Workspace) Is(fi os.FileInfo) bool {
	st, err := w.root.Stat(".")
	return err == nil && os.SameFile(st, fi)
}

// Close releases the workspace's directory handle.
func (w *Workspace) Close() error { return w.root.Close() }

// outsideError says which path was refused and why, in words the model can
// act on.
type outsideError struct {
	path string
	via  string // "" or why, e.g. "through a symlink"
}

func (e *outsideError) Error() string {
	if e.via != "" {
		return fmt.Sprintf("path %q is outside the workspace (%s)", e.path, e.via)
	}
	return fmt.Sprintf("path %q is outside the workspace", e.path)
}

func (e *outsideError) Is(target error) bool { return target == ErrOutsideWorkspace }

// rel turns a path from the model into a clean slash-separated path
// relative to the workspace ("." for the workspace itself). Absolute paths
// are accepted when they are inside the workspace. This is a lexical check
// that gives a clear message early; os.Root enforces it, symlinks
// included, on every operation.
func (w *Workspace) rel(p string) (string, error) {
	if p == "" {
		return "", errors.New("path is empty")
	}
	// What the policy judged of the path (by the workspace's path: its
	// repositories, their hooks folders) is of the folder held open: a
	// workspace path swapped for a link mid-run would have the judgement
	// made of one folder and the write done in another.
	if fi, err := os.Stat(w.dir); err != nil || !w.Is(fi) {
		return "", fmt.Errorf("the workspace %s is no longer the folder this run works in (it was replaced, or made a link, since the run began); the file tools stop here: look at what is there, then send your message again", w.dir)
	}
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("path %q contains a NUL byte", p)
	}
	native := filepath.FromSlash(p)
	if filepath.IsAbs(native) {
		clean := filepath.Clean(native)
		for _, base := range []string{w.dir, w.real} {
			r, err := filepath.Rel(base, clean)
			if err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				return filepath.ToSlash(r), nil
			}
		}
		return "", &outsideError{path: p}
	}
	clean := path.Clean(filepath.ToSlash(native))
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", &outsideError{path: p}
	}
	return clean, nil
}

// native converts a clean relative path for use with os.Root.
func native(rel string) string { return filepath.FromSlash(rel) }

// explain rewrites an error from an os.Root operation on the model's path
// p into a message the model can act on.
func explain(p string, err error) error {
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		// os.Root reports escapes with an unexported error whose text is
		// stable; match it by text.
		if pe.Err.Error() == "path escapes from parent" {
			return &outsideError{path: p, via: "a symlink leads out of it"}
		}
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return &notExistError{p}
		case errors.Is(err, fs.ErrPermission):
			return fmt.Errorf("permission denied: %s", p)
		}
		return fmt.Errorf("%s: %w", p, pe.Err)
	}
	return err
}

// notExistError says that p does not exist; it matches fs.ErrNotExist.
type notExistError struct{ path string }

func (e *notExistError) Error() string        { return e.path + " does not exist" }
func (e *notExistError) Is(target error) bool { return target == fs.ErrNotExist }

func mustBeRegular(p string, fi fs.FileInfo) error {
	switch {
	case fi.IsDir():
		return fmt.Errorf("%s is a directory; use list_dir to see what it contains", p)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file (%s)", p, fi.Mode().Type())
	}
	return nil
}

// maxEditBytes bounds the files write_file and edit_file load to diff or
// edit.
const maxEditBytes = 16 << 20

// The functions below open a path that Resolve returned, and check what
// they opened: every directory on the way, and the file at the end, must
// be the entry that is at that name now and not a symlink (lstat the
// name, open it, compare the opened file with what lstat saw). A path
// changed in between, by a parallel command say, is refused rather than
// followed: following it is how a check made on one file ends up
// approving a write to another.

// openDir opens the directory rel (resolved: no symlinks) as a Root of its
// own, one component at a time.
func (w *Workspace) openDir(p, rel, op string) (*os.Root, error) {
	d, m, err := w.walkDir(p, rel, false, op)
	if m != nil {
		m.close()
	}
	return d, err
}

// walkDir opens the directory rel as openDir does; with create, it makes
// the directories that are missing and returns them, for undo.
func (w *Workspace) walkDir(p, rel string, create bool, op string) (*os.Root, *madeDirs, error) {
	cur, err := w.root.OpenRoot(".")
	if err != nil {
		return nil, nil, explain(p, err)
	}
	m := &madeDirs{}
	for _, c := range splitRel(rel) {
		if c == "" || c == "." {
			continue
		}
		next, made, err := openStep(p, cur, c, create, op)
		if made != nil {
			m.parents = append(m.parents, cur) // kept open to undo
			m.names = append(m.names, c)
			m.infos = append(m.infos, made)
		} else {
			cur.Close()
		}
		if err != nil {
			m.undo()
			m.close()
			return nil, nil, err
		}
		cur = next
	}
	return cur, m, nil
}

// madeDirs are the directories a write made on the way to its file, each
// with the open directory it was made in.
type madeDirs struct {
	parents []*os.Root
	names   []string
	infos   []fs.FileInfo
}

func (m *madeDirs) close() {
	for _, r := range m.parents {
		r.Close()
	}
	m.parents = nil
}

// undo removes the directories made, innermost first, as long as each is
// still the (empty) directory that was made.
func (m *madeDirs) undo() {
	for i := len(m.parents) - 1; i >= 0; i-- {
		fi, err := m.parents[i].Lstat(m.names[i])
		if err != nil || !fi.IsDir() || !os.SameFile(fi, m.infos[i]) || m.parents[i].Remove(m.names[i]) != nil {
			return
		}
	}
}

// openStep opens the directory name in d, checking that it is the
// directory that was there before it was opened. made is set when it
// created the directory.
func openStep(p string, d *os.Root, name string, create bool, op string) (next *os.Root, made fs.FileInfo, err error) {
	fi, err := d.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) && create {
		err = d.Mkdir(name, 0o755)
		if err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, nil, explain(p, err)
		}
		created := err == nil
		fi, err = d.Lstat(name)
		if created && err == nil && fi.IsDir() {
			made = fi
		}
	}
	if err != nil {
		return nil, made, explain(p, err)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, made, &changedError{path: p, op: op}
	case !fi.IsDir():
		return nil, made, fmt.Errorf("%s: %s is not a directory", p, name)
	}
	next, err = d.OpenRoot(name)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return nil, made, explain(p, err)
		}
		return nil, made, &changedError{path: p, op: op}
	}
	st, err := next.Stat(".")
	if err != nil || !os.SameFile(fi, st) {
		next.Close()
		return nil, made, &changedError{path: p, op: op}
	}
	return next, made, nil
}

// openResolved opens the regular file rel (resolved) for reading. exists
// is false, without an error, when there is nothing at rel. A FIFO or
// device is refused before it is opened, and the open does not block.
func (w *Workspace) openResolved(p, rel string) (f *os.File, fi fs.FileInfo, exists bool, err error) {
	d, err := w.openDir(p, path.Dir(rel), "read")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, false, nil
	}
	if err != nil {
		return nil, nil, false, err
	}
	defer d.Close()
	base := path.Base(rel)
	fi, err = d.Lstat(base)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, false, nil
	}
	if err != nil {
		return nil, nil, false, explain(p, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, nil, false, &changedError{path: p, op: "read"}
	}
	if err := mustBeRegular(p, fi); err != nil {
		return nil, nil, false, err
	}
	f, err = d.OpenFile(base, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return nil, nil, false, explain(p, err)
		}
		return nil, nil, false, &changedError{path: p, op: "read"}
	}
	st, err := f.Stat()
	if err != nil || !os.SameFile(fi, st) || !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, false, &changedError{path: p, op: "read"}
	}
	return f, st, true, nil
}

// current reads the file at rel (resolved) as it is before a write: its
// content and mode, or existed=false.
func (w *Workspace) current(p, rel string) (content string, mode fs.FileMode, existed bool, err error) {
	f, fi, exists, err := w.openResolved(p, rel)
	if err != nil || !exists {
		return "", 0o644, false, err
	}
	defer f.Close()
	if fi.Size() > maxEditBytes {
		return "", 0, false, fmt.Errorf("%s is too large to edit (%d bytes; the limit is %d)", p, fi.Size(), maxEditBytes)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxEditBytes+1))
	if err == nil && len(b) > maxEditBytes {
		err = fmt.Errorf("%s grew past the %d-byte limit while being read", p, maxEditBytes)
	}
	if err != nil {
		return "", 0, false, explain(p, err)
	}
	return string(b), fi.Mode().Perm(), true, nil
}

// writeAtomic replaces the entry rel (resolved) with a regular file
// holding data: it writes a temporary file in rel's directory and renames
// it over rel, so a reader sees the old file or the new one, never a
// partial write. Missing parent directories are created.
//
// The directory is opened first (walkDir checks every component), then
// the guard, if any, checks rel; the temporary file and the rename both
// happen in that open directory, so swapping a directory on the way for a
// symlink cannot redirect them. A symlink that appears at rel itself is
// replaced, not followed. Where the kernel can say where an open
// directory is now (Linux), that is checked again after the rename; if
// the directory was moved meanwhile, the old entry is put back. On every
// refusal or failure the temporary file, and the directories made for
// the file, are removed.
func (w *Workspace) writeAtomic(p, rel string, data []byte, perm fs.FileMode, g Guard) error {
	dir, base := path.Dir(rel), path.Base(rel)
	if base == "." || base == "/" {
		return fmt.Errorf("%s is the workspace directory, not a file", p)
	}
	d, made, err := w.walkDir(p, dir, true, "written")
	if err != nil {
		return err
	}
	defer d.Close()
	// Whatever happens below may have changed the workspace (a folder
	// made, a file renamed into place): what was worked out from its files
	// (the git layout the policy keeps, sandbox.FactsOf) is stale after.
	defer hands.Changed()
	written := false
	defer func() {
		if !written {
			made.undo()
		}
		made.close()
	}()
	if err := w.checkDirAt(p, d, dir); err != nil {
		return err
	}
	if g != nil {
		if err := g.Check(rel); err != nil {
			return err
		}
	}
	tmp := fmt.Sprintf(".%s.loupe-%d.tmp", base, rand.Uint64())
	f, err := d.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrNotExist) {
		return &changedError{path: p, op: "written"} // the directory was removed
	}
	if err != nil {
		return explain(p, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = d.Remove(tmp)
		return explain(p, err)
	}
	// Keep the old entry under another name until the directory is known
	// to be where it was, so that it can be put back.
	backup := ""
	if _, ok := dirPath(d); ok {
		bak := fmt.Sprintf(".%s.loupe-%d.old", base, rand.Uint64())
		if d.Link(base, bak) == nil {
			backup = bak
		}
	}
	if err := d.Rename(tmp, base); err != nil {
		_ = d.Remove(tmp)
		if backup != "" {
			_ = d.Remove(backup)
		}
		if fi, serr := d.Lstat(base); serr == nil && fi.IsDir() {
			return fmt.Errorf("%s is a directory; use list_dir to see what it contains", p)
		}
		if errors.Is(err, fs.ErrNotExist) {
			return &changedError{path: p, op: "written"} // the directory was removed
		}
		return explain(p, err)
	}
	if err := w.checkDirAt(p, d, dir); err != nil {
		if backup != "" {
			if rerr := d.Rename(backup, base); rerr != nil {
				// The earlier content is not lost: say where it is.
				return fmt.Errorf("%w; putting %s back failed too (%v): its earlier content is in %s beside it", err, p, rerr, backup)
			}
		} else {
			_ = d.Remove(base) // what was written where nothing was: best effort
		}
		return err
	}
	if backup != "" {
		_ = d.Remove(backup)
	}
	written = true
	return nil
}

// checkDirAt checks, where the kernel can say it, that the open directory
// d is still the workspace's directory dir.
func (w *Workspace) checkDirAt(p string, d *os.Root, dir string) error {
	where, ok := dirPath(d)
	if !ok {
		return nil
	}
	top, ok := dirPath(w.root)
	if !ok {
		return nil
	}
	r, err := filepath.Rel(top, where)
	if err != nil || filepath.ToSlash(r) != dir {
		return &changedError{path: p, op: "written"}
	}
	return nil
}
