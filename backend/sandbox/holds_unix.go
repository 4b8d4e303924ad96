//go:build unix

package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Every Loupe process of the user (the app, `loupe run`, two windows)
// notes the placeholders it holds in one folder of Loupe's state, outside
// every workspace and out of every command's reach: one file per
// placeholder, named by its device and inode, saying where it is, with a
// shared flock on it for each process that holds it. A placeholder is
// removed only by the process that can take that lock exclusively: no
// other holds it. A lock dies with its process, so a crash never leaves a
// hold; the placeholder it leaves is removed by the next Loupe process to
// start or open a workspace (SweepPlaceholders), or taken up (and removed
// in its turn) by the next command whose view covers it. All of it is done under one
// exclusive lock of the folder, so that no process sees a placeholder
// made and not noted yet.

// holdsDir is that folder: placeholders in Loupe's state folder
// (StateDir).
func holdsDir() (string, error) { return stateFolder("placeholders") }

// holdsLock takes the folder's exclusive lock (waiting for it) and
// returns the folder and how to let go.
func holdsLock() (dir string, unlock func(), err error) {
	dir, err = holdsDir()
	if err != nil {
		return "", nil, err
	}
	unlock, err = lockFolder(dir)
	if err != nil {
		return "", nil, fmt.Errorf("sandbox: Loupe's placeholders lock: %w", err)
	}
	return dir, unlock, nil
}

// stateFolder is the folder name in Loupe's state folder where Loupe
// processes tell each other what they hold or do. It is made when
// missing, and must be a folder of the user's own, not a link.
func stateFolder(name string) (string, error) {
	state, err := StateDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(state, name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("sandbox: Loupe's %s folder: %w", name, err)
	}
	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil {
		return "", err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR || int(st.Uid) != os.Getuid() {
		return "", fmt.Errorf("sandbox: %s is not a folder of this user's", dir)
	}
	return dir, nil
}

// lockFolder takes the exclusive lock of such a folder (its file "lock"),
// waiting for it. Its own open each time: flocks of two opens conflict
// within one process too.
func lockFolder(dir string) (unlock func(), err error) {
	fd, err := unix.Open(filepath.Join(dir, "lock"), unix.O_RDWR|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = unix.Flock(fd, unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	return func() { unix.Close(fd) }, nil
}

// holdNote is what a placeholder's file in the folder says.
type holdNote struct {
	Path string `json:"path"`
	Dir  bool   `json:"dir"`
	// Base is the folder the placeholder was made in (held open), Rel
	// its slash-separated path there: what SweepPlaceholders removes
	// through, by handle, never by Path.
	Base string `json:"base,omitempty"`
	Rel  string `json:"rel,omitempty"`
}

func holdName(dev, ino uint64) string {
	return strconv.FormatUint(dev, 10) + "-" + strconv.FormatUint(ino, 10)
}

// noteHold notes the placeholder at rel under base (dev, ino) as held by this
// process, under the folder's lock: the file's shared lock is the hold.
func noteHold(dir, base, rel string, dev, ino uint64, isDir bool) (*os.File, error) {
	path := filepath.Join(base, filepath.FromSlash(rel))
	b, _ := json.Marshal(holdNote{Path: path, Dir: isDir, Base: base, Rel: rel})
	fd, err := unix.Open(filepath.Join(dir, holdName(dev, ino)), unix.O_RDWR|unix.O_CREAT|unix.O_TRUNC|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), holdName(dev, ino))
	if _, err := f.Write(b); err != nil {
		f.Close()
		return nil, err
	}
	if err := unix.Flock(fd, unix.LOCK_SH|unix.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// takeHold takes a shared lock on a placeholder another process (or a
// crashed one) noted, under the folder's lock.
func takeHold(dir, name string) (*os.File, error) {
	fd, err := unix.Open(filepath.Join(dir, name), unix.O_RDWR|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(fd, unix.LOCK_SH|unix.LOCK_NB); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), name), nil
}

// lastHold says, under the folder's lock, whether this process's hold f
// is the only one: then the placeholder is the caller's to remove, and
// its note to forget. Either way, f is let go.
func lastHold(dir string, f *os.File, dev, ino uint64) bool {
	if f == nil {
		return true
	}
	defer f.Close()
	return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil
}

// forgetHold removes the note of a placeholder no process holds any more.
func forgetHold(dir string, dev, ino uint64) {
	_ = unix.Unlink(filepath.Join(dir, holdName(dev, ino)))
}

// notedHolds lists the placeholders noted in the folder (under its lock),
// by file name.
func notedHolds(dir string) map[string]holdNote {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	out := map[string]holdNote{}
	for _, e := range ents {
		if !e.Type().IsRegular() || !strings.Contains(e.Name(), "-") {
			continue
		}
		b, err := readSmall(filepath.Join(dir, e.Name()))
		var n holdNote
		if err != nil || json.Unmarshal(b, &n) != nil || !filepath.IsAbs(n.Path) {
			continue
		}
		out[e.Name()] = n
	}
	return out
}

// dropStaleHold removes the note name when no process holds it (its
// placeholder is gone, or is no longer what Loupe made).
func dropStaleHold(dir, name string) {
	f, err := takeHold(dir, name)
	if err != nil {
		return
	}
	defer f.Close()
	if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil {
		_ = unix.Unlink(filepath.Join(dir, name))
	}
}
