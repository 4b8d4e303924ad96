package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Each confined command gets a scratch directory of its own, removed when
// it ends: its /tmp, its private home, and the empty directory its view is
// built in. They live under one directory per user, and each name says
// which process made it, so that the next start of Loupe removes what a
// killed one left behind, and never what a running one still uses.

// commandDir is one command's scratch directory.
type commandDir struct {
	root string // removed afterwards
	tmp  string // the command's /tmp
	home string // the command's home
	view string // where the helper builds its root
}

// scratchBase is the per-user directory holding the commands' scratch
// directories.
func scratchBase() string {
	return filepath.Join(os.TempDir(), "loupe-"+strconv.Itoa(os.Getuid()))
}

// newCommandDir makes a scratch directory for one command.
func newCommandDir() (commandDir, error) {
	base := scratchBase()
	if err := os.Mkdir(base, 0o700); err != nil && !os.IsExist(err) {
		return commandDir{}, fmt.Errorf("sandbox: scratch directory: %w", err)
	}
	// Another user could have made it first, in a shared /tmp: it must
	// be ours, a real directory, and private.
	fi, err := os.Lstat(base)
	if err != nil {
		return commandDir{}, fmt.Errorf("sandbox: scratch directory: %w", err)
	}
	if !fi.IsDir() || !ownedByMe(fi) || fi.Mode().Perm()&0o077 != 0 {
		return commandDir{}, fmt.Errorf("sandbox: %s is not a private directory of yours; remove it", base)
	}
	root, err := os.MkdirTemp(base, "cmd-"+processTag()+"-")
	if err != nil {
		return commandDir{}, fmt.Errorf("sandbox: scratch directory: %w", err)
	}
	d := commandDir{
		root: root,
		tmp:  filepath.Join(root, "tmp"),
		home: filepath.Join(root, "home"),
		view: filepath.Join(root, "root"),
	}
	for _, p := range []string{d.tmp, d.home, d.view} {
		if err := os.Mkdir(p, 0o700); err != nil {
			removeAll(root)
			return commandDir{}, fmt.Errorf("sandbox: scratch directory: %w", err)
		}
	}
	// /tmp inside is shared by the command's processes only, but tools
	// expect its usual mode.
	if err := os.Chmod(d.tmp, 0o1777); err != nil {
		removeAll(root)
		return commandDir{}, fmt.Errorf("sandbox: scratch directory: %w", err)
	}
	return d, nil
}

// processTag names this process for the scratch directories it makes: its
// PID and its start time (so a reused PID is told apart).
func processTag() string {
	return strconv.Itoa(os.Getpid()) + "." + strconv.FormatUint(startTime(os.Getpid()), 10)
}

// startTime is the process's start time in clock ticks since boot (field
// 22 of /proc/PID/stat), or 0 where there is no /proc.
func startTime(pid int) uint64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces and parentheses: the
	// fields after it start after the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return 0
	}
	n, _ := strconv.ParseUint(f[19], 10, 64)
	return n
}

// RemoveLeftovers removes the scratch directories of commands whose Loupe
// process is gone (killed, or the machine stopped), and returns how many.
// Call it when Loupe starts; directories of running Loupe processes are
// kept.
func RemoveLeftovers() int {
	ents, err := os.ReadDir(scratchBase())
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		tag, ok := strings.CutPrefix(e.Name(), "cmd-")
		if !ok {
			continue
		}
		pidS, rest, _ := strings.Cut(tag, ".")
		startS, _, _ := strings.Cut(rest, "-")
		pid, err1 := strconv.Atoi(pidS)
		start, err2 := strconv.ParseUint(startS, 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		if pid == os.Getpid() || (start != 0 && startTime(pid) == start) {
			continue // its process still runs
		}
		removeAll(filepath.Join(scratchBase(), e.Name()))
		n++
	}
	return n
}

// removeAll removes the command's temp dir, making read-only directories
// it left writable first.
func removeAll(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	_ = os.RemoveAll(dir)
}
