package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/tools"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

// Stopping one call ends that call only: its tool's context is cancelled
// with tools.ErrStopped, the other call of the answer runs to its end, the
// result says the user stopped it, and the run goes on to the next round,
// where the model reads that. A call that is not running is refused.
func TestStopCallStopsOneCallAndTheRunGoesOn(t *testing.T) {
	running := make(chan struct{})
	slow := fn{name: "slow", run: func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
		close(running)
		<-ctx.Done()
		if !errors.Is(context.Cause(ctx), tools.ErrStopped) {
			return tools.Result{Content: "cancelled for another reason", IsError: true}, nil
		}
		return tools.Result{Content: "output so far\nstopped by the user after 0.1 s", IsError: true}, nil
	}}
	broken := fn{name: "broken", run: func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
		<-ctx.Done()
		return tools.Result{}, ctx.Err()
	}}
	r := newRig(t, slow, broken, echo("look"))
	r.model.say(asks(tc("a", "slow", `{"x":"1"}`), tc("b", "look", `{"x":"2"}`)), asks(tc("c", "broken", `{"x":"3"}`)), text("Understood."))
	ag := r.agent()
	done := make(chan trace.RunEnd, 1)
	go func() {
		end, err := ag.Run(t.Context(), "Go")
		if err != nil {
			t.Errorf("run: %v", err)
		}
		done <- end
	}()
	<-running
	if err := ag.StopCall("nope"); !errors.Is(err, ErrNotRunning) || !strings.Contains(err.Error(), "call nope") {
		t.Errorf("stop of a call that is not of the run: %v", err)
	}
	if err := ag.StopCall("a"); err != nil {
		t.Fatal(err)
	}
	// The second round's call fails on its own when stopped: the plain
	// line says so.
	waitUntil(t, func() bool { return ag.StopCall("c") == nil })
	end := wait(t, done)
	if end.Reason != trace.EndAnswered {
		t.Fatalf("end = %+v, want the run to go on to the answer", end)
	}
	evs := r.log.all()
	invariants.Check(t, evs)
	a, b, c := resultFor(t, evs, "a"), resultFor(t, evs, "b"), resultFor(t, evs, "c")
	if a.ErrorKind != trace.ErrStopped || !a.IsError || a.Content != "output so far\nstopped by the user after 0.1 s" {
		t.Errorf("stopped call's result = %+v", a)
	}
	if b.IsError || b.ErrorKind != "" {
		t.Errorf("the other call's result = %+v", b)
	}
	if c.ErrorKind != trace.ErrStopped || !strings.HasPrefix(c.Content, "stopped by the user after ") || !strings.HasSuffix(c.Content, "before broken finished") {
		t.Errorf("a tool that only returns its error: %+v", c)
	}
	// The model read both observations.
	sent := r.model.sent()
	if len(sent) != 3 || !strings.Contains(string(mustJSON(t, sent[1].Messages)), "stopped by the user after 0.1 s") ||
		!strings.Contains(string(mustJSON(t, sent[2].Messages)), "before broken finished") {
		t.Fatalf("the next requests do not carry the stopped observations")
	}
	if err := ag.StopCall("a"); !errors.Is(err, ErrNotRunning) {
		t.Errorf("stop after the run: %v", err)
	}
}

// A tool's streamed output reaches OnDelta as deltas of its call, with
// the run and round it belongs to. (A real command's output through
// run_command is tested in backend/tools and backend/session.)
func TestCallOutputBecomesDeltas(t *testing.T) {
	r := newRig(t, fn{name: "talk", run: func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
		send := tools.OutputOf(ctx)
		if send == nil {
			return tools.Result{}, errors.New("no output sink")
		}
		send(tools.Output{Pieces: []tools.OutputPiece{{Stream: tools.StreamStderr, Text: "warning\n"}}, Omitted: 3})
		return tools.Result{Content: "done"}, nil
	}})
	r.model.say(asks(tc("a", "talk", `{"x":"1"}`)), text("ok"))
	r.run(t.Context(), "Go")
	var got []Delta
	for _, d := range r.deltas {
		if d.CallID != "" {
			got = append(got, d)
		}
	}
	if len(got) != 1 || got[0].CallID != "a" || got[0].Run != 1 || got[0].Round != 1 || got[0].SessionID != "s" ||
		len(got[0].Output) != 1 || got[0].Output[0] != (tools.OutputPiece{Stream: "stderr", Text: "warning\n"}) || got[0].Omitted != 3 ||
		got[0].Content != "" {
		t.Fatalf("deltas = %+v", got)
	}
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Without OnDelta nothing streams: tools get no output sink, so a command
// reads its output as one stream, in the order it was written.
func TestNoOutputSinkWithoutOnDelta(t *testing.T) {
	sink := true
	r := newRig(t, fn{name: "talk", run: func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
		sink = tools.OutputOf(ctx) != nil
		return tools.Result{Content: "done"}, nil
	}})
	r.model.say(asks(tc("a", "talk", `{"x":"1"}`)), text("ok"))
	ag := New(r.cfg, Seams{Model: r.model, Recorder: r.log, Tools: r.tools, Approver: r.ask}, nil)
	if _, err := ag.Run(t.Context(), "Go"); err != nil {
		t.Fatal(err)
	}
	if sink {
		t.Fatal("a tool got an output sink with no one to stream to")
	}
}
