//go:build unix

package sandbox

import (
	"io/fs"
	"syscall"

	"golang.org/x/sys/unix"
)

// stamp is what one path looks like, without following a link at its end;
// the zero stamp is a path that is not there.
type stamp struct {
	dev, ino     uint64
	mode         uint32
	size         int64
	mtime, ctime int64
}

func stampOf(p string) stamp {
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		return stamp{}
	}
	return stamp{dev: uint64(st.Dev), ino: uint64(st.Ino), mode: uint32(st.Mode), size: st.Size,
		mtime: unix.TimespecToNsec(st.Mtim), ctime: unix.TimespecToNsec(st.Ctim)}
}

// fileID is the device and inode of what fi describes (0, 0 when not
// known).
func fileID(fi fs.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*unix.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino)
	}
	return 0, 0
}
