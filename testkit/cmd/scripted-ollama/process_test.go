//go:build linux

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/testkit/realollama"
)

// TestCommand builds the command, runs it as a process, has its model answer
// a chat (which starts a model runner), then stops it each way it can be
// stopped, and checks that no process of the server's group is left.
func TestCommand(t *testing.T) {
	realollama.Require(t)
	bin, err := realollama.Binary()
	if err != nil {
		t.Fatalf("no Ollama server binary: %v", err)
	}
	exe := filepath.Join(t.TempDir(), "scripted-ollama")
	build := exec.Command("go", "build", "-o", exe, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	for _, how := range []string{"stdin closed", "SIGTERM", "SIGINT", "parent died"} {
		t.Run(how, func(t *testing.T) {
			serverLog := filepath.Join(t.TempDir(), "server.log")
			cmd := exec.Command(exe, "-script", "testdata/list_dir.json", "-server-log", serverLog)
			cmd.Env = append(os.Environ(), realollama.BinEnvVar+"="+bin)
			stderr := &syncBuffer{}
			errR, errW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stderr = errW
			go func() { _, _ = io.Copy(stderr, errR) }()
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			errW.Close()
			t.Cleanup(func() { errR.Close() })
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			pgid := 0 // the server's process group, once known
			// If the test stops early: ask the command to stop, as a SIGKILL
			// would leave the server behind, and kill the group if it did not.
			t.Cleanup(func() {
				_ = cmd.Process.Signal(syscall.SIGTERM)
				select {
				case <-exited:
				case <-time.After(10 * time.Second):
					_ = cmd.Process.Kill()
				}
				if pgid > 0 && groupLeft(pgid) > 0 {
					t.Errorf("processes of the server's group %d left: killing them", pgid)
					_ = syscall.Kill(-pgid, syscall.SIGKILL)
				}
			})

			lines := bufio.NewScanner(stdout)
			if !lines.Scan() {
				t.Fatalf("no line on stdout; stderr:\n%s", stderr.String())
			}
			url, ok := strings.CutPrefix(lines.Text(), "scripted-ollama listening on ")
			if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") {
				t.Fatalf("first line %q", lines.Text())
			}
			// Written before the line on stdout, but copied from its pipe
			// by another goroutine.
			var m []string
			for end := time.Now().Add(5 * time.Second); m == nil && time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
				m = regexp.MustCompile(`ollama serve pid (\d+)`).FindStringSubmatch(stderr.String())
			}
			if m == nil {
				t.Fatalf("no server pid on stderr:\n%s", stderr.String())
			}
			pgid, _ = strconv.Atoi(m[1])

			// The model follows its script: the call comes from Ollama's parser.
			reply := chat(t, url)
			if len(reply.Message.ToolCalls) != 1 || reply.Message.ToolCalls[0].Function.Name != "list_dir" {
				t.Fatalf("reply %+v", reply)
			}
			if n := groupSize(pgid); n < 2 {
				t.Errorf("%d processes in the server's group after a chat; want the server and a runner", n)
			}

			switch how {
			case "stdin closed":
				stdin.Close()
			case "SIGTERM":
				_ = cmd.Process.Signal(syscall.SIGTERM)
			case "SIGINT":
				_ = cmd.Process.Signal(syscall.SIGINT)
			case "parent died":
				// All three pipes close; what the command writes to stderr
				// when it sees the end of stdin finds no reader.
				stdout.Close()
				errR.Close()
				stdin.Close()
			}
			select {
			case err := <-exited:
				exited <- err // for the cleanup, which waits too
				if err != nil {
					t.Errorf("exit: %v\nstderr:\n%s", err, stderr.String())
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("still running 20 s after %s; stderr:\n%s", how, stderr.String())
			}
			if n := groupLeft(pgid); n != 0 {
				t.Errorf("%d processes of the server's group left after %s", n, how)
			}
			if _, err := http.Get(url + "/api/version"); err == nil {
				t.Error("the server still answers")
			}
			if b, err := os.ReadFile(serverLog); err != nil || !bytes.Contains(b, []byte("/api/chat")) {
				t.Errorf("server log copy: %v, %d bytes", err, len(b))
			}
		})
	}
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

type chatReply struct {
	Message struct {
		Content   string `json:"content"`
		ToolCalls []struct {
			Function struct{ Name string } `json:"function"`
		} `json:"tool_calls"`
	} `json:"message"`
}

func chat(t *testing.T, url string) chatReply {
	t.Helper()
	body := `{"model": "scripted", "stream": false, "messages": [{"role": "user", "content": "What is here?"}],
		"tools": [{"type": "function", "function": {"name": "list_dir", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}]}`
	resp, err := http.Post(url+"/api/chat", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var r chatReply
	if resp.StatusCode != http.StatusOK || json.Unmarshal(b, &r) != nil {
		t.Fatalf("/api/chat: %s: %s", resp.Status, b)
	}
	return r
}

// groupSize counts the live (not zombie) processes of process group pgid.
func groupSize(pgid int) int {
	n := 0
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		if _, err := strconv.Atoi(d.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp …; comm may hold spaces.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			n++
		}
	}
	return n
}

// groupLeft waits up to 5 s for process group pgid to empty and returns how
// many of its processes are left.
func groupLeft(pgid int) int {
	deadline := time.Now().Add(5 * time.Second)
	for {
		if errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) {
			return 0
		}
		n := groupSize(pgid)
		if n == 0 || time.Now().After(deadline) {
			return n
		}
		time.Sleep(100 * time.Millisecond)
	}
}
