package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
)

// A started process granted paths of the workspace (an MCP server that may
// write) runs only while Loupe waits on it: between calls it is stopped,
// with everything it started, so that what it leaves in the workspace is
// what the check after its calls saw, and Loupe's own changes to the
// workspace (an undo) never race it. The processes are found by the tree
// of parent ids under the helper: in a PID namespace the helper is its
// init, and without one it is a child subreaper, so an orphan stays under
// it either way.

// procStat reads a process's (or a task's) state and parent id from its
// stat file.
func procStat(path string) (state byte, ppid int, ok bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, false
	}
	// The command's name, in parentheses, may hold spaces and ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || len(b) < i+4 {
		return 0, 0, false
	}
	f := bytes.Fields(b[i+2:])
	if len(f) < 2 {
		return 0, 0, false
	}
	ppid, err = strconv.Atoi(string(f[1]))
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], ppid, true
}

// processTree is root and every process descended from it.
func processTree(root int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return []int{root}
	}
	children := map[int][]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if _, ppid, ok := procStat("/proc/" + e.Name() + "/stat"); ok {
			children[ppid] = append(children[ppid], pid)
		}
	}
	out := []int{root}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

// allTasksStopped says whether every thread of pid is stopped (or it has
// exited): a signal stops a process's threads one by one.
func allTasksStopped(pid int) bool {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	ents, err := os.ReadDir(dir)
	if err != nil {
		return true // gone
	}
	for _, e := range ents {
		st, _, ok := procStat(dir + "/" + e.Name() + "/stat")
		if ok && st != 'T' && st != 't' && st != 'Z' && st != 'X' {
			return false
		}
	}
	return true
}

// freezeTree stops root and everything under it, and returns once every
// thread of every one of them is stopped and a last look finds no process
// that was not: one that forked meanwhile has its child stopped too. An
// error means it could not within d (a process stuck in the kernel): the
// caller must then kill the tree rather than trust it stopped.
func freezeTree(root int, d time.Duration) error {
	deadline := time.Now().Add(d)
	signalled := map[int]bool{}
	for {
		settled := true
		for _, pid := range processTree(root) {
			if !signalled[pid] {
				signalled[pid] = true
				settled = false
				if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil && err != syscall.ESRCH {
					return fmt.Errorf("sandbox: stop process %d: %w", pid, err)
				}
			}
			if !allTasksStopped(pid) {
				settled = false
			}
		}
		if settled {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("sandbox: the process did not stop within %v", d)
		}
		time.Sleep(time.Millisecond)
	}
}

// thawTree lets root and everything under it go on.
func thawTree(root int) {
	for _, pid := range processTree(root) {
		_ = syscall.Kill(pid, syscall.SIGCONT)
	}
}
