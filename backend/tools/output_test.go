package tools

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/loupe-dev/loupe/backend/sandbox"
	"github.com/loupe-dev/loupe/testkit/procs"
)

// sent is what a call's output sink was given, and when.
type sent struct {
	mu   sync.Mutex
	outs []Output
	at   []time.Time
}

func (s *sent) send(o Output) {
	s.mu.Lock()
	s.outs = append(s.outs, o)
	s.at = append(s.at, time.Now())
	s.mu.Unlock()
}

func (s *sent) text(stream string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for _, o := range s.outs {
		for _, p := range o.Pieces {
			if p.Stream == stream {
				b.WriteString(p.Text)
			}
		}
	}
	return b.String()
}

// runStreaming runs run_command through the real (unconfined) sandbox
// with an output sink, as the agent runs it.
func runStreaming(t *testing.T, ctx context.Context, command string) (Result, *sent, time.Time) {
	t.Helper()
	ws, _ := newWorkspace(t, nil)
	s := &sent{}
	a := map[string]any{"command": command}
	tool, cerr := Builtins(ws, sandbox.Local{}).Check("run_command", args(t, a))
	if cerr != nil {
		t.Fatal(cerr.Message)
	}
	res, err := tool.Run(WithOutput(ctx, s.send), args(t, a))
	if err != nil {
		t.Fatal(err)
	}
	return res, s, time.Now()
}

// The output of a running command reaches the sink while it runs, stdout
// and stderr apart; the result holds all of it as before.
func TestRunCommandStreamsItsOutput(t *testing.T) {
	res, s, end := runStreaming(t, context.Background(), "for i in 1 2 3; do echo out$i; echo err$i >&2; sleep 0.3; done")
	if got := s.text(StreamStdout); got != "out1\nout2\nout3\n" {
		t.Errorf("stdout streamed %q", got)
	}
	if got := s.text(StreamStderr); got != "err1\nerr2\nerr3\n" {
		t.Errorf("stderr streamed %q", got)
	}
	if len(s.at) < 2 || end.Sub(s.at[0]) < 500*time.Millisecond {
		t.Fatalf("%d outputs, the first %v before the end: not streamed while it ran", len(s.at), end.Sub(s.at[0]))
	}
	for _, want := range []string{"out1\n", "err3\n", "exit code 0"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("result %q lacks %q", res.Content, want)
		}
	}
}

// A command that writes line after line (one write each, as fast as the
// shell goes) sends about ten updates a second, not one per line;
// everything it wrote arrives. The lines come faster than one an interval
// however slow the machine, so the bound is what the test measures.
func TestRunCommandOutputIsCoalesced(t *testing.T) {
	const want = 2000
	start := time.Now()
	_, s, end := runStreaming(t, context.Background(), "i=0; while [ $i -lt 2000 ]; do echo line $i; i=$((i+1)); done; sleep 0.3; echo line $i")
	lines := strings.Count(s.text(StreamStdout), "\n")
	if lines != want+1 {
		t.Fatalf("streamed %d lines, want %d", lines, want+1)
	}
	limit := int(end.Sub(start)/OutputInterval) + 2
	if n := len(s.outs); n > limit || n >= want {
		t.Fatalf("%d outputs in %v (at most %d)", n, end.Sub(start), limit)
	}
	for i := 1; i < len(s.at); i++ {
		// The last one comes when the command ends, whenever that is.
		if gap := s.at[i].Sub(s.at[i-1]); gap < OutputInterval-10*time.Millisecond && i < len(s.at)-1 {
			t.Errorf("outputs %d and %d only %v apart", i-1, i, gap)
		}
	}
}

// What is streamed stops at the tool's cap, cut between runes; beyond it
// only the count of bytes left out grows, up to all of them.
func TestRunCommandStreamIsCapped(t *testing.T) {
	// 2-byte runes, so a cut in the middle of one would show.
	res, s, _ := runStreaming(t, context.Background(), "i=0; while [ $i -lt 25000 ]; do printf 'éé'; i=$((i+1)); done")
	got := s.text(StreamStdout)
	if len(got) > runOutputCap || len(got) < runOutputCap-1 || !utf8.ValidString(got) {
		t.Fatalf("streamed %d bytes (valid UTF-8: %v), cap %d", len(got), utf8.ValidString(got), runOutputCap)
	}
	last := s.outs[len(s.outs)-1]
	if total := 25000 * 4; last.Omitted != total-len(got) {
		t.Fatalf("omitted %d, want %d", last.Omitted, total-len(got))
	}
	if !res.Truncated {
		t.Error("the result was not cut")
	}
}

// Stopped by the user (the call's context cancelled with ErrStopped): the
// command and what it started are gone, and the result says who stopped it
// after how long, with the output so far.
func TestRunCommandStoppedByTheUser(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("checks /proc (linux)")
	}
	m := fmt.Sprintf("3600.%09d", rand.IntN(1_000_000_000))
	ctx, stop := context.WithCancelCause(context.Background())
	go func() {
		deadline := time.Now().Add(10 * time.Second)
		for len(procs.WithArg(m)) == 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(200 * time.Millisecond)
		stop(ErrStopped)
	}()
	res, s, _ := runStreaming(t, ctx, "echo before; sleep "+m+" & sleep "+m)
	if !strings.HasPrefix(res.Content, "before\nstopped by the user after ") ||
		!strings.Contains(res.Content, " s; the command and everything it started were killed\nexit code ") || !res.IsError {
		t.Fatalf("result %+v", res)
	}
	if s.text(StreamStdout) != "before\n" {
		t.Errorf("streamed %q", s.text(StreamStdout))
	}
	deadline := time.Now().Add(2 * time.Second)
	for pids := procs.WithArg(m); len(pids) > 0; pids = procs.WithArg(m) {
		if time.Now().After(deadline) {
			for _, p := range pids {
				_ = syscall.Kill(p, syscall.SIGKILL)
			}
			t.Fatalf("still running after the stop: %v", pids)
		}
		time.Sleep(20 * time.Millisecond)
	}

	// Cancelled for another reason (the run stopped): not "by the user".
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	res, _, _ = runStreaming(t, ctx, "sleep 30")
	if strings.Contains(res.Content, "stopped by the user") || !strings.Contains(res.Content, "cancelled;") {
		t.Fatalf("a run's cancel reads %q", res.Content)
	}
}

// Without a sink (loupe run, tests), nothing streams and the output keeps
// the exact order of one pipe.
func TestRunCommandWithoutSink(t *testing.T) {
	ws, _ := newWorkspace(t, nil)
	res := mustRun(t, ws, "run_command", map[string]any{"command": "echo a; echo b >&2; echo c"})
	if res.Content != "a\nb\nc\nexit code 0" {
		t.Fatalf("%q", res.Content)
	}
}

// The stream's pieces keep the order of the streams and join runs of one
// stream; a rune split between two chunks waits for its end.
func TestOutputStreamPieces(t *testing.T) {
	var got []Output
	s := newOutputStream(func(o Output) { got = append(got, o) }, 10)
	s.interval = time.Hour // everything after the first write waits for close
	s.write(false, []byte("a"))
	s.write(false, []byte("b\xc3"))
	s.write(true, []byte("E"))
	s.write(false, []byte("\xa9c"))
	s.write(false, []byte("0123456789"))
	s.close()
	s.write(false, []byte("late"))
	want := []Output{
		{Pieces: []OutputPiece{{StreamStdout, "a"}}},
		{Pieces: []OutputPiece{{StreamStdout, "b"}, {StreamStderr, "E"}, {StreamStdout, "éc0123"}}, Omitted: 6},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}
