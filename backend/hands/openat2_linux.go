package hands

import (
	"errors"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// noOpenat2 is set once openat2 is known to be missing (Linux before 5.6)
// or filtered (a seccomp profile answering ENOSYS or EPERM); tests set it
// to walk.
var noOpenat2 atomic.Bool

// openat2Dir opens the directory rel below dfd in one call that follows
// no link and cannot leave dfd. ok is false when openat2 cannot be used.
func openat2Dir(dfd int, rel string) (fd int, err error, ok bool) {
	if noOpenat2.Load() {
		return -1, nil, false
	}
	how := unix.OpenHow{
		Flags:   dirFlags,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	}
	for range 8 {
		fd, err = unix.Openat2(dfd, rel, &how)
		switch {
		case err == nil:
			return fd, nil, true
		case errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EPERM):
			noOpenat2.Store(true)
			return -1, nil, false
		case errors.Is(err, unix.EAGAIN), errors.Is(err, unix.EINTR):
			// A rename elsewhere raced the lookup; the kernel asks to
			// try again.
			continue
		}
		return -1, err, true
	}
	return -1, nil, false // the walk answers instead
}

// renameNoReplace renames without replacing what is at the new name.
func renameNoReplace(olddfd int, oldName string, newdfd int, newName string) error {
	return unix.Renameat2(olddfd, oldName, newdfd, newName, unix.RENAME_NOREPLACE)
}
