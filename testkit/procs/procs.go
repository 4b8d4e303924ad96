// Package procs finds live processes through /proc, for tests that must
// show no descendant of a stopped command is left alive.
package procs

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
)

// WithArg lists the pids of live processes (not zombies, and not this
// process) that have arg as one of their command-line arguments.
func WithArg(arg string) []int {
	return Matching(func(args [][]byte) bool {
		for _, a := range args {
			if string(a) == arg {
				return true
			}
		}
		return false
	})
}

// Containing lists the pids of live processes (not zombies, and not this
// process) whose command line contains s anywhere.
func Containing(s string) []int {
	return Matching(func(args [][]byte) bool {
		return bytes.Contains(bytes.Join(args, []byte{' '}), []byte(s))
	})
}

// Matching lists the pids of live processes whose arguments match.
func Matching(match func(args [][]byte) bool) []int {
	entries, _ := os.ReadDir("/proc")
	self := os.Getpid()
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(cmdline) == 0 || !match(bytes.Split(cmdline, []byte{0})) {
			continue
		}
		if dead(e.Name()) {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// dead reports a zombie (or exiting) process: killed, only not yet reaped.
// stat is "pid (comm) S ...": the state follows the last ')'.
func dead(pid string) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z' || stat[i+2] == 'X'
}
