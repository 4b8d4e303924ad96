package tools

import (
	"crypto/sha256"
	"io"
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
