//go:build linux

package attacks_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cage is a cgroup of the test's own that loupe runs in, with caps on the
// number of tasks and on memory: the safety net under the limits tests.
// When the sandbox sets no limit, a fork bomb or a memory hog meets the
// cage's cap instead of taking every process slot or all the memory of a
// machine that other programs share, and the test says the cap was reached.
// The caps are set above what the sandbox should allow, so that a working
// sandbox stops the command first.
type cage struct {
	pids, mem string // cgroup folders: one each (v1), or the same one (v2)
	v2        bool
}

// newCage makes the cgroup, or says why it cannot: it needs cgroup v1 pids
// and memory hierarchies the test may write, or a cgroup v2 tree where the
// test's cgroup may have children with the pids and memory controllers.
func newCage(t *testing.T, maxTasks int, maxMem int64) (*cage, error) {
	t.Helper()
	own, err := ownCgroups()
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("loupe-attacks-%d-%d", os.Getpid(), time.Now().UnixNano())
	c := &cage{}
	if p, ok := own[""]; ok && fileExists("/sys/fs/cgroup/cgroup.controllers") {
		c.v2 = true
		parent := filepath.Join("/sys/fs/cgroup", p)
		_ = os.WriteFile(filepath.Join(parent, "cgroup.subtree_control"), []byte("+pids +memory"), 0)
		c.pids = filepath.Join(parent, name)
		c.mem = c.pids
	} else {
		pp, ok1 := own["pids"]
		mp, ok2 := own["memory"]
		if !ok1 || !ok2 {
			return nil, errors.New("this process is in no pids or memory cgroup")
		}
		c.pids = filepath.Join("/sys/fs/cgroup/pids", pp, name)
		c.mem = filepath.Join("/sys/fs/cgroup/memory", mp, name)
	}
	for _, d := range []string{c.pids, c.mem} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			c.destroy()
			return nil, fmt.Errorf("cannot make a cgroup: %w", err)
		}
	}
	t.Cleanup(c.destroy)
	limits := [][2]string{{filepath.Join(c.pids, "pids.max"), strconv.Itoa(maxTasks)}}
	if c.v2 {
		limits = append(limits, [2]string{filepath.Join(c.mem, "memory.max"), strconv.FormatInt(maxMem, 10)},
			[2]string{filepath.Join(c.mem, "memory.swap.max"), "0"})
	} else {
		limits = append(limits, [2]string{filepath.Join(c.mem, "memory.limit_in_bytes"), strconv.FormatInt(maxMem, 10)})
		if fileExists(filepath.Join(c.mem, "memory.memsw.limit_in_bytes")) {
			limits = append(limits, [2]string{filepath.Join(c.mem, "memory.memsw.limit_in_bytes"), strconv.FormatInt(maxMem, 10)})
		}
	}
	for _, kv := range limits {
		if err := os.WriteFile(kv[0], []byte(kv[1]), 0); err != nil && !strings.HasSuffix(kv[0], "swap.max") {
			return nil, fmt.Errorf("cannot set %s: %w", kv[0], err)
		}
	}
	return c, nil
}

// ownCgroups maps each controller of /proc/self/cgroup ("" for cgroup v2)
// to this process's cgroup path.
func ownCgroups() (map[string]string, error) {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, ctl := range strings.Split(parts[1], ",") {
			out[ctl] = parts[2]
		}
	}
	return out, sc.Err()
}

// add moves a process (all its threads) into the cage; what it starts
// afterwards is born inside.
func (c *cage) add(pid int) error {
	dirs := []string{c.pids}
	if c.mem != c.pids {
		dirs = append(dirs, c.mem)
	}
	for _, d := range dirs {
		if err := os.WriteFile(filepath.Join(d, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
			return fmt.Errorf("cannot move %d into %s: %w", pid, d, err)
		}
	}
	return nil
}

// tasksCapped says whether something in the cage was refused a new task
// because of the cap, and the most tasks it had at once.
func (c *cage) tasksCapped() (bool, string) {
	return readEvent(filepath.Join(c.pids, "pids.events"), "max") > 0, "peak " + readTrim(filepath.Join(c.pids, "pids.peak")) + " tasks"
}

// memoryCapped says whether the cage's memory cap was reached, and the
// most memory it used.
func (c *cage) memoryCapped() (bool, string) {
	if c.v2 {
		hit := readEvent(filepath.Join(c.mem, "memory.events"), "max") > 0
		return hit, "peak " + mib(readTrim(filepath.Join(c.mem, "memory.peak")))
	}
	n, _ := strconv.Atoi(readTrim(filepath.Join(c.mem, "memory.failcnt")))
	return n > 0, "peak " + mib(readTrim(filepath.Join(c.mem, "memory.max_usage_in_bytes")))
}

// procs lists the processes still in the cage.
func (c *cage) procs() []int {
	var out []int
	for _, f := range strings.Fields(readTrim(filepath.Join(c.pids, "cgroup.procs"))) {
		if pid, err := strconv.Atoi(f); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// destroy kills whatever is left in the cage and removes it.
func (c *cage) destroy() {
	for _, d := range []string{c.pids, c.mem} {
		if d == "" {
			continue
		}
		eventually(10*time.Second, func() bool {
			pids := strings.Fields(readTrim(filepath.Join(d, "cgroup.procs")))
			for _, p := range pids {
				if pid, err := strconv.Atoi(p); err == nil {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			return len(pids) == 0
		})
		eventually(5*time.Second, func() bool { return os.Remove(d) == nil || !fileExists(d) })
	}
}

func readTrim(path string) string {
	b, _ := os.ReadFile(path)
	return strings.TrimSpace(string(b))
}

// readEvent returns the count of key in a cgroup events file ("max 3").
func readEvent(path, key string) int {
	for _, line := range strings.Split(readTrim(path), "\n") {
		if k, v, ok := strings.Cut(line, " "); ok && k == key {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	return 0
}

func mib(bytes string) string {
	n, err := strconv.ParseInt(bytes, 10, 64)
	if err != nil {
		return "unknown"
	}
	return fmt.Sprintf("%d MiB", n>>20)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
