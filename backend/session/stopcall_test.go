package session_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/invariants"
	"github.com/loupe-dev/loupe/testkit/procs"
)

// callOutput joins what the window was streamed of a call's output, per
// stream.
func (s *recordingSink) callOutput(callID string) (stdout, stderr string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.deltas {
		if d.CallID != callID {
			continue
		}
		for _, p := range d.Output {
			if p.Stream == "stderr" {
				stderr += p.Text
			} else {
				stdout += p.Text
			}
		}
	}
	return stdout, stderr
}

func (s *recordingSink) hasEvent(kind trace.Kind) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.events {
		if e.Kind == kind {
			return true
		}
	}
	return false
}

// A running command streams its output to the window, and the window can
// stop it on its own: the command's processes are gone, its result says
// the user stopped it with the output so far, and the run goes on to the
// next round, where the model reads that. Through the real Manager, store,
// sandbox and fake Ollama.
func TestStopOneCommand(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	marker := "loupe-stopcall-marker-" + strings.ReplaceAll(t.Name(), "/", "-")
	h.srv.Script(
		calls(call("call_1", "run_command", `{"command":"echo started; echo careful >&2; sh -c 'sleep 30; echo `+marker+`' & wait"}`)),
		ollamatest.Text("You stopped it."),
	)
	ctx := context.Background()
	if _, err := h.m.Do(ctx, session.Send{Session: h.id, Text: "Run the long thing"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		out, errOut := h.sink.callOutput("call_1")
		return out == "started\n" && errOut == "careful\n" && len(procs.Containing(marker)) > 0
	}, "the command's output to stream in while it runs")
	if h.sink.hasEvent(trace.KindToolResult) {
		t.Fatal("the output came with the result, not before it")
	}
	if _, err := h.m.Do(ctx, session.StopCall{Session: h.id, CallID: "call_1"}); err != nil {
		t.Fatal(err)
	}
	h.m.Wait(h.id)
	waitFor(t, func() bool { return len(procs.Containing(marker)) == 0 }, "the command's processes to die")
	evs := h.events()
	invariants.Check(t, evs)
	if end := lastEnd(t, evs); end.Reason != trace.EndAnswered || end.FinalText != "You stopped it." {
		t.Fatalf("end = %+v, want the run to go on to the answer", end)
	}
	rs := results(t, evs)
	r := rs[0]
	if len(rs) != 1 || r.ErrorKind != trace.ErrStopped || !r.IsError ||
		!strings.HasPrefix(r.Content, "started\ncareful\nstopped by the user after ") && !strings.HasPrefix(r.Content, "careful\nstarted\nstopped by the user after ") {
		t.Fatalf("result = %+v", r)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "stopped by the user after ") {
		t.Fatalf("the model was not told: %d requests", len(reqs))
	}
	// Over: a second stop is refused and writes nothing.
	n := len(evs)
	if _, err := h.m.Do(ctx, session.StopCall{Session: h.id, CallID: "call_1"}); !errors.Is(err, agent.ErrNotRunning) {
		t.Fatalf("stop of a call that is over: %v", err)
	}
	if len(h.events()) != n {
		t.Fatal("the refused stop wrote to the log")
	}
}

// While a command runs, a stop for another call of the run, or one that
// is not of it, is refused and the command goes on.
func TestStopCallOfAnotherCallIsRefused(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	h.srv.Script(
		calls(call("call_1", "run_command", `{"command":"touch started.txt; sleep 1; echo finished"}`)),
		ollamatest.Text("Done."),
	)
	ctx := context.Background()
	if _, err := h.m.Do(ctx, session.Send{Session: h.id, Text: "Go"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { _, ok := h.read("started.txt"); return ok }, "the command to start")
	for _, id := range []string{"call_2", "nope"} {
		if _, err := h.m.Do(ctx, session.StopCall{Session: h.id, CallID: id}); !errors.Is(err, agent.ErrNotRunning) || !strings.Contains(err.Error(), id) {
			t.Errorf("stop of %s: %v", id, err)
		}
	}
	h.m.Wait(h.id)
	rs := results(t, h.events())
	if len(rs) != 1 || rs[0].IsError || !strings.Contains(rs[0].Content, "finished") {
		t.Fatalf("result = %+v", rs)
	}
}

// A stop for a run another live process holds says where it is.
func TestStopCallOfARunOwnedElsewhere(t *testing.T) {
	h, other := heldElsewhere(t, "run_command", `{"command":"sleep 100"}`)
	unchanged := h.writesNothing()
	_, err := h.m.Do(context.Background(), session.StopCall{Session: h.id, CallID: "call_1"})
	var held *store.LeaseHeldError
	if !errors.As(err, &held) || held.By.PID != other || !strings.Contains(err.Error(), "another Loupe process") {
		t.Fatalf("stop_call of a run owned elsewhere: %v", err)
	}
	unchanged("a stop_call of a run owned elsewhere")
}

// A chatty command, through the real sandbox the workspace assembles:
// its output (2,000 lines, one write each, faster than one an interval
// however slow the machine) reaches the window in about ten deltas a
// second at most, and no more of it than the model gets (32 KiB), then
// only the count of the bytes left out.
func TestCommandOutputIsCoalescedAndCapped(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	h.srv.Script(
		calls(call("call_1", "run_command", `{"command":"i=0; while [ $i -lt 2000 ]; do echo line $i; i=$((i+1)); done; sleep 0.3; head -c 100000 /dev/zero | tr '\\0' x"}`)),
		ollamatest.Text("Lots of x."),
	)
	start := time.Now()
	h.run("Be chatty")
	took := time.Since(start)
	var n, streamed, omitted int
	h.sink.mu.Lock()
	for _, d := range h.sink.deltas {
		if d.CallID != "call_1" {
			continue
		}
		n++
		for _, p := range d.Output {
			streamed += len(p.Text)
		}
		omitted = d.Omitted
	}
	h.sink.mu.Unlock()
	total := 100000
	for i := range 2000 {
		total += len("line \n") + len(strconv.Itoa(i))
	}
	if streamed != 32<<10 || omitted != total-streamed {
		t.Fatalf("streamed %d bytes and said %d were left out, of %d", streamed, omitted, total)
	}
	if limit := int(took/(100*time.Millisecond)) + 2; n > limit || n >= 2000 {
		t.Fatalf("%d deltas in %v (at most %d)", n, took, limit)
	}
	if rs := results(t, h.events()); len(rs) != 1 || !rs[0].Truncated {
		t.Fatalf("result = %+v", rs)
	}
}
