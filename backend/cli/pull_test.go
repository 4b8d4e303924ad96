package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/cli"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
)

// loupeCmd is loupe as a process: this test binary run as loupe (see
// TestMain), or $LOUPE_BIN. Its environment is the test's without a
// display unless env adds one.
func loupeCmd(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if b := os.Getenv("LOUPE_BIN"); b != "" {
		bin = b
	}
	cmd := exec.Command(bin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DISPLAY=") && !strings.HasPrefix(kv, "WAYLAND_DISPLAY=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(append(cmd.Env, asLoupe+"=1"), env...)
	return cmd
}

// runLoupe runs loupe to its end and returns its exit code and outputs.
func runLoupe(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := loupeCmd(t, env, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

func pullServer(t *testing.T) *ollamatest.Server {
	srv := ollamatest.New(t)
	srv.AddPullable(ollamatest.Pullable{Model: ollamatest.ModelSpec{Name: "qwen3:8b"}, Layers: []int64{5_000_000_000, 1_000}})
	return srv
}

func listed(t *testing.T, srv *ollamatest.Server, name string) bool {
	t.Helper()
	ms, err := ollama.New(srv.URL(), nil).Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return slices.ContainsFunc(ms, func(m ollama.ModelInfo) bool { return m.Name == name })
}

// Not on a terminal, loupe pull prints a line per step and per tenth of
// the bytes, never a carriage return, and exits 0 once the model is in.
func TestPullPrintsProgressLinesAndInstalls(t *testing.T) {
	srv := pullServer(t)
	code, out, stderr := runLoupe(t, nil, "pull", "qwen3:8b", "--host", srv.URL(), "--db", t.TempDir()+"/none.db")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(out, "\r") {
		t.Errorf("progress for a pipe rewrites lines:\n%q", out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for _, want := range []string{
		"qwen3:8b: pulling manifest",
		"qwen3:8b: pulling 2.3 GB of 4.7 GB (50%)",
		"qwen3:8b: verifying sha256 digest",
		"qwen3:8b: writing manifest",
		"qwen3:8b is installed",
	} {
		if !slices.Contains(lines, want) {
			t.Errorf("no line %q in:\n%s", want, out)
		}
	}
	if len(lines) > 20 {
		t.Errorf("%d lines for one pull: a log would fill with them\n%s", len(lines), out)
	}
	if !listed(t, srv, "qwen3:8b") {
		t.Error("the model is not installed after loupe pull")
	}
	// The database named was not created for a pull.
	if _, err := os.Stat(t.TempDir() + "/none.db"); err == nil {
		t.Error("loupe pull created a database")
	}
}

func TestPullWithoutNetworkExitsWithTheReason(t *testing.T) {
	srv := pullServer(t)
	srv.SetOffline(true)
	code, _, stderr := runLoupe(t, nil, "pull", "qwen3:8b", "--host", srv.URL())
	if code != cli.ExitEnded {
		t.Errorf("exit %d, want %d", code, cli.ExitEnded)
	}
	if !strings.Contains(stderr, "cannot reach the model registry") || !strings.Contains(stderr, "online") {
		t.Errorf("stderr does not say the network is the problem:\n%s", stderr)
	}
	if n := strings.Count(strings.TrimSpace(stderr), "\n"); n != 0 {
		t.Errorf("the failure takes %d lines, want one:\n%s", n+1, stderr)
	}
}

func TestPullOfAModelThatDoesNotExist(t *testing.T) {
	srv := pullServer(t)
	code, _, stderr := runLoupe(t, nil, "pull", "no-such-model", "--host", srv.URL())
	if code != cli.ExitEnded || !strings.Contains(stderr, `no model "no-such-model"`) {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

func TestPullWithOllamaDown(t *testing.T) {
	code, _, stderr := runLoupe(t, nil, "pull", "qwen3", "--host", deadHost(t))
	if code != cli.ExitFailed || !strings.Contains(stderr, "not running") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// Ctrl-C in the middle cancels the pull: the stream to Ollama is closed,
// loupe exits 130, and the model is not installed.
func TestPullCancelledByCtrlC(t *testing.T) {
	srv := pullServer(t)
	srv.SetPullDelay(150 * time.Millisecond)
	cmd := loupeCmd(t, nil, "pull", "qwen3:8b", "--host", srv.URL())
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if strings.Contains(sc.Text(), "% of") || strings.Contains(sc.Text(), "GB of") {
			break
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for sc.Scan() {
	}
	_ = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit %d after Ctrl-C, want 130: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "cancelled; qwen3:8b is not installed") {
		t.Errorf("stderr: %s", errb.String())
	}
	select {
	case <-srv.PullsCut("qwen3:8b"):
	case <-time.After(5 * time.Second):
		t.Fatal("Ollama's stream was not closed")
	}
	if listed(t, srv, "qwen3:8b") {
		t.Error("a cancelled pull installed the model")
	}
}

func TestPullCommandLine(t *testing.T) {
	for _, args := range [][]string{{"pull"}, {"pull", "a", "b"}, {"pull", "--nope", "a"}} {
		code, _, stderr := runLoupe(t, nil, args...)
		if code != cli.ExitUsage || strings.Contains(stderr, "no display") {
			t.Errorf("loupe %v: exit %d: %s", args, code, stderr)
		}
	}
	code, out, _ := runLoupe(t, nil, "pull", "--help")
	if code != 0 || !strings.Contains(out, "Usage: loupe pull NAME") {
		t.Errorf("loupe pull --help: exit %d: %s", code, out)
	}
}
