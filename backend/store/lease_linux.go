package store

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// bootID is the kernel's id of this boot, or "" without /proc.
func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// pidNamespace names this process's pid namespace ("pid:[4026531836]"), or
// "": pids are compared only between processes of one namespace.
func pidNamespace() string {
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return ""
	}
	return ns
}

// processStart looks pid up in /proc: whether it is a live process (not a
// zombie), and when it started (clock ticks since boot, field 22 of
// /proc/PID/stat). known is false when /proc cannot tell.
func processStart(pid int) (alive bool, started int64, known bool) {
	if pid <= 0 {
		return false, 0, true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if errors.Is(err, fs.ErrNotExist) {
		// No such process, if /proc is there to say so.
		if _, err := os.Stat("/proc/self/stat"); err != nil {
			return false, 0, false
		}
		return false, 0, true
	}
	if err != nil {
		return false, 0, false
	}
	// "pid (comm) S ppid …": comm may hold spaces and parentheses, so the
	// fields are counted from the last ')'. After it come field 3 (state)
	// onwards; starttime is field 22.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return false, 0, false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 20 {
		return false, 0, false
	}
	if f[0] == "Z" || f[0] == "X" {
		return false, 0, true
	}
	st, err := strconv.ParseInt(f[19], 10, 64)
	if err != nil {
		return true, 0, true
	}
	return true, st, true
}
