// Package place says where a path is, judged by the file system rather
// than by how the path is spelled.
//
// Loupe refuses a workspace in ~/.ssh, a fork's copy inside the
// workspace, a PATH entry inside the workspace, a folder shown to
// commands that holds the home folder. Compared as strings, each of those
// is passed by a second spelling of the same folder: a link, a
// case-insensitive disk (~/.SSH is ~/.ssh there, on macOS by default and
// on Linux in a casefold folder or a FAT or NTFS disk), a bind mount. Every
// such question goes through Holds, so a new spelling is closed once for
// all of them.
//
// Case is left to the disk: where it folds case, ~/.SSH opens the folder
// ~/.ssh, and the identity of the two says so; where it does not, ~/library
// is a folder of its own and not ~/Library. Holds is for questions where a
// yes refuses or makes one wait (a workspace, a copy, a PATH entry, a
// command and an undo of overlapping folders): a path it cannot resolve
// is judged as spelled.
package place

import (
	"os"
	"path/filepath"
	"strings"
)

// Resolve gives the absolute path p with the links of its longest part
// that exists resolved, and the rest (what does not exist yet, as a
// fork's copy's folder) put back on it.
func Resolve(p string) string {
	p = filepath.Clean(p)
	rest := ""
	for dir := p; ; dir = filepath.Dir(dir) {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest)
		}
		if filepath.Dir(dir) == dir {
			return p
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// Same says whether a and b are one folder or file.
func Same(a, b string) bool {
	a, b = Resolve(a), Resolve(b)
	return a == b || sameFile(a, b)
}

// Holds says whether p is dir or lies under it: by the spelling of the
// resolved paths, or by the identity of dir and one of p's ancestors that
// exists (a bind mount; on a disk that folds case or normalises Unicode,
// a name spelled otherwise).
func Holds(dir, p string) bool {
	dir, p = Resolve(dir), Resolve(p)
	if under(dir, p) {
		return true
	}
	d, err := os.Stat(dir)
	if err != nil {
		return false
	}
	for a := p; ; a = filepath.Dir(a) {
		if fi, err := os.Stat(a); err == nil && os.SameFile(fi, d) {
			return true
		}
		if filepath.Dir(a) == a {
			return false
		}
	}
}

func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// under says whether p is dir or below it, as spelled.
func under(dir, p string) bool {
	r, err := filepath.Rel(dir, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r)
}
