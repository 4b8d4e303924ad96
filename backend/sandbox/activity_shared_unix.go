//go:build unix

package sandbox

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// Every Loupe process of the user (the app, `loupe run` in a terminal, a
// second window) says what it does in which folders in one folder of
// Loupe's state, out of every command's reach: one file per process,
// holding its counts (sharedCounts), with a shared flock on it for as long
// as the process lives. A file whose lock is free is a gone process's
// (killed, crashed: the lock dies with it) and is removed by the next
// process to look. Each process rewrites its file as its counts change, and
// reads the others' before a command starts or before its own process
// changes a folder (Quiet), all under the folder's exclusive lock: so an
// Undo in the window waits for a command a `loupe run` runs in the same
// folder, that command waits for the Undo, and no two of them decide at
// once.

// activityFile is this process's file there, made (and locked) on first
// use under the folder's lock, in activityDir: made again should the
// state folder move (XDG_STATE_HOME changed). Only under activity's lock.
var (
	activityFile *os.File
	activityDir  string
)

// shareActivity takes the folder's lock, reads what the other live
// processes say (dropping the files of gone ones) and hands it to decide,
// which may change this process's counts and says whether it did: then
// this process's file is rewritten before the lock is let go. The caller
// holds activity's lock. Without the folder, it fails: what other Loupe
// processes do there is unknown.
func shareActivity(decide func(others []sharedCounts) bool) error {
	dir, err := stateFolder("activity")
	if err != nil {
		return err
	}
	unlock, err := lockFolder(dir)
	if err != nil {
		return fmt.Errorf("sandbox: Loupe's activity lock: %w", err)
	}
	defer unlock()
	if activityFile != nil && activityDir != dir {
		activityFile.Close()
		activityFile = nil
	}
	if activityFile == nil {
		name := strconv.Itoa(os.Getpid()) + "-" + rand.Text()
		fd, err := unix.Open(filepath.Join(dir, name), unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if err != nil {
			return fmt.Errorf("sandbox: Loupe's activity file: %w", err)
		}
		if err := unix.Flock(fd, unix.LOCK_SH|unix.LOCK_NB); err != nil {
			unix.Close(fd)
			return fmt.Errorf("sandbox: Loupe's activity file: %w", err)
		}
		activityFile, activityDir = os.NewFile(uintptr(fd), name), dir
		// Whatever this process counts already, the others hear of.
		if err := writeActivity(); err != nil {
			return err
		}
	}
	// What decide changes stands only once the others can read it: a
	// count they never hear of would hold this process's own folders up
	// (a quiet never let go) or let theirs go (a command they do not
	// wait for).
	running, quiet, wanted := maps.Clone(activity.running), maps.Clone(activity.quiet), maps.Clone(activity.wanted)
	if !decide(othersActivity(dir)) {
		return nil
	}
	if err := writeActivity(); err != nil {
		activity.running, activity.quiet, activity.wanted = running, quiet, wanted
		return err
	}
	return nil
}

// othersActivity is what the files of the other live processes say.
func othersActivity(dir string) []sharedCounts {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []sharedCounts
	for _, e := range ents {
		if e.Name() == "lock" || e.Name() == activityFile.Name() || !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		if unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) == nil {
			// No process holds it: its process is gone.
			_ = unix.Unlink(path)
			unix.Close(fd)
			continue
		}
		f := os.NewFile(uintptr(fd), e.Name())
		var c sharedCounts
		if err := json.NewDecoder(f).Decode(&c); err != nil {
			// A live process whose counts cannot be read (its last
			// write failed half way): it may run a command, or change
			// a folder, anywhere.
			c = sharedCounts{Running: map[string]int{"": 1}, Quiet: map[string]int{"": 1}}
		}
		out = append(out, c)
		f.Close()
	}
	return out
}

// writeActivity rewrites this process's file with its counts (under both
// locks). A command whose workspace is not known ("") is left out: run by
// a caller that named none (Local), it is this process's own; shared, it
// would hold up every folder of every other process.
func writeActivity() error {
	c := sharedCounts{Running: known(activity.running), Quiet: known(activity.quiet), Wanted: known(activity.wanted)}
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	fd := int(activityFile.Fd())
	if err := unix.Ftruncate(fd, 0); err != nil {
		return fmt.Errorf("sandbox: Loupe's activity file: %w", err)
	}
	n, err := unix.Pwrite(fd, b, 0)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	if err != nil {
		return fmt.Errorf("sandbox: Loupe's activity file: %w", err)
	}
	return nil
}

func known(m map[string]int) map[string]int {
	out := map[string]int{}
	for w, n := range m {
		if w != "" && n > 0 {
			out[w] = n
		}
	}
	return out
}
