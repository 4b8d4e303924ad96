//go:build unix

package hands

import (
	"crypto/rand"
	"errors"
	"io"
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Dir is a directory of the root, held open. Names given to its methods
// are single components, looked up in this directory and never followed
// when they are links. A Dir stays the directory it was opened as even if
// it is moved (inside the workspace) after.
type Dir struct {
	root *Root
	fd   int
	rel  string
}

// OpenDir opens the directory rel ("." for the root itself).
func (r *Root) OpenDir(rel string) (*Dir, error) { return r.openDir(rel, "") }

// openDir opens rel for an operation on forRel ("": on rel itself).
func (r *Root) openDir(rel, forRel string) (*Dir, error) {
	c, _, err := clean(rel)
	if err != nil {
		return nil, err
	}
	if forRel == "" {
		forRel = c
	}
	fd, err := r.openDirFd(c, forRel, false)
	if err != nil {
		return nil, err
	}
	return &Dir{root: r, fd: fd, rel: c}, nil
}

// MkdirAll opens the directory rel, making the directories that are
// missing (0755), each inside the one just opened. Making a protected
// directory is a *ProtectedError.
func (r *Root) MkdirAll(rel string) (*Dir, error) {
	c, _, err := clean(rel)
	if err != nil {
		return nil, err
	}
	defer Changed()
	fd, err := r.openDirFd(c, c, true)
	if err != nil {
		return nil, err
	}
	return &Dir{root: r, fd: fd, rel: c}, nil
}

// Rel is where the directory was when it was opened, relative to the root.
func (d *Dir) Rel() string { return d.rel }

// Close releases the handle.
func (d *Dir) Close() error { return unix.Close(d.fd) }

// OpenDir opens the directory name of d; a link there is refused.
func (d *Dir) OpenDir(name string) (*Dir, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	rel := join(d.rel, name)
	fd, err := unix.Openat(d.fd, name, dirFlags, 0)
	if err != nil {
		return nil, explainAt(d.fd, rel, name, rel, err)
	}
	return &Dir{root: d.root, fd: fd, rel: rel}, nil
}

// Stat describes the directory itself (os.SameFile compares it).
func (d *Dir) Stat() (fs.FileInfo, error) {
	var st unix.Stat_t
	if err := unix.Fstat(d.fd, &st); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: d.rel, Err: err}
	}
	return newInfo(base(d.rel), &st), nil
}

// Lstat describes the entry name of d, a link as a link.
func (d *Dir) Lstat(name string) (fs.FileInfo, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: join(d.rel, name), Err: err}
	}
	return newInfo(name, &st), nil
}

// Readlink is what the link name of d points at.
func (d *Dir) Readlink(name string) (string, error) {
	if err := checkName(name); err != nil {
		return "", err
	}
	buf := make([]byte, 4096)
	n, err := unix.Readlinkat(d.fd, name, buf)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: join(d.rel, name), Err: err}
	}
	return string(buf[:n]), nil
}

// Entry is a name in a directory and its type (fs.ModeDir, fs.ModeSymlink,
// 0 for a regular file, …), as the directory listing gives it.
type Entry struct {
	Name string
	Type fs.FileMode
}

// ReadDir lists d (without "." and ".."), in the order the file system
// gives.
func (d *Dir) ReadDir() ([]Entry, error) {
	// A handle of its own: reading a directory moves its offset.
	fd, err := unix.Openat(d.fd, ".", dirFlags, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: d.rel, Err: err}
	}
	f := os.NewFile(uintptr(fd), d.rel)
	defer f.Close()
	des, err := f.ReadDir(-1)
	out := make([]Entry, 0, len(des))
	for _, de := range des {
		// Type comes from the listing itself; Info would look the name up
		// again by path.
		out = append(out, Entry{Name: de.Name(), Type: de.Type()})
	}
	if err != nil {
		return out, &fs.PathError{Op: "readdir", Path: d.rel, Err: err}
	}
	return out, nil
}

// ReadFile reads the regular file name of d, at most max bytes (a larger
// one is a *TooLargeError). A link, directory, pipe or device there is a
// *FoundError; the open does not block on a pipe and does not follow a
// link, and what is read is what was opened.
func (d *Dir) ReadFile(name string, max int64) ([]byte, fs.FileInfo, error) {
	if err := checkName(name); err != nil {
		return nil, nil, err
	}
	rel := join(d.rel, name)
	fd, err := unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil, nil, &fs.PathError{Op: "open", Path: rel, Err: fs.ErrNotExist}
		}
		return nil, nil, explainAt(d.fd, rel, name, rel, err)
	}
	f := os.NewFile(uintptr(fd), rel)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, nil, &fs.PathError{Op: "stat", Path: rel, Err: err}
	}
	if uint32(st.Mode)&unix.S_IFMT != unix.S_IFREG {
		return nil, nil, &FoundError{Path: rel, For: rel, Kind: kindOf(uint32(st.Mode))}
	}
	if st.Size > max {
		return nil, nil, &TooLargeError{Path: rel, Limit: max}
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, nil, &fs.PathError{Op: "read", Path: rel, Err: err}
	}
	if int64(len(b)) > max {
		return nil, nil, &TooLargeError{Path: rel, Limit: max}
	}
	return b, newInfo(name, &st), nil
}

// WriteFile replaces (or creates) the regular file name of d with data:
// a temporary file written in d is renamed over it in d, so a reader sees
// the old file or the new one. An existing file keeps its mode (perm is
// for a new one). A link, directory or other non-regular entry there is
// refused with a *FoundError, and a protected path with a
// *ProtectedError; nothing is written through either.
func (d *Dir) WriteFile(name string, data []byte, perm fs.FileMode) error {
	if err := checkName(name); err != nil {
		return err
	}
	rel := join(d.rel, name)
	if err := d.guard(rel); err != nil {
		return err
	}
	var st unix.Stat_t
	switch err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); {
	case err == nil && uint32(st.Mode)&unix.S_IFMT != unix.S_IFREG:
		return foundAt(d.fd, rel, name, rel, uint32(st.Mode))
	case err == nil:
		perm = fs.FileMode(uint32(st.Mode) & 0o777)
	case !errors.Is(err, unix.ENOENT):
		return &fs.PathError{Op: "lstat", Path: rel, Err: err}
	}
	tmp, err := d.writeTemp(name, data, perm)
	if err != nil {
		return err
	}
	// The rename replaces the entry name, whatever it became since the
	// look above: a link that appeared is replaced, never written
	// through.
	if err := unix.Renameat(d.fd, tmp, d.fd, name); err != nil {
		_ = unix.Unlinkat(d.fd, tmp, 0)
		return d.explainEntry(name, &fs.PathError{Op: "rename", Path: rel, Err: err})
	}
	Changed()
	return nil
}

// TempPrefix and TempSuffix frame the names of WriteFile's temporary
// files: ".NAME.loupe-<digits>.tmp", so a crash's leftovers can be
// recognised (RemovePartialWrites).
const (
	TempPrefix = ".loupe-"
	TempSuffix = ".tmp"
)

func (d *Dir) writeTemp(name string, data []byte, perm fs.FileMode) (string, error) {
	rel := join(d.rel, name)
	for range 10 {
		tmp := "." + name + TempPrefix + randomDigits() + TempSuffix
		fd, err := unix.Openat(d.fd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return "", &fs.PathError{Op: "create", Path: rel, Err: err}
		}
		f := os.NewFile(uintptr(fd), tmp)
		_, err = f.Write(data)
		if err == nil {
			err = f.Chmod(perm & fs.ModePerm)
		}
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = unix.Unlinkat(d.fd, tmp, 0)
			return "", &fs.PathError{Op: "write", Path: rel, Err: err}
		}
		return tmp, nil
	}
	return "", &fs.PathError{Op: "create", Path: rel, Err: fs.ErrExist}
}

func randomDigits() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	n := uint64(0)
	for _, x := range b {
		n = n<<8 | uint64(x)
	}
	return uitoa(n)
}

func uitoa(n uint64) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// Remove removes the entry name of d: a file, a link (the link itself,
// never what it points at) or an empty directory. A protected path is a
// *ProtectedError.
func (d *Dir) Remove(name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	defer Changed()
	rel := join(d.rel, name)
	if err := d.guard(rel); err != nil {
		return err
	}
	err := unix.Unlinkat(d.fd, name, 0)
	if errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EPERM) {
		err = unix.Unlinkat(d.fd, name, unix.AT_REMOVEDIR)
	}
	if err != nil {
		return &fs.PathError{Op: "remove", Path: rel, Err: err}
	}
	return nil
}

// RemoveFile removes the regular file name of d. Missing is not an error;
// a link or anything else there is a *FoundError and stays.
func (d *Dir) RemoveFile(name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	defer Changed()
	rel := join(d.rel, name)
	if err := d.guard(rel); err != nil {
		return err
	}
	var st unix.Stat_t
	switch err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); {
	case errors.Is(err, unix.ENOENT):
		return nil
	case err != nil:
		return &fs.PathError{Op: "lstat", Path: rel, Err: err}
	case uint32(st.Mode)&unix.S_IFMT != unix.S_IFREG:
		return foundAt(d.fd, rel, name, rel, uint32(st.Mode))
	}
	// Unlinking removes the name, whatever it became since the look
	// above; it never follows a link, and a directory fails.
	if err := unix.Unlinkat(d.fd, name, 0); err != nil && !errors.Is(err, unix.ENOENT) {
		return d.explainEntry(name, &fs.PathError{Op: "remove", Path: rel, Err: err})
	}
	return nil
}

// RemoveAll removes name of d and, when it is a directory, everything in
// it, each entry by name inside its own opened directory: a link is
// removed, never followed. A protected path inside stops it there with a
// *ProtectedError (what was removed before stays removed). Missing is not
// an error.
func (d *Dir) RemoveAll(name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	defer Changed()
	return d.removeAll(name, 0)
}

// maxDepth bounds RemoveAll's recursion (a directory tree a command keeps
// deepening while it is removed).
const maxDepth = 512

func (d *Dir) removeAll(name string, depth int) error {
	rel := join(d.rel, name)
	if err := d.guard(rel); err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		err := unix.Unlinkat(d.fd, name, 0)
		if err == nil || errors.Is(err, unix.ENOENT) {
			return nil
		}
		if attempt >= 8 {
			// It keeps changing between the calls, or it cannot be
			// removed (not ours: EPERM on a file of a sticky folder).
			return &fs.PathError{Op: "remove", Path: rel, Err: err}
		}
		if !errors.Is(err, unix.EISDIR) && !errors.Is(err, unix.EPERM) {
			return &fs.PathError{Op: "remove", Path: rel, Err: err}
		}
		if depth >= maxDepth {
			return &fs.PathError{Op: "remove", Path: rel, Err: errors.New("too deep")}
		}
		sub, err := d.OpenDir(name)
		if err != nil {
			var fe *FoundError
			if errors.As(err, &fe) || errors.Is(err, unix.ENOENT) {
				continue // it changed between the two calls: look again
			}
			return err
		}
		ents, err := sub.ReadDir()
		for _, e := range ents {
			if rerr := sub.removeAll(e.Name, depth+1); rerr != nil {
				sub.Close()
				return rerr
			}
		}
		sub.Close()
		if err != nil {
			return err
		}
		err = unix.Unlinkat(d.fd, name, unix.AT_REMOVEDIR)
		if err == nil || errors.Is(err, unix.ENOENT) {
			return nil
		}
		if !errors.Is(err, unix.ENOTEMPTY) && !errors.Is(err, unix.EEXIST) && !errors.Is(err, unix.ENOTDIR) {
			return &fs.PathError{Op: "remove", Path: rel, Err: err}
		}
		// Something was added meanwhile: empty it again.
	}
}

// Rename moves the entry name of d to newName in to (which may be d),
// without replacing anything there (fs.ErrExist if taken). Both
// directories are held open, so the move happens where they are, whatever
// a path to them leads to now. The source and the destination are both
// judged by the protected-path check.
func (d *Dir) Rename(name string, to *Dir, newName string) error {
	if err := checkName(name); err != nil {
		return err
	}
	if err := checkName(newName); err != nil {
		return err
	}
	defer Changed()
	from, dest := join(d.rel, name), join(to.rel, newName)
	if err := d.guard(from); err != nil {
		return err
	}
	if err := to.guard(dest); err != nil {
		return err
	}
	if err := renameNoReplace(d.fd, name, to.fd, newName); err != nil {
		if errors.Is(err, unix.EEXIST) || errors.Is(err, unix.ENOTEMPTY) {
			return &fs.PathError{Op: "rename", Path: dest, Err: fs.ErrExist}
		}
		return &fs.PathError{Op: "rename", Path: from, Err: err}
	}
	return nil
}

// explainEntry says what stands at name when an operation on it failed.
func (d *Dir) explainEntry(name string, err error) error {
	var st unix.Stat_t
	if unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && uint32(st.Mode)&unix.S_IFMT != unix.S_IFREG {
		return foundAt(d.fd, join(d.rel, name), name, join(d.rel, name), uint32(st.Mode))
	}
	return err
}

func base(rel string) string {
	for i := len(rel) - 1; i >= 0; i-- {
		if rel[i] == '/' {
			return rel[i+1:]
		}
	}
	return rel
}

// info is an fs.FileInfo from a stat; Sys is the *unix.Stat_t.
type info struct {
	name string
	st   unix.Stat_t
}

func newInfo(name string, st *unix.Stat_t) *info { return &info{name: name, st: *st} }

func (i *info) Name() string { return i.name }
func (i *info) Size() int64  { return i.st.Size }
func (i *info) Mode() fs.FileMode {
	m := fs.FileMode(uint32(i.st.Mode) & 0o777)
	switch uint32(i.st.Mode) & unix.S_IFMT {
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	}
	return m
}
func (i *info) ModTime() time.Time { return modTime(&i.st) }
func (i *info) IsDir() bool        { return i.Mode().IsDir() }
func (i *info) Sys() any           { return &i.st }

func modTime(st *unix.Stat_t) time.Time { return time.Unix(st.Mtim.Unix()) }

// Symlink makes the entry name of d a symbolic link to target, which is
// stored as given and never looked at (a copy of a folder keeps its links
// as links). An entry already there is an error. A protected path is a
// *ProtectedError.
func (d *Dir) Symlink(target, name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	rel := join(d.rel, name)
	if err := d.guard(rel); err != nil {
		return err
	}
	if err := unix.Symlinkat(target, d.fd, name); err != nil {
		return &fs.PathError{Op: "symlink", Path: rel, Err: err}
	}
	return nil
}

// Mkdir makes the directory name of d (perm, before the umask) and opens
// it; an entry already there is an error (fs.ErrExist), so what is opened
// is the directory just made. A protected path is a *ProtectedError.
func (d *Dir) Mkdir(name string, perm fs.FileMode) (*Dir, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	rel := join(d.rel, name)
	if err := d.guard(rel); err != nil {
		return nil, err
	}
	if err := unix.Mkdirat(d.fd, name, uint32(perm&fs.ModePerm)); err != nil {
		if errors.Is(err, unix.EEXIST) {
			return nil, &fs.PathError{Op: "mkdir", Path: rel, Err: fs.ErrExist}
		}
		return nil, &fs.PathError{Op: "mkdir", Path: rel, Err: err}
	}
	return d.OpenDir(name)
}

// Root holds the directory d as a root of its own, at path dir (for
// messages), with its own protected paths: a folder made inside one held
// folder becomes the root of what is written in it, with no path looked
// up again.
func (d *Dir) Root(dir string, protected Protected) (*Root, error) {
	fd, err := unix.Dup(d.fd)
	if err != nil {
		return nil, &fs.PathError{Op: "dup", Path: dir, Err: err}
	}
	unix.CloseOnExec(fd)
	return &Root{dir: dir, fd: fd, protected: protected}, nil
}
