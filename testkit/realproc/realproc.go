// Package realproc starts the real programs the test tiers run (Ollama's
// server, Jaeger): it finds their binary, built and cached by a script
// under scripts/, starts one on free loopback ports with its output in a
// log file, waits until it answers, and kills it with everything it started.
package realproc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Proc is a started program, in a process group of its own.
type Proc struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when the program has exited
}

// Start starts cmd in a process group of its own, its output appended to
// the file log.
func Start(cmd *exec.Cmd, log string) (*Proc, error) {
	logf, err := os.OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logf.Close() // the child has its own copy
	cmd.Stdout, cmd.Stderr = logf, logf
	ownProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	p := &Proc{cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// WaitUp asks up every interval until it says yes. When the program exits
// first, or timeout passes (the program is then killed), it says so.
func (p *Proc) WaitUp(timeout, interval time.Duration, up func() bool) error {
	deadline := time.Now().Add(timeout)
	for {
		if up() {
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("%s exited before it answered: %v", filepath.Base(p.cmd.Path), p.cmd.ProcessState)
		case <-time.After(interval):
		}
		if time.Now().After(deadline) {
			p.Kill()
			return fmt.Errorf("%s did not answer within %v", filepath.Base(p.cmd.Path), timeout)
		}
	}
}

// Kill ends the program and what it started at once (SIGKILL), as a crash
// would, and waits until it has exited.
func (p *Proc) Kill() {
	killGroup(p.cmd)
	<-p.done
}

// Exited reports whether the program has ended.
func (p *Proc) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// PID is the program's process id, which is also its process group's.
func (p *Proc) PID() int { return p.cmd.Process.Pid }

// tries is how many sets of free ports OnFreePorts tries.
const tries = 3

// OnFreePorts calls start with n free loopback addresses (127.0.0.1:port)
// until it succeeds: another process may take a free port before the
// program binds it, so it tries a few sets before it gives up with the
// last error.
func OnFreePorts(n int, start func(addrs []string) error) error {
	var err error
	for range tries {
		addrs := make([]string, n)
		for i := range addrs {
			if addrs[i], err = FreeAddr(); err != nil {
				return fmt.Errorf("no free port: %w", err)
			}
		}
		if err = start(addrs); err == nil {
			return nil
		}
	}
	return err
}

// FreeAddr is a loopback address whose port was free a moment ago.
func FreeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// Binary is the path of a program's binary: the one the environment
// variable envVar names, if set, else the last line the build script
// (script, relative to the repository, e.g. scripts/real-jaeger/build.sh)
// prints when run with args. The script's progress is copied to progress
// when it is not nil.
func Binary(envVar, script string, progress io.Writer, args ...string) (string, error) {
	if bin := os.Getenv(envVar); bin != "" {
		if _, err := os.Stat(bin); err != nil {
			return "", fmt.Errorf("%s=%s: %w", envVar, bin, err)
		}
		return bin, nil
	}
	path, err := findScript(script)
	if err != nil {
		return "", fmt.Errorf("%v; set %s to a binary", err, envVar)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("bash", append([]string{path}, args...)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if progress != nil {
		cmd.Stderr = io.MultiWriter(progress, &stderr)
	}
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s failed (%v):\n%s", path, strings.Join(args, " "), err, Tail(strings.TrimSpace(stderr.String()), 4<<10))
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	bin := strings.TrimSpace(lines[len(lines)-1])
	if fi, err := os.Stat(bin); err != nil || fi.IsDir() {
		return "", fmt.Errorf("%s printed %q, which is not a binary", path, bin)
	}
	return bin, nil
}

// findScript finds rel above the working directory (go test runs in the
// package folder) or, failing that, above this file.
func findScript(rel string) (string, error) {
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if _, file, _, ok := runtime.Caller(0); ok {
		starts = append(starts, filepath.Dir(file))
	}
	for _, dir := range starts {
		for {
			p := filepath.Join(dir, rel)
			if _, err := os.Stat(p); err == nil {
				return p, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", errors.New("cannot find " + rel + " above " + strings.Join(starts, " or "))
}

// Tail is the end of s, at most n bytes, marked when cut.
func Tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
