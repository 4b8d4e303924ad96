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
			return fmt.Errorf("%s does not exist", p)
		case errors.Is(err, fs.ErrPermission):
			return fmt.Errorf("permission denied: %s", p)
		}
		return fmt.Errorf("%s: %w", p, pe.Err)
	}
	return err
}

// stat follows symlinks (within the workspace).
func (w *Workspace) stat(p, rel string) (fs.FileInfo, error) {
	fi, err := w.root.Stat(native(rel))
	return fi, explain(p, err)
}

// openRegular opens a file for reading and checks, on the open file, that
// it is a regular file. Opening does not block: a FIFO swapped in after
// any earlier check is refused here instead of hanging the read.
func (w *Workspace) openRegular(p, rel string) (*os.File, fs.FileInfo, error) {
	f, err := w.root.OpenFile(native(rel), os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, explain(p, err)
	}
	fi, err := f.Stat()
	if err == nil {
		err = mustBeRegular(p, fi)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// readRegular reads a whole regular file.
func (w *Workspace) readRegular(p, rel string) ([]byte, fs.FileInfo, error) {
	fi, err := w.stat(p, rel)
	if err != nil {
		return nil, nil, err
	}
	if err := mustBeRegular(p, fi); err != nil {
		return nil, nil, err
	}
	if fi.Size() > maxEditBytes {
		return nil, nil, fmt.Errorf("%s is too large to edit (%d bytes; the limit is %d)", p, fi.Size(), maxEditBytes)
	}
	f, fi, err := w.openRegular(p, rel)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxEditBytes+1))
	if err == nil && len(b) > maxEditBytes {
		err = fmt.Errorf("%s grew past the %d-byte limit while being read", p, maxEditBytes)
	}
	return b, fi, explain(p, err)
}

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

// resolveTarget follows a symlink at the end of rel (if any) so that
// writing "link" replaces the file the link points to, not the link
// itself. It returns the workspace-relative path to write. A link that
// leads out of the workspace is refused. A relative link target is joined
// to the link's directory lexically; where that directory is itself
// reached through a symlink this may name a different file than the
// kernel would, but never one outside the workspace: every operation on
// the result still goes through os.Root.
func (w *Workspace) resolveTarget(p, rel string) (string, error) {
	for range 40 {
		fi, err := w.root.Lstat(native(rel))
		if errors.Is(err, fs.ErrNotExist) {
			return rel, nil // a new file
		}
		if err != nil {
			return "", explain(p, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return rel, nil
		}
		target, err := w.root.Readlink(native(rel))
		if err != nil {
			return "", explain(p, err)
		}
		var next string
		if filepath.IsAbs(target) {
			next, err = w.rel(target)
		} else {
			next, err = w.rel(path.Join(path.Dir(rel), filepath.ToSlash(target)))
		}
		if err != nil {
			return "", &outsideError{path: p, via: "a symlink leads out of it"}
		}
		rel = next
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", p)
}

// current reads the file at rel (already resolved by resolveTarget) as it
// is before a write: its content and mode, or existed=false.
func (w *Workspace) current(p, rel string) (content string, mode fs.FileMode, existed bool, err error) {
	_, err = w.root.Lstat(native(rel))
	if errors.Is(err, fs.ErrNotExist) {
		return "", 0o644, false, nil
	}
	if err != nil {
		return "", 0, false, explain(p, err)
	}
	b, fi, err := w.readRegular(p, rel)
	if err != nil {
		return "", 0, false, err
	}
	return string(b), fi.Mode().Perm(), true, nil
}

// writeAtomic replaces the file at rel with data: it writes a temporary
// file in the same directory and renames it over the target, so a reader
// sees the old file or the new one, never a partial write. Missing parent
// directories are created (inside the workspace: os.Root refuses the rest).
func (w *Workspace) writeAtomic(p, rel string, data []byte, perm fs.FileMode) error {
	dir := path.Dir(rel)
	if dir != "." {
		if err := w.root.MkdirAll(native(dir), 0o755); err != nil {
			return explain(p, err)
		}
	}
	tmp := path.Join(dir, fmt.Sprintf(".%s.loupe-%d.tmp", path.Base(rel), rand.Uint64()))
	f, err := w.root.OpenFile(native(tmp), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
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
	if err == nil {
		err = w.root.Rename(native(tmp), native(rel))
	}
	if err != nil {
		_ = w.root.Remove(native(tmp))
		return explain(p, err)
	}
	return nil
}
