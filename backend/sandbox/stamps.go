package sandbox

import (
	"io/fs"
	"path/filepath"
	"strconv"
	"time"
)

// stamps are what a set of paths looked like (stampOf), to tell later
// whether any of them changed: a folder's times change when an entry is
// added, removed or renamed in it, a file's when it is written.
type stamps map[string]stamp

// add stamps each of paths that is not stamped yet.
func (s stamps) add(paths ...string) {
	for _, p := range paths {
		if _, ok := s[p]; !ok {
			s[p] = stampOf(p)
		}
	}
}

// addWay stamps a file or folder settings name and the way to it: where
// it leads and where it is spelt, the symbolic links on the way, the
// folders missing on the way, and every folder above those (a folder made
// or a link changed there changes where the path leads).
func (s stamps) addWay(t includeTarget) {
	for _, p := range append(append([]string{t.path, t.given, t.blocker}, t.links...), t.missingDirs...) {
		for ; p != "" && p != "/" && p != "."; p = filepath.Dir(p) {
			if _, ok := s[p]; ok {
				break // and so is everything above it
			}
			s[p] = stampOf(p)
		}
	}
}

// same says whether every stamped path looks as it did.
func (s stamps) same() bool {
	for p, was := range s {
		if stampOf(p) != was {
			return false
		}
	}
	return true
}

// racyWithin is how close to a walk a change time must be for a change in
// the same tick of the file system's clock to go unseen. Linux stamps
// times from a clock that moves in ticks of up to 10 ms (the kernel's
// jiffy); a file system that keeps whole seconds (FAT, older ext3, some
// network ones) shows no fraction at all, and gets racyCoarse.
const (
	racyWithin = 50 * time.Millisecond
	racyCoarse = 2 * time.Second
)

// racy says whether some stamp's change or modification time is so close
// to start (when the stamps were taken) that a change made in the same
// tick would leave it as it is.
func (s stamps) racy(start time.Time) bool {
	fine, coarse := start.Add(-racyWithin).UnixNano(), start.Add(-racyCoarse).UnixNano()
	for _, st := range s {
		for _, t := range []int64{st.mtime, st.ctime} {
			limit := fine
			if t%int64(time.Second) == 0 {
				limit = coarse
			}
			if t >= limit {
				return true
			}
		}
	}
	return false
}

// FolderID names the file fi describes by its device and inode: two
// spellings of one folder have one, a folder replaced by another of the
// same name a new one.
func FolderID(fi fs.FileInfo) string {
	dev, ino := fileID(fi)
	return strconv.FormatUint(dev, 10) + ":" + strconv.FormatUint(ino, 10)
}
