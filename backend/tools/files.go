package tools

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"

	"github.com/loupe-dev/loupe/backend/trace"
)

// Seen remembers, per file, the content the model last saw (by read_file)
// or wrote (by write_file or edit_file), as a hash. edit_file uses it to
// refuse editing a file that changed on disk since: the model's old_string
// would be matched against text it has not seen. One Seen lives as long
// as the session, across runs.
type Seen struct {
	mu     sync.Mutex
	hashes map[string][32]byte
}

// NewSeen returns an empty tracker.
func NewSeen() *Seen { return &Seen{hashes: map[string][32]byte{}} }

func (s *Seen) remember(rel string, content []byte) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.hashes[rel] = sha256.Sum256(content)
	s.mu.Unlock()
}

// changedSince reports whether content differs from what was last seen of
// rel; a file never seen has not "changed since".
func (s *Seen) changedSince(rel string, content []byte) bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	h, ok := s.hashes[rel]
	s.mu.Unlock()
	return ok && h != sha256.Sum256(content)
}

// Track makes the workspace's tools use s.
func (w *Workspace) Track(s *Seen) { w.seen = s }

// rememberOpen hashes the whole of the open file f, found at rel, as the
// model has now seen it.
func (w *Workspace) rememberOpen(rel string, f *os.File) {
	if w.seen == nil {
		return
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	w.seen.mu.Lock()
	w.seen.hashes[rel] = sum
	w.seen.mu.Unlock()
}

// fileChange is the record of a change for undo.
func (c change) fileChange() trace.FileChange {
	fc := trace.FileChange{Path: c.rel, After: &c.new}
	if c.existed {
		old := c.old
		fc.Before = &old
	}
	return fc
}

// ReadFile reads a regular file of the workspace (through symlinks);
// exists is false when there is none.
func (w *Workspace) ReadFile(p string) (content []byte, exists bool, err error) {
	r, err := w.Resolve(p)
	if err != nil || !r.Exists {
		return nil, false, err
	}
	s, _, existed, err := w.current(p, r.Real)
	if err != nil || !existed {
		return nil, false, err
	}
	return []byte(s), true, nil
}

// WriteFile replaces (or creates) a file of the workspace atomically,
// keeping an existing file's mode. A symlink is written through, as
// write_file does.
func (w *Workspace) WriteFile(p string, data []byte) error {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	r, err := w.Resolve(p)
	if err != nil {
		return err
	}
	_, mode, _, err := w.current(p, r.Real)
	if err != nil {
		return err
	}
	if err := w.writeAtomic(p, r.Real, data, mode, nil); err != nil {
		return err
	}
	w.seen.remember(r.Real, data)
	return nil
}

// RemoveFile removes a regular file of the workspace; a missing file is
// not an error.
func (w *Workspace) RemoveFile(p string) error {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	rel, err := w.rel(p)
	if err != nil {
		return err
	}
	fi, err := w.root.Lstat(native(rel))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return explain(p, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file; not removed", p)
	}
	return explain(p, w.root.Remove(native(rel)))
}
