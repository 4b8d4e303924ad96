//go:build linux

package tools

import (
	"os"
	"strconv"
)

// dirPath says where the open directory d is now, as the kernel names it
// (/proc/self/fd), so that a directory moved after it was opened is
// noticed. ok is false when the kernel cannot say (no /proc).
func dirPath(d *os.Root) (string, bool) {
	f, err := d.Open(".")
	if err != nil {
		return "", false
	}
	defer f.Close()
	where, err := os.Readlink("/proc/self/fd/" + strconv.FormatUint(uint64(f.Fd()), 10))
	if err != nil || where == "" || where[0] != '/' {
		return "", false
	}
	return where, true
}
