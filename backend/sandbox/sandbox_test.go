package sandbox

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/loupe-dev/loupe/testkit/procs"
)

func requireLinux(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		// These tests inspect /proc to prove that processes are gone.
		t.Skip("needs /proc (linux)")
	}
}

// marker returns a sleep duration that no other process on the machine
// uses, so /proc can be searched for it.
func marker() string {
	return fmt.Sprintf("3600.%09d", rand.IntN(1_000_000_000))
}

// waitGone waits briefly (SIGKILL delivery is asynchronous) for every
// process with arg to be gone, and fails the test if some survive.
func waitGone(t *testing.T, arg string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		pids := liveWithArg(t, arg)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, p := range pids {
				_ = syscall.Kill(p, syscall.SIGKILL) // don't leak them past the test
			}
			t.Fatalf("processes with %q still alive: %v", arg, pids)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func run(t *testing.T, c Command) Output {
	t.Helper()
	if c.Dir == "" {
		c.Dir = t.TempDir()
	}
	out, err := Local{}.Run(context.Background(), c)
	if err != nil {
		t.Fatalf("Run(%q): %v", c.Script, err)
	}
	return out
}

func TestExitCodes(t *testing.T) {
	tests := []struct {
		script string
		want   int
	}{
		{"true", 0},
		{"exit 3", 3},
		{"false", 1},
		{"no-such-command-xyz 2>/dev/null", 127},
		{"kill -9 $$", 128 + 9},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			out := run(t, Command{Script: tt.script})
			if out.ExitCode != tt.want {
				t.Errorf("exit code = %d, want %d (output %q)", out.ExitCode, tt.want, out.Text)
			}
			if out.TimedOut || out.Cancelled || out.Truncated {
				t.Errorf("unexpected flags: %+v", out)
			}
		})
	}
}

func TestCombinedOutputInOrder(t *testing.T) {
	out := run(t, Command{Script: "echo one; echo two >&2; echo three; echo four >&2"})
	if want := "one\ntwo\nthree\nfour\n"; out.Text != want {
		t.Errorf("Text = %q, want %q", out.Text, want)
	}
	if out.TotalBytes != len(out.Text) {
		t.Errorf("TotalBytes = %d, want %d", out.TotalBytes, len(out.Text))
	}
}

func TestRunsInDir(t *testing.T) {
	dir := t.TempDir()
	out := run(t, Command{Dir: dir, Script: "pwd -P"})
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(out.Text) != real {
		t.Errorf("pwd = %q, want %q", out.Text, real)
	}
}

func TestStartFailureIsError(t *testing.T) {
	_, err := Local{}.Run(context.Background(), Command{Dir: filepath.Join(t.TempDir(), "missing"), Script: "true"})
	if err == nil {
		t.Error("missing Dir: want an error")
	}
	_, err = Local{Shell: "/no/such/shell"}.Run(context.Background(), Command{Dir: t.TempDir(), Script: "true"})
	if err == nil {
		t.Error("missing shell: want an error")
	}
}

func TestTimeoutKillsTree(t *testing.T) {
	requireLinux(t)
	m := marker()
	// A background job, a nested shell with its own child, and a
	// foreground sleep: all of them must die.
	script := fmt.Sprintf("sleep %[1]s & sh -c 'sleep %[1]s; echo never' & echo started; sleep %[1]s", m)
	start := time.Now()
	out := run(t, Command{Script: script, Timeout: 300 * time.Millisecond})
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Run took %v after a 300ms timeout", d)
	}
	if !out.TimedOut || out.Cancelled {
		t.Errorf("TimedOut=%v Cancelled=%v, want timed out", out.TimedOut, out.Cancelled)
	}
	if out.ExitCode == 0 {
		t.Errorf("exit code 0 for a killed command")
	}
	if !strings.Contains(out.Text, "started") {
		t.Errorf("output before the timeout lost: %q", out.Text)
	}
	waitGone(t, m)
}

func TestCancelKillsTree(t *testing.T) {
	requireLinux(t)
	m := marker()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	script := fmt.Sprintf("sleep %[1]s & sh -c 'sleep %[1]s' & sleep %[1]s", m)
	start := time.Now()
	out, err := Local{}.Run(ctx, Command{Dir: t.TempDir(), Script: script, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Run took %v after cancel", d)
	}
	if !out.Cancelled || out.TimedOut {
		t.Errorf("Cancelled=%v TimedOut=%v, want cancelled", out.Cancelled, out.TimedOut)
	}
	waitGone(t, m)
}

func TestCancelledBeforeStartRunsNothing(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out, err := Local{}.Run(ctx, Command{Dir: dir, Script: "touch ran"})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Cancelled {
		t.Error("Cancelled = false")
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Error("the command ran although ctx was already cancelled")
	}
}

func TestBackgroundJobReturnsPromptly(t *testing.T) {
	requireLinux(t)
	m := marker()
	start := time.Now()
	// A long WaitDelay proves that Run does not merely give up on the pipe
	// after a delay: killing the group is what releases it.
	out, err := Local{WaitDelay: 10 * time.Second}.Run(context.Background(),
		Command{Dir: t.TempDir(), Script: "sleep " + m + " & echo done"})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Run took %v; a background job held it", d)
	}
	if out.Text != "done\n" || out.ExitCode != 0 || out.TimedOut {
		t.Errorf("got %+v, want done with exit 0", out)
	}
	waitGone(t, m)
}

func TestEscapedGrandchildCannotHang(t *testing.T) {
	requireLinux(t)
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid not installed; it is how this test leaves the process group")
	}
	m := marker()
	t.Cleanup(func() {
		// setsid took the sleep out of the group on purpose; end it here.
		for _, p := range liveWithArg(t, m) {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	})
	start := time.Now()
	out, err := Local{WaitDelay: 200 * time.Millisecond}.Run(context.Background(),
		Command{Dir: t.TempDir(), Script: "setsid sleep " + m + " & echo done", Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Run took %v; a process outside the group held the pipe", d)
	}
	if !strings.Contains(out.Text, "done") {
		t.Errorf("Text = %q", out.Text)
	}
}

func TestOutputCapKeepsHeadAndTail(t *testing.T) {
	script := `i=0; while [ $i -lt 2000 ]; do echo "line $i"; i=$((i+1)); done`
	var full strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&full, "line %d\n", i)
	}
	out := run(t, Command{Script: script, OutputCap: 1000})
	if !out.Truncated {
		t.Fatal("Truncated = false")
	}
	if out.TotalBytes != full.Len() {
		t.Errorf("TotalBytes = %d, want %d", out.TotalBytes, full.Len())
	}
	head, tail, ok := strings.Cut(out.Text, "\n… [")
	if !ok {
		t.Fatalf("no omission marker in %q", out.Text)
	}
	n, rest, _ := strings.Cut(tail, " bytes omitted] …\n")
	omitted, err := strconv.Atoi(n)
	if err != nil {
		t.Fatalf("marker count %q: %v", n, err)
	}
	if len(head) != 500 || len(rest) != 500 {
		t.Errorf("kept %d head and %d tail bytes, want 500 each", len(head), len(rest))
	}
	if !strings.HasPrefix(full.String(), head) || !strings.HasSuffix(full.String(), rest) {
		t.Errorf("head/tail are not the start/end of the output:\n%q\n%q", head, rest)
	}
	if omitted != full.Len()-len(head)-len(rest) {
		t.Errorf("omitted = %d, want %d", omitted, full.Len()-len(head)-len(rest))
	}

	small := run(t, Command{Script: "echo hello", OutputCap: 1000})
	if small.Truncated || small.Text != "hello\n" {
		t.Errorf("under the cap: %+v", small)
	}
}

func TestRunawayOutputIsStopped(t *testing.T) {
	start := time.Now()
	out, err := Local{OutputLimit: 4 << 20}.Run(context.Background(),
		Command{Dir: t.TempDir(), Script: "yes", OutputCap: 2000, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("yes ran for %v", d)
	}
	if out.TimedOut || !out.OverLimit || !out.Truncated {
		t.Errorf("TimedOut=%v OverLimit=%v Truncated=%v, want killed for output", out.TimedOut, out.OverLimit, out.Truncated)
	}
	if len(out.Text) > 2200 {
		t.Errorf("kept %d bytes with a 2000-byte cap", len(out.Text))
	}
	if out.TotalBytes < 4<<20 {
		t.Errorf("TotalBytes = %d, below the limit that killed it", out.TotalBytes)
	}
	if !strings.HasPrefix(out.Text, "y\ny\n") || !strings.Contains(out.Text, "command killed") {
		t.Errorf("Text = %q", out.Text)
	}
}

func TestStdinIsDevNull(t *testing.T) {
	start := time.Now()
	out := run(t, Command{Script: "cat; echo eof", Timeout: 10 * time.Second})
	if time.Since(start) > 5*time.Second || out.TimedOut {
		t.Fatal("cat waited for input")
	}
	if out.Text != "eof\n" {
		t.Errorf("Text = %q", out.Text)
	}
	if runtime.GOOS == "linux" {
		out := run(t, Command{Script: "readlink /proc/self/fd/0"})
		if strings.TrimSpace(out.Text) != os.DevNull {
			t.Errorf("stdin is %q", out.Text)
		}
	}
}

func TestEnvironmentScrubbed(t *testing.T) {
	t.Setenv("GITHUB_TOKEN", "tok")
	t.Setenv("OPENAI_API_KEY", "key")
	t.Setenv("MY_SECRET_STUFF", "s")
	t.Setenv("DB_PASSWORD", "p")
	t.Setenv("SSH_AUTH_SOCK", "/tmp/agent.sock")
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/x")
	t.Setenv("LC_API_KEY", "k")
	t.Setenv("LC_ALL", "C")
	t.Setenv("SOME_OTHER_VAR", "x")
	t.Setenv("HOME", "/home/tester")
	t.Setenv("TERM", "xterm-256color")
	t.Setenv("PAGER", "less")

	out := run(t, Command{Script: "env"})
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out.Text), "\n") {
		k, v, _ := strings.Cut(line, "=")
		got[k] = v
	}
	for _, k := range []string{"GITHUB_TOKEN", "OPENAI_API_KEY", "MY_SECRET_STUFF", "DB_PASSWORD",
		"SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS", "LC_API_KEY", "SOME_OTHER_VAR"} {
		if v, ok := got[k]; ok {
			t.Errorf("%s=%q reached the command", k, v)
		}
	}
	want := map[string]string{
		"HOME": "/home/tester", "LC_ALL": "C", "TERM": "dumb", "PAGER": "cat", "GIT_PAGER": "cat",
		"EDITOR": "false", "VISUAL": "false", "GIT_TERMINAL_PROMPT": "0", "CI": "1",
		"PATH": os.Getenv("PATH"),
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}

func TestEnvironDefaultsPath(t *testing.T) {
	env := Environ([]string{"HOME=/h", "FOO=bar"})
	joined := strings.Join(env, "\n")
	if !strings.Contains(joined, "PATH="+defaultPath) {
		t.Errorf("no default PATH in %v", env)
	}
	if strings.Contains(joined, "FOO") {
		t.Errorf("FOO passed through: %v", env)
	}
	if strings.Count(joined, "TERM=") != 1 {
		t.Errorf("TERM set %d times: %v", strings.Count(joined, "TERM="), env)
	}
}

func TestCapBufferWriteSizesAgree(t *testing.T) {
	data := []byte(strings.Repeat("abcdefghij", 1000))
	for _, chunk := range []int{1, 7, 100, 499, 500, 501, 4096, len(data)} {
		b := newCapBuffer(1000)
		for p := data; len(p) > 0; {
			n := min(chunk, len(p))
			b.Write(p[:n])
			p = p[n:]
		}
		got, trunc := b.String()
		want := string(data[:500]) + fmt.Sprintf("\n… [%d bytes omitted] …\n", len(data)-1000) + string(data[len(data)-500:])
		if !trunc || got != want {
			t.Errorf("chunk %d: got %q…", chunk, got[:min(len(got), 80)])
		}
	}
}

func TestCapBufferKeepsRunesWhole(t *testing.T) {
	// 3-byte runes with a 10-byte cap: the head (5 bytes) and tail (5
	// bytes) both fall in the middle of a rune.
	s := strings.Repeat("€", 20)
	b := newCapBuffer(10)
	b.Write([]byte(s))
	got, trunc := b.String()
	if !trunc || !utf8.ValidString(got) {
		t.Fatalf("got %q, truncated %v", got, trunc)
	}
	if !strings.HasPrefix(got, "€\n… [54 bytes omitted] …\n€") {
		t.Errorf("got %q", got)
	}
}

// liveWithArg lists live processes with arg on their command line.
func liveWithArg(t *testing.T, arg string) []int {
	t.Helper()
	return procs.WithArg(arg)
}
