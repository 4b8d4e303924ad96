package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/loupe-dev/loupe/backend/cli"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/invariants"
	"github.com/loupe-dev/loupe/testkit/procs"
)

// loupeProc is `loupe run` in a process of its own: this test binary run
// as loupe (see TestMain), or $LOUPE_BIN when set, to test a built loupe.
type loupeProc struct {
	cmd    *exec.Cmd
	stderr *lockedWriter
	kinds  chan trace.Kind // of each event printed, in order
	exited chan struct{}
	err    error // of Wait, once exited is closed
}

func startLoupe(t *testing.T, args ...string) *loupeProc {
	t.Helper()
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), asLoupe+"=1")
	if b := os.Getenv("LOUPE_BIN"); b != "" {
		bin = b
	}
	p := &loupeProc{cmd: exec.Command(bin, args...), stderr: &lockedWriter{}, kinds: make(chan trace.Kind, 1000), exited: make(chan struct{})}
	p.cmd.Env = env
	p.cmd.Stderr = p.stderr
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var e trace.Event
			if json.Unmarshal(sc.Bytes(), &e) == nil {
				p.kinds <- e.Kind
			}
		}
		close(p.kinds)
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			p.cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

// waitFor waits until the process has printed an event of kind.
func (p *loupeProc) waitFor(t *testing.T, kind trace.Kind) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case k, ok := <-p.kinds:
			if !ok {
				t.Fatalf("loupe exited before a %s event: %v\n%s", kind, p.err, p.stderr)
			}
			if k == kind {
				return
			}
		case <-timeout:
			t.Fatalf("no %s event after 10s\n%s", kind, p.stderr)
		}
	}
}

// wait returns the exit code once the process exits, within d.
func (p *loupeProc) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-p.exited:
	case <-time.After(d):
		t.Fatalf("loupe still runs %v after it was told to stop\n%s", d, p.stderr)
	}
	var ee *exec.ExitError
	switch {
	case p.err == nil:
		return 0
	case errors.As(p.err, &ee):
		// -1 when a signal killed it: it did not handle the signal.
		return ee.ExitCode()
	}
	t.Fatalf("wait: %v", p.err)
	return 0
}

// waitStderr waits until the process has written s to its stderr.
func (p *loupeProc) waitStderr(t *testing.T, s string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(p.stderrText(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("loupe did not write %q to stderr in 10s:\n%s", s, p.stderrText())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (p *loupeProc) stderrText() string { return p.stderr.String() }

// lockedWriter is a buffer the process writes to while tests read it.
type lockedWriter struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(b)
}

func (l *lockedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// onlySessionLog is the log of the one session in the database at path.
func onlySessionLog(t *testing.T, path string) []trace.Event {
	t.Helper()
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ss, err := st.ListSessions(context.Background())
	if err != nil || len(ss) != 1 {
		t.Fatalf("sessions = %+v, %v; want one", ss, err)
	}
	evs, err := st.Events(context.Background(), ss[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// stopSignals are the signals that must stop `loupe run` cleanly.
var stopSignals = []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT}

var signalNames = map[syscall.Signal]string{syscall.SIGTERM: "SIGTERM", syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT"}

// A stop signal, while the model streams or while a command runs, ends
// `loupe run` as Stop does: the open call is answered, the run_end says the
// run was stopped, the command is gone, the database is closed, and the exit
// code says which signal it was.
func TestRunStopsCleanlyOnSignals(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM or SIGHUP to send on Windows")
	}
	for _, sig := range stopSignals {
		for _, during := range []string{"stream", "command"} {
			if sig == syscall.SIGINT && during == "command" {
				continue // SIGINT was handled before; once is enough
			}
			t.Run(signalNames[sig]+" during the "+during, func(t *testing.T) {
				e := setup(t)
				// A unique argument, to find the command's process by.
				sleep := fmt.Sprintf("61.%06d", time.Now().Nanosecond()/1000)
				args := []string{"run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "--json", "--auto"}
				if during == "stream" {
					// Fifty words, a tenth of a second apart.
					e.srv.Script(ollamatest.Reply{Chunks: slices50("word "), Delay: 100 * time.Millisecond})
				} else {
					e.srv.Script(
						ollamatest.Reply{ToolCalls: []ollamatest.Call{{ID: "call_sleep", Name: "run_command", Args: `{"command":"sleep ` + sleep + `"}`}}},
						ollamatest.Text("The command finished."),
					)
				}
				p := startLoupe(t, append(args, "work slowly")...)
				if during == "stream" {
					p.waitFor(t, trace.KindModelRequest)
					time.Sleep(350 * time.Millisecond) // a few words in
				} else {
					p.waitFor(t, trace.KindToolCall)
					deadline := time.Now().Add(5 * time.Second)
					for len(procs.WithArg(sleep)) == 0 {
						if time.Now().After(deadline) {
							t.Fatalf("the command never started\n%s", p.stderr)
						}
						time.Sleep(10 * time.Millisecond)
					}
				}
				if err := p.cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
				code := p.wait(t, 10*time.Second)
				if want := 128 + int(sig); code != want || code != cli.ExitSignal(sig) {
					t.Errorf("exit code %d, want %d\n%s", code, want, p.stderr)
				}
				if !strings.Contains(p.stderr.String(), "stopping the run") {
					t.Errorf("stderr does not say the run is being stopped:\n%s", p.stderr)
				}

				// The database was closed: SQLite removes the write-ahead
				// log when its last connection closes properly.
				if _, err := os.Stat(e.db + "-wal"); !os.IsNotExist(err) {
					t.Errorf("%s-wal is still there (%v): the database was not closed", e.db, err)
				}
				evs := onlySessionLog(t, e.db)
				invariants.Check(t, evs)
				last := evs[len(evs)-1]
				if last.Kind != trace.KindRunEnd {
					t.Fatalf("the log ends with %s, want run_end", last.Kind)
				}
				end, err := trace.Decode[trace.RunEnd](last)
				if err != nil || end.Reason != trace.EndCancelled || end.Detail != "stopped by "+signalNames[sig] {
					t.Errorf("run_end = %+v (%v), want cancelled, stopped by %s", end, err, signalNames[sig])
				}
				for _, e := range evs {
					if r, err := trace.Decode[trace.ToolResult](e); err == nil && r.ErrorKind == trace.ErrCancelled && !strings.Contains(r.Content, signalNames[sig]+" stopped the run") {
						t.Errorf("a cancelled call does not say the signal stopped it: %q", r.Content)
					}
				}
				if during == "stream" {
					checkPartialKept(t, evs)
					select {
					case <-e.srv.HungUp(1):
					case <-time.After(2 * time.Second):
						t.Error("the fake still streams to a stopped loupe")
					}
				} else {
					checkCancelled(t, evs, "call_sleep")
					if left := procs.WithArg(sleep); len(left) > 0 {
						t.Errorf("the command outlived loupe: pids %v", left)
					}
				}
			})
		}
	}
}

func slices50(word string) []ollamatest.Chunk {
	out := make([]ollamatest.Chunk, 50)
	for i := range out {
		out[i] = ollamatest.Chunk{Content: word}
	}
	return out
}

// checkPartialKept: the answer cut by the stop is in the log, marked
// incomplete, with the words that had come.
func checkPartialKept(t *testing.T, evs []trace.Event) {
	t.Helper()
	for _, e := range evs {
		if e.Kind == trace.KindModelResponse {
			r, err := trace.Decode[trace.ModelResponse](e)
			if err != nil || !r.Incomplete || !strings.HasPrefix(r.Content, "word ") || len(r.Content) >= 50*len("word ") {
				t.Errorf("model_response = incomplete %v, %q (%v); want the words so far, marked incomplete", r.Incomplete, r.Content, err)
			}
			return
		}
	}
	t.Error("no model_response: the partial answer was not kept")
}

// checkCancelled: the call has one result, and it says it was cancelled.
func checkCancelled(t *testing.T, evs []trace.Event, id string) {
	t.Helper()
	for _, e := range evs {
		if e.Kind == trace.KindToolResult {
			r, err := trace.Decode[trace.ToolResult](e)
			if err == nil && r.CallID == id {
				if r.ErrorKind != trace.ErrCancelled || !r.IsError {
					t.Errorf("result of %s = %+v, want cancelled", id, r)
				}
				return
			}
		}
	}
	t.Errorf("no result for %s", id)
}

// A second signal does not wait for the clean stop: here that stop cannot
// write its events, because the test holds the database's write lock, so
// it would wait out SQLite's 10-second busy timeout. The process exits at
// once, with the same code, and leaves the run open for recovery.
func TestRunSecondSignalExitsAtOnce(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM to send on Windows")
	}
	e := setup(t)
	e.srv.Script(ollamatest.Reply{Chunks: slices50("word "), Delay: 100 * time.Millisecond})
	p := startLoupe(t, "run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "--json", "work slowly")
	p.waitFor(t, trace.KindModelRequest)

	db, err := sql.Open("sqlite", "file:"+e.db+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	// Once loupe says so, the first signal was taken (two signals sent
	// together may arrive as one), and the clean stop soon waits on the lock.
	p.waitStderr(t, "SIGTERM: stopping the run")
	time.Sleep(200 * time.Millisecond)
	select {
	case <-p.exited:
		t.Fatalf("loupe exited before the second signal, while its stop could not write: %v\n%s", p.err, p.stderr)
	default:
	}
	start := time.Now()
	p.cmd.Process.Signal(syscall.SIGTERM)
	code := p.wait(t, 3*time.Second)
	if took := time.Since(start); code != 143 || took > 2*time.Second {
		t.Fatalf("exit code %d after %v, want 143 at once\n%s", code, took, p.stderr)
	}
	if !strings.Contains(p.stderr.String(), "a second signal (SIGTERM): quitting now") {
		t.Errorf("stderr does not say why it quit:\n%s", p.stderr)
	}
	if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	db.Close()

	// The run is open, and recovery closes it with every call answered.
	evs := onlySessionLog(t, e.db)
	if st := trace.StateOf(evs); !st.Open {
		t.Fatalf("the run was closed although loupe quit at once: %v", evs[len(evs)-1].Kind)
	}
	st, err := store.Open(e.db)
	if err != nil {
		t.Fatal(err)
	}
	if err := session.NewManager(st, nil, nil, nil).Recover(context.Background()); err != nil {
		t.Fatal(err)
	}
	st.Close()
	evs = onlySessionLog(t, e.db)
	invariants.Check(t, evs)
	if last := evs[len(evs)-1]; last.Kind != trace.KindRunEnd {
		t.Errorf("after recovery the log ends with %s", last.Kind)
	}
}

// A reader of --json that goes away (| head -n 1) stops the run as Stop
// does: the pipe's SIGPIPE does not kill loupe and leave its run open.
func TestRunStopsCleanlyWhenItsReaderGoesAway(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGPIPE on Windows")
	}
	e := setup(t)
	e.srv.Script(ollamatest.Reply{Chunks: slices50("word "), Delay: 100 * time.Millisecond})
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if b := os.Getenv("LOUPE_BIN"); b != "" {
		bin = b
	}
	cmd := exec.Command(bin, "run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "--json", "--auto", "work slowly")
	cmd.Env = append(os.Environ(), asLoupe+"=1")
	stderr := &lockedWriter{}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Read one line, as head -n 1 does, and close the pipe.
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.Contains(line, `"user_message"`) {
		t.Fatalf("first line %q, %v", line, err)
	}
	out.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("loupe still runs after its reader went away\n%s", stderr)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 128+int(syscall.SIGPIPE) {
		t.Fatalf("exit: %v, want %d\n%s", err, 128+int(syscall.SIGPIPE), stderr)
	}
	evs := onlySessionLog(t, e.db)
	invariants.Check(t, evs)
	if last := evs[len(evs)-1]; last.Kind != trace.KindRunEnd {
		t.Fatalf("the log ends with %s, want run_end\n%s", last.Kind, stderr)
	}
}
