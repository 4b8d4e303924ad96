// Package realserve starts and stops the real Ollama server through
// Loupe's own launcher (backend/localollama), as the window's Start Ollama
// button does, and pulls from it and deletes from it. It is part of the real Ollama tier: run
// with LOUPE_REAL_OLLAMA=1 (scripts/real-ollama/test.sh or scripts/test.sh).
package realserve_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/localollama"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/testkit/gguf"
	"github.com/loupe-dev/loupe/testkit/realollama"
)

// launcher is Loupe's launcher finding only the real tier's server binary,
// with the server's home and models in a temporary folder (it inherits
// Loupe's environment, as it does for a user).
func launcher(t *testing.T) (*localollama.Launcher, string) {
	t.Helper()
	realollama.Require(t)
	bin, err := realollama.Binary()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Setenv("HOME", filepath.Join(dir, "home"))
	t.Setenv("OLLAMA_MODELS", filepath.Join(dir, "models"))
	t.Setenv("OLLAMA_NO_CLOUD", "1")
	l := &localollama.Launcher{
		LogPath: filepath.Join(dir, "state", "ollama-serve.log"),
		Finder:  localollama.Finder{Path: filepath.Dir(bin), Places: []string{}},
	}
	t.Cleanup(func() { l.Stop() })
	return l, bin
}

func freeHost(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return "http://" + l.Addr().String()
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func version(host string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	return ollama.New(host, nil).Version(ctx)
}

// Start runs the real `ollama serve` on Loupe's host, which then answers
// with the pinned version and writes its log where Loupe says; Stop ends
// it, and nothing answers there any more.
func TestLauncherStartsAndStopsARealOllama(t *testing.T) {
	l, bin := launcher(t)
	host := freeHost(t)
	before := l.Describe(host)
	if !before.Installed || before.Binary != bin || before.BinaryVersion != "0.17.4" || before.StartedByLoupe {
		t.Fatalf("before the start: %+v", before)
	}
	got, err := l.Start(context.Background(), host)
	if err != nil {
		t.Fatal(err)
	}
	if got.AlreadyRunning || got.PID == 0 || got.Version != "0.17.4" {
		t.Fatalf("Start = %+v", got)
	}
	if v, err := version(host); err != nil || v != "0.17.4" {
		t.Fatalf("the started server answers %q, %v", v, err)
	}
	if st := l.Describe(host); !st.StartedByLoupe {
		t.Errorf("Describe after the start: %+v", st)
	}
	log, _ := os.ReadFile(l.LogPath)
	if !strings.Contains(string(log), "Listening on "+strings.TrimPrefix(host, "http://")) {
		t.Errorf("the log does not hold the server's output:\n%s", log)
	}
	// Starting again while it runs starts nothing new.
	again, err := l.Start(context.Background(), host)
	if err != nil || again.PID != got.PID || again.AlreadyRunning {
		t.Errorf("a second Start = %+v, %v", again, err)
	}

	if !l.Stop() {
		t.Fatal("Stop found nothing to stop")
	}
	if _, err := version(host); err == nil {
		t.Error("the server still answers after Stop")
	}
	if alive(got.PID) {
		t.Errorf("ollama serve (pid %d) still runs after Stop", got.PID)
	}
	if l.Describe(host).StartedByLoupe {
		t.Error("still described as started by Loupe after Stop")
	}
}

// A server Loupe did not start is never stopped by it: Start finds it
// answering and starts nothing, Stop leaves it running.
func TestLauncherNeverStopsAServerItDidNotStart(t *testing.T) {
	l, _ := launcher(t)
	theirs := realollama.Start(t)
	got, err := l.Start(context.Background(), theirs.URL())
	if err != nil || !got.AlreadyRunning || got.PID != 0 {
		t.Fatalf("Start with their server running = %+v, %v", got, err)
	}
	if st := l.Describe(theirs.URL()); st.StartedByLoupe {
		t.Errorf("their server is described as Loupe's: %+v", st)
	}
	if l.Stop() {
		t.Error("Stop stopped something")
	}
	if !theirs.Running() {
		t.Fatal("their server was stopped")
	}
	if _, err := version(theirs.URL()); err != nil {
		t.Errorf("their server no longer answers: %v", err)
	}

	// Loupe's own server on another host is stopped; theirs still runs.
	mine := freeHost(t)
	started, err := l.Start(context.Background(), mine)
	if err != nil || started.AlreadyRunning {
		t.Fatalf("Start on a free host = %+v, %v", started, err)
	}
	if !l.Stop() || alive(started.PID) {
		t.Error("Loupe's own server was not stopped")
	}
	if !theirs.Running() {
		t.Error("stopping Loupe's server stopped theirs")
	}
}

// When the port is taken by something that is not Ollama, the real server
// exits at once, and Loupe says why in Ollama's words, with the log.
func TestLauncherSaysWhyTheServerDidNotStart(t *testing.T) {
	l, _ := launcher(t)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	// Something listens, but it is not Ollama: it never answers HTTP.
	go func() {
		for {
			c, err := busy.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, err = l.Start(context.Background(), "http://"+busy.Addr().String())
	var se *localollama.StartError
	if !errors.As(err, &se) || !se.Exited {
		t.Fatalf("Start on a taken port = %v", err)
	}
	for _, want := range []string{"address already in use", l.LogPath} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// A registry that cannot be reached is reported by the real server the way
// a machine without a network sees it; Loupe names it so.
func TestRealPullWithoutTheRegistrySaysSo(t *testing.T) {
	l, _ := launcher(t)
	host := freeHost(t)
	if _, err := l.Start(context.Background(), host); err != nil {
		t.Fatal(err)
	}
	// A registry on a loopback port where nothing listens: the request for
	// the manifest fails to connect, as it does with no network.
	err := ollama.New(host, nil).Pull(context.Background(), "127.0.0.1:1/library/nothing", nil)
	var ne *ollama.PullNetworkError
	if !errors.As(err, &ne) {
		t.Fatalf("Pull from an unreachable registry = %T %v", err, err)
	}
	if !strings.Contains(err.Error(), "cannot reach the model registry") || !strings.Contains(ne.Message, "pull model manifest") {
		t.Errorf("message: %v", err)
	}
	ms, err := ollama.New(host, nil).Models(context.Background())
	if err != nil || len(ms) != 0 {
		t.Errorf("models after the failed pull: %v, %v", ms, err)
	}
}

// Delete removes a model from the real server: it is no longer listed,
// and deleting it again says it is not installed.
func TestRealDeleteRemovesTheModel(t *testing.T) {
	realollama.Require(t)
	srv := realollama.Start(t)
	srv.CreateModel(t, "scratch:1b", gguf.Script{Steps: []gguf.Step{{Answer: "Hi."}}})
	srv.CreateModel(t, "keep:1b", gguf.Script{Steps: []gguf.Step{{Answer: "Hi."}}})
	c := ollama.New(srv.URL(), nil)
	ctx := context.Background()
	if err := c.Delete(ctx, "scratch:1b"); err != nil {
		t.Fatal(err)
	}
	ms, err := c.Models(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 || ms[0].Name != "keep:1b" {
		t.Errorf("models after the delete: %+v", ms)
	}
	var nf *ollama.ModelNotFoundError
	if err := c.Delete(ctx, "scratch:1b"); !errors.As(err, &nf) {
		t.Errorf("deleting it again: %T %v", err, err)
	}
}
