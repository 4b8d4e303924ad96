//go:build unix

// Package hands is the one way Loupe's own process changes workspace
// files: undo and restore, the clean-up after commands, the removal of a
// write's leftovers, the demo's copies. Commands are confined by the
// kernel; Loupe's process is not, so a path a command could have changed
// (a file turned into a symbolic link, a parent directory swapped for a
// link to .git or to a folder outside) must never steer what it writes or
// removes.
//
// A Root holds the workspace open as a directory handle. Every path is
// resolved once, from that handle, without following any symbolic link
// (openat2 with RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS where the kernel has
// it, a walk of O_NOFOLLOW|O_DIRECTORY opens elsewhere), and every change
// is made relative to the directory handle that was opened: a file is
// written as a temporary file renamed over it inside the held parent,
// removed and renamed by name inside the held parent. A link where a
// file or a directory was expected is refused with a *FoundError that
// says what was found. The caller passes the protected-path judgement
// (permission.Policy.ProtectedCheck, the list the tools' policy uses);
// changes to a protected path are refused with a *ProtectedError.
//
// The package imports nothing of Loupe's, so every layer can use it.
package hands

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Protected says whether rel (clean, slash-separated, relative to the
// root) is a path Loupe's process never changes, and which pattern covers
// it. nil protects nothing. What it needs to know of the workspace (is
// this folder a repository: is there a HEAD; is this .git a file) it asks
// look, never a path of its own: look answers from the folders the
// operation holds open (the parent it is about to change an entry of,
// and the root), without following a link, so the judgement is of the
// folder that is then changed.
type Protected func(look Look, rel string) (pattern string, ok bool)

// Look is what a protected-path judgement may ask of the workspace: what
// is at rel (relative to the root; a link is described as a link).
type Look interface {
	Lstat(rel string) (fs.FileInfo, error)
}

// Root is a directory held open; see the package comment. It is safe for
// concurrent use.
type Root struct {
	dir       string
	fd        int
	protected Protected
	// closed, when set, runs once at Close (AtClose).
	closed func()
}

// Open holds dir open. The path dir itself is the caller's (the user
// chose it); everything below it is resolved without following links.
func Open(dir string, protected Protected) (*Root, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return &Root{dir: dir, fd: fd, protected: protected}, nil
}

// Dir is the path the root was opened at, for messages.
func (r *Root) Dir() string { return r.dir }

// Is says whether the folder the root holds is the one fi describes (an
// os.Stat of it): what was judged by path is what was opened.
func (r *Root) Is(fi fs.FileInfo) bool {
	want, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	dev, ino, err := r.ID()
	return err == nil && dev == uint64(want.Dev) && ino == want.Ino
}

// Where is the path of the folder the root holds as the kernel names it
// now (links resolved): what to judge it by once it is held, whatever the
// path it was opened at leads to since.
func (r *Root) Where() (string, error) {
	return os.Readlink("/proc/self/fd/" + strconv.Itoa(r.fd))
}

// ID is the device and inode of the folder the root holds.
func (r *Root) ID() (dev, ino uint64, err error) {
	var st unix.Stat_t
	if err := unix.Fstat(r.fd, &st); err != nil {
		return 0, 0, &fs.PathError{Op: "stat", Path: r.dir, Err: err}
	}
	return uint64(st.Dev), st.Ino, nil
}

// Close releases the handle, and what AtClose was given. Dirs opened
// from it stay usable.
func (r *Root) Close() error {
	if r.closed != nil {
		f := r.closed
		r.closed = nil
		defer f()
	}
	return unix.Close(r.fd)
}

// AtClose has f run when the root is closed (what was held for the time
// the root is used: backend/sandbox Quiet's release).
func (r *Root) AtClose(f func()) { r.closed = f }

// FoundError says that the entry at Path is not what an operation on For
// expects: a symbolic link (Target is what it points at), a directory, a
// named pipe, a device, a socket. Path is For itself or a directory on
// the way to it.
type FoundError struct {
	Path   string
	For    string
	Kind   string // "symbolic link", "directory", "named pipe", …
	Target string // for a symbolic link
}

func (e *FoundError) Error() string {
	what := e.Path + " is a " + e.Kind
	if e.Kind == kindLink {
		what += " to " + printable(e.Target)
	}
	if e.For != "" && e.For != e.Path {
		what += " (on the way to " + e.For + ")"
	}
	return what
}

// Link reports whether a symbolic link was found.
func (e *FoundError) Link() bool { return e.Kind == kindLink }

// ProtectedError says that Path is protected (by Pattern) and Loupe's
// process does not change it.
type ProtectedError struct {
	Path    string
	Pattern string
}

func (e *ProtectedError) Error() string {
	return fmt.Sprintf("%s is protected (%s): Loupe does not change it on its own", e.Path, e.Pattern)
}

// TooLargeError says that a file is larger than a read allows.
type TooLargeError struct {
	Path  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %d bytes; not read", e.Path, e.Limit)
}

const kindLink = "symbolic link"

func printable(s string) string {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return strconv.Quote(s)
		}
	}
	return s
}

// kindOf names a file type for a FoundError.
func kindOf(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return kindLink
	case unix.S_IFDIR:
		return "directory"
	case unix.S_IFIFO:
		return "named pipe"
	case unix.S_IFCHR, unix.S_IFBLK:
		return "device"
	case unix.S_IFSOCK:
		return "socket"
	case unix.S_IFREG:
		return "regular file"
	}
	return "special file"
}

// clean checks a path given relative to the root: no absolute path, no
// "..", no NUL. It returns the components ("." gives none).
func clean(rel string) (string, []string, error) {
	if rel == "" {
		return "", nil, errors.New("hands: empty path")
	}
	if strings.ContainsRune(rel, 0) {
		return "", nil, fmt.Errorf("hands: path %q contains a NUL byte", rel)
	}
	if strings.HasPrefix(rel, "/") {
		return "", nil, fmt.Errorf("hands: path %q is absolute; give it relative to the workspace", rel)
	}
	c := path.Clean(rel)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", nil, fmt.Errorf("hands: path %q leads out of the workspace", rel)
	}
	if c == "." {
		return c, nil, nil
	}
	return c, strings.Split(c, "/"), nil
}

// checkName refuses a name that is not one component.
func checkName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") {
		return fmt.Errorf("hands: %q is not a name in a directory", name)
	}
	return nil
}

func join(dir, name string) string {
	if dir == "." || dir == "" {
		return name
	}
	return dir + "/" + name
}

// guard refuses a change to a protected path, judged from the root.
func (r *Root) guard(rel string) error { return r.guardAt(r, rel) }

// guardAt refuses a change to a protected path, judged by what look
// finds.
func (r *Root) guardAt(look Look, rel string) error {
	if r.protected == nil {
		return nil
	}
	if pat, ok := r.protected(look, rel); ok {
		return &ProtectedError{Path: rel, Pattern: pat}
	}
	return nil
}

// Protected says whether rel is a path the root refuses to change, and
// which pattern covers it.
func (r *Root) Protected(rel string) (pattern string, ok bool) {
	if r.protected == nil {
		return "", false
	}
	c, _, err := clean(rel)
	if err != nil {
		return "", false
	}
	return r.protected(r, c)
}
