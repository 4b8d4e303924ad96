package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The clients measured and the fake they talk to: a fresh workspace, the
// fake Ollama on a free port, one process of each client timed to its end.

type bench struct {
	c                 config
	root, ws, request string
}

// makeWorkspace writes a small project for list_dir to list.
func makeWorkspace(ws string) error {
	files := map[string]string{
		"README.md":          "# demo\n\nA small project.\n",
		"go.mod":             "module demo\n\ngo 1.22\n",
		"main.go":            "package main\n\nfunc main() {}\n",
		"docs/guide.md":      "# guide\n",
		"internal/util.go":   "package internal\n",
		"internal/util_test": "package internal\n",
	}
	for name, body := range files {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// fake is a running fakeollama.
type fake struct {
	cmd *exec.Cmd
	url string
}

// withFake runs fn with a fakeollama answering n rounds per conversation
// on a free loopback port, and stops it afterwards.
func (b *bench) withFake(ctx context.Context, n int, saveRequest string, fn func(*fake) error) error {
	args := []string{"-addr", "127.0.0.1:0", "-rounds", strconv.Itoa(n)}
	if saveRequest != "" {
		args = append(args, "-save-request", saveRequest)
	}
	cmd := exec.CommandContext(ctx, b.c.fake, args...)
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM} // even if this process is killed
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "fakeollama listening on "); ok {
				urls <- u
			}
		}
	}()
	select {
	case u := <-urls:
		return fn(&fake{cmd: cmd, url: u})
	case <-time.After(10 * time.Second):
		return errors.New("fakeollama did not say where it listens within 10 s")
	case <-ctx.Done():
		return ctx.Err()
	}
}

// cpu is the fake's user + system time so far, from /proc.
func (f *fake) cpu() time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", f.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// Fields after the command name, which is in parentheses: state is
	// field 3, utime 14 and stime 15.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(fields[11], 10, 64)
	st, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ
}

// measure runs one client process to its end and returns its output.
func (b *bench) measure(ctx context.Context, f *fake, name string, args ...string) (sample, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, b.c.timeout)
	defer cancel()
	outPath := filepath.Join(b.root, "stdout")
	out, err := os.Create(outPath)
	if err != nil {
		return sample{}, nil, err
	}
	defer os.Remove(outPath)
	defer out.Close()
	var stderr strings.Builder
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = out, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.Dir = b.root
	fake0 := f.cpu()
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	fake1 := f.cpu()
	if err != nil {
		return sample{}, nil, fmt.Errorf("%s: %v (time limit %v)\n%s", filepath.Base(name), err, b.c.timeout, tail(stderr.String(), 2000))
	}
	s := sample{wall: wall, fakeCPU: fake1 - fake0,
		cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		s.rssKB = ru.Maxrss
	}
	// Only the end of the output is read: it says how the run ended.
	if _, err := out.Seek(max(0, mustSize(out)-64<<10), io.SeekStart); err != nil {
		return s, nil, err
	}
	end, err := io.ReadAll(out)
	return s, end, err
}

func mustSize(f *os.File) int64 {
	fi, err := f.Stat()
	if err != nil {
		return 0
	}
	return fi.Size()
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

func lastLine(b []byte) []byte {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return []byte(lines[len(lines)-1])
}

func (b *bench) loupeArgs(f *fake, n int, db string) []string {
	return []string{"run", "--workspace", b.ws, "--model", "tiny", "--host", f.url, "--db", db,
		"--json", "--auto", "--max-rounds", strconv.Itoa(n), prompt}
}

// loupe runs `loupe run` on a fresh database and checks that it answered
// after n rounds.
func (b *bench) loupe(ctx context.Context, f *fake, n int, tag string) (sample, error) {
	db := filepath.Join(b.root, "loupe-"+tag+".db")
	defer removeDB(db)
	s, out, err := b.measure(ctx, f, b.c.loupe, b.loupeArgs(f, n, db)...)
	if err != nil {
		return s, err
	}
	return s, checkLoupeEnd(lastLine(out), n)
}

func removeDB(db string) {
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		os.Remove(db + suffix)
	}
}

func checkLoupeEnd(line []byte, n int) error {
	var ev struct {
		Kind    string `json:"kind"`
		Payload struct {
			Reason string `json:"reason"`
			Rounds int    `json:"rounds"`
		} `json:"payload"`
	}
	if err := json.Unmarshal(line, &ev); err != nil || ev.Kind != "run_end" {
		return fmt.Errorf("loupe's last line is not a run_end event: %.300s", line)
	}
	if ev.Payload.Reason != "answered" || ev.Payload.Rounds != n {
		return fmt.Errorf("loupe ended %q after %d rounds, want answered after %d", ev.Payload.Reason, ev.Payload.Rounds, n)
	}
	return nil
}

// peer runs peer.mjs and checks that it answered after n rounds.
func (b *bench) peer(ctx context.Context, f *fake, n int) (sample, error) {
	peer, err := filepath.Abs(b.c.peer)
	if err != nil {
		return sample{}, err
	}
	s, out, err := b.measure(ctx, f, b.c.node, peer, "--host", f.url, "--request", b.request,
		"--workspace", b.ws, "--max-rounds", strconv.Itoa(n))
	if err != nil {
		return s, err
	}
	var end struct {
		Rounds int `json:"rounds"`
	}
	if err := json.Unmarshal(lastLine(out), &end); err != nil || end.Rounds != n {
		return s, fmt.Errorf("the peer answered after %d rounds, want %d: %.300s", end.Rounds, n, out)
	}
	return s, nil
}
