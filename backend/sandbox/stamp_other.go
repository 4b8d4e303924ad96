//go:build !unix

package sandbox

import (
	"io/fs"
	"os"
)

// stamp is what one path looks like, without following a link at its end;
// the zero stamp is a path that is not there. Without inode numbers or a
// change time here, the modification time, size and mode are what tell.
type stamp struct {
	mode         uint32
	size         int64
	mtime, ctime int64
}

func stampOf(p string) stamp {
	fi, err := os.Lstat(p)
	if err != nil {
		return stamp{}
	}
	t := fi.ModTime().UnixNano()
	return stamp{mode: uint32(fi.Mode()), size: fi.Size(), mtime: t, ctime: t}
}

// fileID is not known here.
func fileID(fs.FileInfo) (dev, ino uint64) { return 0, 0 }
