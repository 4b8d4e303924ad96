//go:build unix

package hands

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"

	"golang.org/x/sys/unix"
)

// The copy of a folder (a fork's "A copy as it was then") costs the disk
// what the folder does: a file's holes stay holes, and what would not fit
// is refused before anything is written.

// Usage is what the entries under d take on the disk (their allocated
// blocks, a file's holes not counted), at most depth folders deep, and
// how many entries there are. It opens each folder from the one above,
// without following a link.
func (d *Dir) Usage(depth int) (bytes int64, entries int, err error) {
	ents, err := d.ReadDir()
	if err != nil {
		return 0, 0, err
	}
	for _, e := range ents {
		var st unix.Stat_t
		if unix.Fstatat(d.fd, e.Name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			continue // gone, or not readable: the copy leaves it out
		}
		entries++
		bytes += st.Blocks * 512
		if uint32(st.Mode)&unix.S_IFMT != unix.S_IFDIR || depth <= 0 {
			continue
		}
		sub, err := d.OpenDir(e.Name)
		if err != nil {
			continue
		}
		b, n, _ := sub.Usage(depth - 1)
		sub.Close()
		bytes += b
		entries += n
	}
	return bytes, entries, nil
}

// Free is how many bytes the file system of d has free for this user.
func (d *Dir) Free() (int64, error) {
	var st unix.Statfs_t
	if err := unix.Fstatfs(d.fd, &st); err != nil {
		return 0, &fs.PathError{Op: "statfs", Path: d.rel, Err: err}
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}

// copyChunk is what CopyFile reads at a time; a chunk of zeros is not
// written (it stays a hole).
const copyChunk = 1 << 16

// CopyFile copies the regular file name of d to the same name in to,
// which must be free: its mode, its size and its data, with its holes kept
// as holes (SEEK_DATA and SEEK_HOLE find the data; a chunk of zeros is not
// written either, where the file system cannot say). budget bounds the
// bytes written; more is an error and nothing is left at the name. It
// returns the bytes written. A link or anything else than a regular file
// at name is a *FoundError; the destination's protected paths are refused
// as a write's.
func (d *Dir) CopyFile(name string, to *Dir, budget int64) (int64, error) {
	if err := checkName(name); err != nil {
		return 0, err
	}
	rel, dest := join(d.rel, name), join(to.rel, name)
	if err := to.guard(dest); err != nil {
		return 0, err
	}
	sfd, err := unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return 0, &fs.PathError{Op: "open", Path: rel, Err: fs.ErrNotExist}
		}
		return 0, explainAt(d.fd, rel, name, rel, err)
	}
	defer unix.Close(sfd)
	var st unix.Stat_t
	if err := unix.Fstat(sfd, &st); err != nil {
		return 0, &fs.PathError{Op: "stat", Path: rel, Err: err}
	}
	if uint32(st.Mode)&unix.S_IFMT != unix.S_IFREG {
		return 0, &FoundError{Path: rel, For: rel, Kind: kindOf(uint32(st.Mode))}
	}
	tmp := "." + name + TempPrefix + randomDigits() + TempSuffix
	dfd, err := unix.Openat(to.fd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return 0, &fs.PathError{Op: "create", Path: dest, Err: err}
	}
	written, err := copySparse(dfd, sfd, st.Size, budget, rel)
	if err == nil {
		err = unix.Ftruncate(dfd, st.Size)
	}
	if err == nil {
		err = unix.Fchmod(dfd, uint32(st.Mode)&0o777)
	}
	if err == nil {
		err = unix.Fsync(dfd)
	}
	if cerr := unix.Close(dfd); err == nil {
		err = cerr
	}
	if err == nil {
		err = renameNoReplace(to.fd, tmp, to.fd, name)
	}
	if err != nil {
		_ = unix.Unlinkat(to.fd, tmp, 0)
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return written, err
		}
		return written, &fs.PathError{Op: "copy", Path: dest, Err: err}
	}
	Changed()
	return written, nil
}

// copySparse copies the size bytes of sfd to dfd at the same offsets,
// writing only the data: the holes the source's file system reports, and
// chunks of zeros, are skipped (the caller sets the size at the end).
func copySparse(dfd, sfd int, size, budget int64, rel string) (int64, error) {
	buf := make([]byte, copyChunk)
	zero := make([]byte, copyChunk)
	var written int64
	for off := int64(0); off < size; {
		data, err := unix.Seek(sfd, off, unix.SEEK_DATA)
		if errors.Is(err, unix.ENXIO) {
			break // a hole to the end
		}
		end := size
		if err != nil {
			data = off // the file system cannot say: every byte is read
		} else if h, herr := unix.Seek(sfd, data, unix.SEEK_HOLE); herr == nil && h < end {
			end = h
		}
		for p := data; p < end; {
			n, err := unix.Pread(sfd, buf[:min(int64(len(buf)), end-p)], p)
			if err != nil {
				return written, &fs.PathError{Op: "read", Path: rel, Err: err}
			}
			if n == 0 {
				return written, nil // it shrank while it was read
			}
			if !bytes.Equal(buf[:n], zero[:n]) {
				if written += int64(n); written > budget {
					return written, fmt.Errorf("%s: the copy would write more than the %d bytes measured before it began (the folder grew meanwhile)", rel, budget)
				}
				for w := 0; w < n; {
					m, err := unix.Pwrite(dfd, buf[w:n], p+int64(w))
					if err != nil {
						return written, &fs.PathError{Op: "write", Path: rel, Err: err}
					}
					w += m
				}
			}
			p += int64(n)
		}
		off = end
	}
	return written, nil
}
