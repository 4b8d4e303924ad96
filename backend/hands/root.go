//go:build unix

package hands

import (
	"errors"
	"io/fs"
	"path"
)

// The operations below take a path relative to the root: its directory is
// opened once (no link followed), and the last component is acted on by
// name inside that open directory.

// OpenParent opens the directory of rel and returns it with rel's last
// component.
func (r *Root) OpenParent(rel string) (*Dir, string, error) {
	c, parts, err := clean(rel)
	if err != nil {
		return nil, "", err
	}
	if len(parts) == 0 {
		return nil, "", errors.New("hands: the workspace itself has no parent here")
	}
	d, err := r.openDir(path.Dir(c), c)
	if err != nil {
		return nil, "", err
	}
	return d, parts[len(parts)-1], nil
}

// Lstat describes the entry at rel, a link as a link.
func (r *Root) Lstat(rel string) (fs.FileInfo, error) {
	d, name, err := r.OpenParent(rel)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Lstat(name)
}

// ReadFile reads the regular file rel, at most max bytes. exists is false,
// without an error, when there is nothing at rel or a directory on the
// way is missing. A link at rel or on the way, or a rel that is not a
// regular file, is a *FoundError.
func (r *Root) ReadFile(rel string, max int64) (data []byte, exists bool, err error) {
	d, name, err := r.OpenParent(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer d.Close()
	b, _, err := d.ReadFile(name, max)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return b, true, nil
}

// WriteFile replaces or creates the regular file rel (Dir.WriteFile),
// making missing directories on the way. Protected paths are refused
// before anything is made.
func (r *Root) WriteFile(rel string, data []byte) error {
	c, parts, err := clean(rel)
	if err != nil {
		return err
	}
	if len(parts) == 0 {
		return errors.New("hands: the workspace itself is not a file")
	}
	if err := r.guard(c); err != nil {
		return err
	}
	d, err := r.MkdirAll(path.Dir(c))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.WriteFile(parts[len(parts)-1], data, 0o644)
}

// RemoveFile removes the regular file rel. Missing (or a missing
// directory on the way) is not an error; a link is a *FoundError and
// stays, and so does what it points at.
func (r *Root) RemoveFile(rel string) error {
	d, name, err := r.OpenParent(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer d.Close()
	return d.RemoveFile(name)
}

// RemoveAll removes rel and everything under it (Dir.RemoveAll). Missing
// is not an error.
func (r *Root) RemoveAll(rel string) error {
	d, name, err := r.OpenParent(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer d.Close()
	return d.RemoveAll(name)
}

// Rename moves rel to newRel, each resolved once (Dir.Rename: nothing at
// newRel is replaced).
func (r *Root) Rename(rel, newRel string) error {
	from, name, err := r.OpenParent(rel)
	if err != nil {
		return err
	}
	defer from.Close()
	to, newName, err := r.OpenParent(newRel)
	if err != nil {
		return err
	}
	defer to.Close()
	return from.Rename(name, to, newName)
}
