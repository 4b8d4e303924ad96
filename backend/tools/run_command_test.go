package tools

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/testkit/procs"

	"github.com/loupe-dev/loupe/backend/sandbox"
)

func TestRunCommand(t *testing.T) {
	ws, dir := newWorkspace(t, map[string]string{"hello.txt": "hi there\n"})
	real, _ := filepath.EvalSymlinks(dir)
	tests := []struct {
		command string
		want    string
		code    int
	}{
		{"cat hello.txt", "hi there\nexit code 0", 0},
		{"echo out; echo err >&2; exit 3", "out\nerr\nexit code 3", 3},
		{"true", "(no output)\nexit code 0", 0},
		{"printf 'no newline'", "no newline\nexit code 0", 0},
		{"pwd -P", real + "\nexit code 0", 0},
	}
	for _, tt := range tests {
		res := mustRun(t, ws, "run_command", map[string]any{"command": tt.command})
		if res.Content != tt.want {
			t.Errorf("%s:\n%q\nwant:\n%q", tt.command, res.Content, tt.want)
		}
		if res.ExitCode == nil || *res.ExitCode != tt.code {
			t.Errorf("%s: ExitCode %v, want %d", tt.command, res.ExitCode, tt.code)
		}
		if res.IsError != (tt.code != 0) {
			t.Errorf("%s: IsError %v", tt.command, res.IsError)
		}
		if res.Display == nil || res.Display.Command != tt.command {
			t.Errorf("%s: Display %+v", tt.command, res.Display)
		}
	}
	if _, err := call(t, ws, "run_command", map[string]any{"command": "  "}); err == nil {
		t.Error("empty command: no error")
	}
}

func TestRunCommandTimeoutKillsEverything(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("checks /proc (linux)")
	}
	ws, _ := newWorkspace(t, nil)
	m := fmt.Sprintf("3600.%09d", rand.IntN(1_000_000_000))
	start := time.Now()
	res := mustRun(t, ws, "run_command", map[string]any{
		"command":    fmt.Sprintf("echo begun; sleep %[1]s & sh -c 'sleep %[1]s'", m),
		"timeout_ms": 300,
	})
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v with a 300ms timeout", d)
	}
	if !strings.HasPrefix(res.Content, "begun\ntimed out after 300ms; the command and everything it started were killed\nexit code ") {
		t.Errorf("content %q", res.Content)
	}
	if !res.IsError || res.ExitCode == nil || *res.ExitCode == 0 {
		t.Errorf("IsError %v ExitCode %v", res.IsError, res.ExitCode)
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		pids := procs.WithArg(m)
		if len(pids) == 0 {
			break
		}
		if time.Now().After(deadline) {
			for _, p := range pids {
				_ = syscall.Kill(p, syscall.SIGKILL)
			}
			t.Fatalf("still running after the timeout: %v", pids)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// recorder is a sandbox.Runner that records what it was asked to run.
type recorder struct {
	got []sandbox.Command
	out sandbox.Output
	err error
}

func (r *recorder) Run(_ context.Context, c sandbox.Command) (sandbox.Output, error) {
	r.got = append(r.got, c)
	return r.out, r.err
}

func TestRunCommandUsesRunner(t *testing.T) {
	ws, dir := newWorkspace(t, nil)
	tests := []struct {
		args    map[string]any
		timeout time.Duration
	}{
		{map[string]any{"command": "make"}, 120 * time.Second},
		{map[string]any{"command": "make", "timeout_ms": 1500}, 1500 * time.Millisecond},
		{map[string]any{"command": "make", "timeout_ms": 600000}, 10 * time.Minute},
	}
	for _, tt := range tests {
		r := &recorder{out: sandbox.Output{Text: "ok\n"}}
		if _, err := callWith(t, ws, r, "run_command", tt.args); err != nil {
			t.Fatal(err)
		}
		if len(r.got) != 1 {
			t.Fatalf("runner called %d times", len(r.got))
		}
		c := r.got[0]
		if c.Dir != dir || c.Script != "make" || c.Timeout != tt.timeout || c.OutputCap != runOutputCap {
			t.Errorf("%v: runner got %+v", tt.args, c)
		}
	}
}

func TestRunCommandReportsRunnerOutcome(t *testing.T) {
	ws, _ := newWorkspace(t, nil)
	tests := []struct {
		name    string
		out     sandbox.Output
		want    string
		isError bool
		trunc   bool
	}{
		{"truncated", sandbox.Output{Text: "head\n… [900 bytes omitted] …\ntail\n", Truncated: true, TotalBytes: 1000},
			"head\n… [900 bytes omitted] …\ntail\n[output was 1000 bytes; the middle was left out]\nexit code 0", false, true},
		{"cancelled", sandbox.Output{Text: "partial", Cancelled: true, ExitCode: 137},
			"partial\ncancelled; the command and everything it started were killed\nexit code 137", true, false},
		{"signal", sandbox.Output{ExitCode: 139},
			"(no output)\nexit code 139", true, false},
	}
	for _, tt := range tests {
		r := &recorder{out: tt.out}
		res, err := callWith(t, ws, r, "run_command", map[string]any{"command": "x"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Content != tt.want || res.IsError != tt.isError || res.Truncated != tt.trunc {
			t.Errorf("%s: %q IsError=%v Truncated=%v\nwant %q IsError=%v Truncated=%v",
				tt.name, res.Content, res.IsError, res.Truncated, tt.want, tt.isError, tt.trunc)
		}
	}
	r := &recorder{err: fmt.Errorf("sandbox: start /bin/sh: no such file")}
	if _, err := callWith(t, ws, r, "run_command", map[string]any{"command": "x"}); err == nil {
		t.Error("a start failure is not reported as an error")
	}
}

func TestRunCommandPreview(t *testing.T) {
	ws, dir := newWorkspace(t, nil)
	r := &recorder{}
	tool, _ := Builtins(ws, r).Get("run_command")
	d, err := tool.(Previewer).Preview(t.Context(), args(t, map[string]any{"command": "rm -rf build"}))
	if err != nil {
		t.Fatal(err)
	}
	if d.Command != "rm -rf build" || d.Path != dir {
		t.Errorf("preview %+v", d)
	}
	if len(r.got) != 0 {
		t.Error("preview ran the command")
	}
}
