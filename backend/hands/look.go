//go:build unix

package hands

import (
	"errors"
	"io/fs"
	"path"
	"strings"

	"golang.org/x/sys/unix"
)

// guard refuses a change to the protected path rel, an entry of d, judged
// from d itself: what the judgement asks of d's own entries (a HEAD beside
// the file) is looked up in the folder held open, the one the change is
// then made in.
func (d *Dir) guard(rel string) error { return d.root.guardAt(heldLook{d}, rel) }

// heldLook answers a protected-path judgement from the held folder d for
// the paths in it, and from the root for the others; no link is followed.
type heldLook struct{ d *Dir }

func (l heldLook) Lstat(rel string) (fs.FileInfo, error) {
	c, _, err := clean(rel)
	if err != nil {
		return nil, err
	}
	var sub string
	switch {
	case c == l.d.rel:
		return l.d.Stat()
	case l.d.rel == ".":
		sub = c
	case strings.HasPrefix(c, l.d.rel+"/"):
		sub = strings.TrimPrefix(c, l.d.rel+"/")
	default:
		return l.d.root.Lstat(c)
	}
	dir, name := path.Split(sub)
	fd := l.d.fd
	if dir != "" {
		if fd, err = openBelow(l.d.fd, path.Clean(dir)); err != nil {
			return nil, &fs.PathError{Op: "lstat", Path: c, Err: err}
		}
		defer unix.Close(fd)
	}
	var st unix.Stat_t
	if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: c, Err: err}
	}
	return newInfo(name, &st), nil
}

// openBelow opens the folder rel below the folder dfd, following no link
// (openat2 where the kernel has it, one component at a time otherwise).
func openBelow(dfd int, rel string) (int, error) {
	if fd, err, ok := openat2Dir(dfd, rel); ok {
		return fd, err
	}
	cur, err := unix.Openat(dfd, ".", dirFlags, 0)
	if err != nil {
		return -1, err
	}
	for _, name := range strings.Split(rel, "/") {
		if name == "" || name == "." || name == ".." {
			unix.Close(cur)
			return -1, errors.New("hands: not a path below the folder")
		}
		next, err := unix.Openat(cur, name, dirFlags, 0)
		unix.Close(cur)
		if err != nil {
			return -1, err
		}
		cur = next
	}
	return cur, nil
}
