//go:build unix && !linux

package hands

import (
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// noOpenat2: only Linux has openat2; elsewhere every path is walked.
var noOpenat2 atomic.Bool

func openat2Dir(int, string) (int, error, bool) { return -1, nil, false }

// renameNoReplace: without renameat2, the new name is looked at first,
// and a name taken between the look and the rename is replaced.
func renameNoReplace(olddfd int, oldName string, newdfd int, newName string) error {
	var st unix.Stat_t
	if unix.Fstatat(newdfd, newName, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		return unix.EEXIST
	}
	return unix.Renameat(olddfd, oldName, newdfd, newName)
}
