//go:build unix

package hands

import (
	"errors"
	"io/fs"

	"golang.org/x/sys/unix"
)

// dirFlags open a directory, never through a link at the last
// component.
const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC

// openDirFd opens the directory rel below the root and returns its
// handle. Every component is resolved once without following a link:
// in one openat2 call where the kernel has it, one component at a time
// otherwise. With create, missing directories are made on the way
// (mkdirat inside the directory just opened).
func (r *Root) openDirFd(rel, forRel string, create bool) (int, error) {
	c, parts, err := clean(rel)
	if err != nil {
		return -1, err
	}
	if len(parts) == 0 {
		fd, err := unix.Openat(r.fd, ".", dirFlags, 0)
		if err != nil {
			return -1, &fs.PathError{Op: "open", Path: ".", Err: err}
		}
		return fd, nil
	}
	if fd, err, ok := openat2Dir(r.fd, c); ok {
		switch {
		case err == nil:
			return fd, nil
		case errors.Is(err, unix.ENOENT) && create:
			// Fall through to the walk, which makes what is missing.
		default:
			return -1, r.explain(c, forRel, err)
		}
	}
	return r.walk(forRel, parts, create)
}

// walk opens the directories of parts one at a time (for the operation
// on forRel), each with
// O_NOFOLLOW|O_DIRECTORY relative to the one before, so a link at any
// component fails the open instead of being followed.
func (r *Root) walk(forRel string, parts []string, create bool) (int, error) {
	cur, err := unix.Openat(r.fd, ".", dirFlags, 0)
	if err != nil {
		return -1, &fs.PathError{Op: "open", Path: ".", Err: err}
	}
	done := "."
	for _, name := range parts {
		next, err := unix.Openat(cur, name, dirFlags, 0)
		if errors.Is(err, unix.ENOENT) && create {
			if gerr := r.guard(join(done, name)); gerr != nil {
				unix.Close(cur)
				return -1, gerr
			}
			if merr := unix.Mkdirat(cur, name, 0o755); merr != nil && !errors.Is(merr, unix.EEXIST) {
				unix.Close(cur)
				return -1, &fs.PathError{Op: "mkdir", Path: join(done, name), Err: merr}
			}
			next, err = unix.Openat(cur, name, dirFlags, 0)
		}
		if err != nil {
			ferr := explainAt(cur, join(done, name), name, forRel, err)
			unix.Close(cur)
			return -1, ferr
		}
		unix.Close(cur)
		cur = next
		done = join(done, name)
	}
	return cur, nil
}

// explain turns a failed open of rel (for the operation on forRel) into
// an error that names what is in the way. It looks again, component by
// component without following anything, only to word the refusal: the
// operation itself has already failed.
func (r *Root) explain(rel, forRel string, err error) error {
	_, parts, cerr := clean(rel)
	if cerr != nil {
		return cerr
	}
	cur, oerr := unix.Openat(r.fd, ".", dirFlags, 0)
	if oerr != nil {
		return &fs.PathError{Op: "open", Path: rel, Err: err}
	}
	defer func() { unix.Close(cur) }()
	done := "."
	for _, name := range parts {
		var st unix.Stat_t
		if unix.Fstatat(cur, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			break
		}
		if uint32(st.Mode)&unix.S_IFMT != unix.S_IFDIR {
			return foundAt(cur, join(done, name), name, forRel, uint32(st.Mode))
		}
		next, oerr := unix.Openat(cur, name, dirFlags, 0)
		if oerr != nil {
			break
		}
		unix.Close(cur)
		cur = next
		done = join(done, name)
	}
	return &fs.PathError{Op: "open", Path: rel, Err: err}
}

// explainAt words the failure of an open of name in the directory dfd.
func explainAt(dfd int, rel, name, forRel string, err error) error {
	var st unix.Stat_t
	if serr := unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); serr == nil && uint32(st.Mode)&unix.S_IFMT != unix.S_IFDIR {
		return foundAt(dfd, rel, name, forRel, uint32(st.Mode))
	}
	return &fs.PathError{Op: "open", Path: rel, Err: err}
}

// foundAt is the FoundError for the entry name of dfd (at rel), of the
// given mode.
func foundAt(dfd int, rel, name, forRel string, mode uint32) *FoundError {
	e := &FoundError{Path: rel, For: forRel, Kind: kindOf(mode)}
	if e.Kind == kindLink {
		e.Target = readlinkat(dfd, name)
	}
	return e
}

func readlinkat(dfd int, name string) string {
	buf := make([]byte, 4096)
	n, err := unix.Readlinkat(dfd, name, buf)
	if err != nil {
		return "(unreadable)"
	}
	return string(buf[:n])
}
