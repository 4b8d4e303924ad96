package localollama_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/localollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
)

// These tests use programs written here as stand-ins for an ollama that
// misbehaves (one that exits at once, one that never answers), which the
// real server cannot be made to do on cue. The real server is started and
// stopped in testkit/realserve.

// program writes an executable script named ollama in a new folder and
// returns the folder.
func program(t *testing.T, script string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in programs are shell scripts")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ollama"), []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func deadAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestFinderLooksOnPathThenInTheUsualPlaces(t *testing.T) {
	onPath := program(t, "exit 0")
	elsewhere := program(t, "exit 0")
	empty := t.TempDir()
	place := filepath.Join(elsewhere, "ollama")
	if got := (localollama.Finder{Path: onPath, Places: []string{place}}).Find(); got != filepath.Join(onPath, "ollama") {
		t.Errorf("on PATH: %q", got)
	}
	if got := (localollama.Finder{Path: empty, Places: []string{place}}).Find(); got != place {
		t.Errorf("in a usual place: %q", got)
	}
	if got := (localollama.Finder{Path: empty, Places: []string{filepath.Join(empty, "ollama")}}).Find(); got != "" {
		t.Errorf("not installed, found %q", got)
	}
	// A file that cannot run is not the program.
	notExec := filepath.Join(t.TempDir(), "ollama")
	os.WriteFile(notExec, []byte("x"), 0o644)
	if got := (localollama.Finder{Path: filepath.Dir(notExec), Places: []string{}}).Find(); got != "" {
		t.Errorf("a file without the x bit was found: %q", got)
	}
}

func TestVersionReadsWhatTheProgramSays(t *testing.T) {
	// What ollama v0.17.4 prints with no server to ask.
	dir := program(t, `echo "Warning: could not connect to a running Ollama instance"; echo "Warning: client version is 0.17.4"`)
	if v := localollama.Version(filepath.Join(dir, "ollama")); v != "0.17.4" {
		t.Errorf("Version = %q", v)
	}
}

func TestIsLocal(t *testing.T) {
	for host, want := range map[string]bool{
		"http://127.0.0.1:11434":     true,
		"localhost:11434":            true,
		"http://[::1]:11434":         true,
		"http://192.168.1.20:11434":  false,
		"https://127.0.0.1:443":      false, // ollama serve speaks plain HTTP
		"http://127.0.0.1:80/ollama": false, // behind a proxy
		"gpu-box.lan":                false,
	} {
		if got := localollama.IsLocal(host); got != want {
			t.Errorf("IsLocal(%q) = %v", host, got)
		}
	}
}

func TestStartRefusesAHostOnAnotherMachine(t *testing.T) {
	l := &localollama.Launcher{LogPath: filepath.Join(t.TempDir(), "ollama.log")}
	_, err := l.Start(context.Background(), "http://192.168.1.20:11434")
	var nl *localollama.NotLocalError
	if !errors.As(err, &nl) || !strings.Contains(err.Error(), "not on this machine") {
		t.Errorf("Start on another machine = %v", err)
	}
}

func TestStartWithoutOllamaSaysHowToInstallIt(t *testing.T) {
	empty := t.TempDir()
	l := &localollama.Launcher{LogPath: filepath.Join(t.TempDir(), "ollama.log"), Finder: localollama.Finder{Path: empty, Places: []string{}}}
	_, err := l.Start(context.Background(), "http://"+deadAddr(t))
	if !errors.Is(err, localollama.ErrNotInstalled) || !strings.Contains(err.Error(), "https://ollama.com/download") {
		t.Errorf("Start without ollama = %v", err)
	}
	st := l.Describe("http://" + deadAddr(t))
	if st.Installed || st.InstallURL != "https://ollama.com/download" || !strings.Contains(st.Install, "not installed") {
		t.Errorf("Describe without ollama = %+v", st)
	}
}

// A server already answering is left alone: nothing is started, and Stop
// has nothing to stop.
func TestStartLeavesARunningServerAlone(t *testing.T) {
	srv := ollamatest.New(t)
	dir := program(t, `[ "$1" = --version ] && exit 0; echo started >> "$0.ran"; sleep 30`)
	l := &localollama.Launcher{LogPath: filepath.Join(t.TempDir(), "ollama.log"), Finder: localollama.Finder{Path: dir, Places: []string{}}}
	got, err := l.Start(context.Background(), srv.URL())
	if err != nil || !got.AlreadyRunning || got.Version != ollamatest.DefaultVersion {
		t.Fatalf("Start with a server running = %+v, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ollama.ran")); err == nil {
		t.Error("the program was run although a server answered")
	}
	if l.Stop() {
		t.Error("Stop stopped something Loupe did not start")
	}
	if l.Describe(srv.URL()).StartedByLoupe {
		t.Error("a server Loupe did not start is described as started by Loupe")
	}
}

// A server that exits at once is reported with the last line it wrote,
// and the log file holds all of it.
func TestStartOfAServerThatExitsSaysWhy(t *testing.T) {
	dir := program(t, `echo "Error: listen tcp $OLLAMA_HOST: bind: address already in use" >&2; exit 1`)
	log := filepath.Join(t.TempDir(), "logs", "ollama.log")
	l := &localollama.Launcher{LogPath: log, Finder: localollama.Finder{Path: dir, Places: []string{}}}
	addr := deadAddr(t)
	_, err := l.Start(context.Background(), "http://"+addr)
	var se *localollama.StartError
	if !errors.As(err, &se) || !se.Exited {
		t.Fatalf("Start = %v, want an exited StartError", err)
	}
	for _, want := range []string{"exited", "bind: address already in use", addr, log} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if b, _ := os.ReadFile(log); !strings.Contains(string(b), "address already in use") {
		t.Errorf("the log does not hold the server's output:\n%s", b)
	}
	if st := l.Describe("http://" + addr); !strings.Contains(st.LastError, "address already in use") {
		t.Errorf("Describe does not keep why the start failed: %+v", st)
	}
}

// A server that never answers is stopped after the timeout, with an error
// that says so.
func TestStartOfAServerThatNeverAnswersTimesOut(t *testing.T) {
	dir := program(t, "echo $$ > \"$0.pid\"; exec sleep 60")
	l := &localollama.Launcher{
		LogPath:      filepath.Join(t.TempDir(), "ollama.log"),
		Finder:       localollama.Finder{Path: dir, Places: []string{}},
		StartTimeout: 300 * time.Millisecond,
	}
	_, err := l.Start(context.Background(), "http://"+deadAddr(t))
	var se *localollama.StartError
	if !errors.As(err, &se) || se.Exited || !strings.Contains(err.Error(), "did not answer within 300ms") {
		t.Fatalf("Start = %v", err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "ollama.pid"))
	var pid int
	for _, c := range strings.TrimSpace(string(b)) {
		pid = pid*10 + int(c-'0')
	}
	if pid == 0 {
		t.Fatal("the program did not run")
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("the server that never answered (pid %d) still runs", pid)
	}
	if l.PID() != 0 {
		t.Error("the launcher still holds a server")
	}
}

// The status is read every few seconds: it must not wait for a start
// that is still waiting for its server.
func TestDescribeDoesNotWaitForAStart(t *testing.T) {
	dir := program(t, `[ "$1" = --version ] && exit 0; exec sleep 60`)
	l := &localollama.Launcher{
		LogPath:      filepath.Join(t.TempDir(), "ollama.log"),
		Finder:       localollama.Finder{Path: dir, Places: []string{}},
		StartTimeout: 3 * time.Second,
	}
	host := "http://" + deadAddr(t)
	done := make(chan error, 1)
	go func() {
		_, err := l.Start(context.Background(), host)
		done <- err
	}()
	time.Sleep(200 * time.Millisecond) // the start is waiting for its server
	begin := time.Now()
	st := l.Describe(host)
	if took := time.Since(begin); took > time.Second {
		t.Errorf("Describe waited %v for the start", took)
	}
	if !st.Installed || st.StartedByLoupe {
		t.Errorf("Describe during a start = %+v", st)
	}
	if err := <-done; err == nil {
		t.Error("a server that never answered was taken as started")
	}
}

// A log that has grown large over many starts is moved aside before the
// next start (one old copy is kept), and what the error quotes comes from
// this start only.
func TestLargeLogIsStartedAfresh(t *testing.T) {
	dir := program(t, `echo "Error: this start failed" >&2; exit 1`)
	log := filepath.Join(t.TempDir(), "ollama.log")
	old := strings.Repeat("an old line of an earlier start\n", (5<<20)/32)
	if err := os.WriteFile(log, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	l := &localollama.Launcher{LogPath: log, Finder: localollama.Finder{Path: dir, Places: []string{}}}
	_, err := l.Start(context.Background(), "http://"+deadAddr(t))
	var se *localollama.StartError
	if !errors.As(err, &se) {
		t.Fatalf("Start = %v, want a StartError", err)
	}
	if strings.Contains(se.Tail, "earlier start") || !strings.Contains(se.Tail, "this start failed") {
		t.Errorf("the error quotes %q, want this start's output only", se.Tail)
	}
	fi, err := os.Stat(log)
	if err != nil || fi.Size() > 1<<20 {
		t.Errorf("the log was not started afresh: %v, %d bytes", err, fi.Size())
	}
	if b, err := os.ReadFile(log + ".1"); err != nil || string(b) != old {
		t.Errorf("the previous log was not kept as %s.1 (%v)", filepath.Base(log), err)
	}
}
