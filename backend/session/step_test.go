package session_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

// pausedAt is where a run waits, as the log shows it: the paused
// checkpoint event, and for after_result the result just before it.
type pausedAt struct {
	trace.Checkpoint
	Seq    int64
	Result *trace.ToolResult
}

// waitPaused waits until the session's log says its run waits at a
// checkpoint, and returns where.
func waitPaused(t *testing.T, m *session.Manager, id string) pausedAt {
	t.Helper()
	var p pausedAt
	waitFor(t, func() bool {
		d, err := m.Open(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		st := trace.StateOf(d.Events)
		if st.Paused == nil || d.Summary.Standing != trace.StandingPaused {
			return false
		}
		p = pausedAt{Checkpoint: *st.Paused, Seq: st.PausedSeq}
		if prev := d.Events[st.PausedSeq-2]; prev.Kind == trace.KindToolResult {
			r, _ := trace.Decode[trace.ToolResult](prev)
			p.Result = &r
		}
		return true
	}, "the run to pause")
	return p
}

func startRun(t *testing.T, h *harness, text string) chan trace.RunEnd {
	t.Helper()
	done := make(chan trace.RunEnd, 1)
	go func() {
		end, err := h.m.Run(context.Background(), h.id, text, session.RunOptions{})
		if err != nil {
			t.Error(err)
		}
		done <- end
	}()
	return done
}

func step(t *testing.T, h *harness) {
	t.Helper()
	if _, err := h.m.Do(context.Background(), session.Step{Session: h.id, At: 0}); err != nil {
		t.Fatal(err)
	}
}

func stepping(t *testing.T, h *harness) {
	t.Helper()
	if _, err := h.m.Do(context.Background(), session.SetStepping{Session: h.id, On: true}); err != nil {
		t.Fatal(err)
	}
}

// Stepping pauses at every checkpoint, in the loop's order.
func TestStepThroughCheckpointsInOrder(t *testing.T) {
	h := newHarness(t, permission.ModeAsk, nil)
	h.srv.Script(
		calls(call("call_1", "list_dir", `{"path":"."}`)),
		ollamatest.Text("Two files."),
	)
	stepping(t, h)
	done := startRun(t, h, "What is here?")
	var got []string
	for i := 0; i < 6; i++ {
		p := waitPaused(t, h.m, h.id)
		got = append(got, p.Point+"/"+p.CallID)
		if p.Point == trace.PointBeforeRequest && (p.Request == nil || len(p.Request.Messages) == 0) {
			t.Fatalf("pause before a request shows no pending request: %+v", p)
		}
		if i == 0 && len(h.srv.Requests()) != 0 {
			t.Fatal("the request was sent before the user stepped")
		}
		if p.Point == trace.PointBeforeTool {
			if len(results(t, h.events())) != 0 {
				t.Fatal("the tool ran before the user stepped")
			}
			// A file made while the call waits: list_dir sees it only if it
			// runs after the step.
			h.write("made_at_pause.txt", "x\n")
		}
		step(t, h)
	}
	if rs := results(t, h.events()); len(rs) != 1 || !strings.Contains(rs[0].Content, "made_at_pause.txt") {
		t.Fatalf("list_dir did not see the file made while it waited, so it ran before the step: %+v", rs)
	}
	want := "before_request/ after_response/ before_tool/call_1 after_result/call_1 before_request/ after_response/"
	if strings.Join(got, " ") != want {
		t.Fatalf("checkpoints:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	if end := <-done; end.Reason != trace.EndAnswered {
		t.Fatalf("end = %+v", end)
	}
	invariants.Check(t, h.events())
	h.golden("step_through")
}

// Every kind of edit reaches the model, is recorded with before and after,
// and the Raw view still shows exactly what was sent.
func TestEditsReachTheModel(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	h.srv.Script(
		calls(call("call_1", "read_file", `{"path":"missing.txt"}`)),
		ollamatest.Text("It says hello."),
	)
	stepping(t, h)
	ctx := context.Background()
	done := startRun(t, h, "Read missing.txt")

	// Before the first request: system prompt, the user's message, options.
	p := waitPaused(t, h.m, h.id)
	userSeq := p.Request.Messages[0].Seq
	system := "You are a careful agent."
	opts := p.Request.Options
	opts.NumCtx, opts.Temperature = 4096, 0
	if _, err := h.m.Do(ctx, session.EditRequest{Session: h.id, At: p.Seq, Request: &agent.RequestEdit{System: &system, Options: &opts,
		Messages: []agent.MessageEdit{{Seq: userSeq, Content: "Read README.md"}}}}); err != nil {
		t.Fatal(err)
	}
	if evs := h.events(); evs[len(evs)-1].Kind != trace.KindEdit {
		t.Fatalf("the edit is not the log's last event: %s", evs[len(evs)-1].Kind)
	}
	step(t, h) // send
	waitPaused(t, h.m, h.id)
	step(t, h) // after_response

	// Before the call: a bad edit is refused and changes nothing; a good
	// one is checked again and runs.
	p = waitPaused(t, h.m, h.id)
	if p.Point != trace.PointBeforeTool {
		t.Fatalf("paused at %s", p.Point)
	}
	if _, err := h.m.Do(ctx, session.EditArgs{Session: h.id, At: 0, Args: `{"path":7}`}); err == nil || !strings.Contains(err.Error(), "invalid arguments for read_file") {
		t.Fatalf("bad args edit: %v", err)
	}
	if _, err := h.m.Do(ctx, session.EditArgs{Session: h.id, At: 0, Args: `{"path":"README.md"}`}); err != nil {
		t.Fatal(err)
	}
	step(t, h)

	// After the result: change what goes back.
	p = waitPaused(t, h.m, h.id)
	if p.Point != trace.PointAfterResult || !strings.Contains(p.Result.Content, "hello from the workspace") {
		t.Fatalf("after the edited call: %+v", p)
	}
	if _, err := h.m.Do(ctx, session.EditResult{Session: h.id, At: 0, Content: "The README says: hello (edited)"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.m.Do(context.Background(), session.Continue{Session: h.id, At: 0}); err != nil {
		t.Fatal(err)
	}
	if end := <-done; end.Reason != trace.EndAnswered {
		t.Fatalf("end = %+v", end)
	}

	reqs := h.srv.Requests()
	first, second := reqs[0].Chat, reqs[1].Chat
	if first.Messages[0].Content != system || first.Messages[1].Content != "Read README.md" || first.Options["num_ctx"] != float64(4096) || first.Options["temperature"] != float64(0) {
		t.Fatalf("first request did not carry the edits: %+v %v", first.Messages[:2], first.Options)
	}
	var sawArgs, sawResult bool
	for _, m := range second.Messages {
		for _, c := range m.ToolCalls {
			sawArgs = sawArgs || strings.Contains(string(c.Function.Arguments), "README.md")
		}
		sawResult = sawResult || (m.Role == "tool" && m.Content == "The README says: hello (edited)")
	}
	if !sawArgs || !sawResult || second.Messages[0].Content != system {
		t.Fatalf("second request: args edited %v, result edited %v, system %q", sawArgs, sawResult, second.Messages[0].Content)
	}
	var edits []string
	for _, e := range h.events() {
		if e.Kind == trace.KindEdit {
			ed, _ := trace.Decode[trace.Edit](e)
			edits = append(edits, ed.Target)
			if string(ed.Before) == string(ed.After) {
				t.Errorf("edit %s records no change", ed.Target)
			}
		}
		if e.Kind == trace.KindModelRequest {
			raw, err := session.RawRequest(ctx, h.st, h.id, e.Seq)
			if err != nil {
				t.Fatal(err)
			}
			if n := e.Round - 1; raw != string(reqs[n].Body) {
				t.Fatalf("round %d: Raw differs from what was sent", e.Round)
			}
		}
	}
	if strings.Join(edits, " ") != "system options message args result" {
		t.Fatalf("edit events = %v", edits)
	}
	invariants.Check(t, h.events())
	h.golden("edits")
}

// Skip answers a call with the user's own observation; it never runs.
func TestSkipCall(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	h.srv.Script(
		calls(call("call_1", "write_file", `{"path":"x.txt","content":"x"}`)),
		ollamatest.Text("OK."),
	)
	if _, err := h.m.Do(context.Background(), session.SetBreakpoints{Session: h.id, Breakpoints: &session.Breakpoints{Tools: []string{"write_file"}}}); err != nil {
		t.Fatal(err)
	}
	done := startRun(t, h, "Write x")
	p := waitPaused(t, h.m, h.id)
	if p.Point != trace.PointBeforeTool || p.Tool != "write_file" {
		t.Fatalf("breakpoint on write_file paused at %+v", p)
	}
	if _, err := h.m.Do(context.Background(), session.Skip{Session: h.id, At: 0, Observation: "I wrote it myself."}); err != nil {
		t.Fatal(err)
	}
	if end := <-done; end.Reason != trace.EndAnswered {
		t.Fatalf("end = %+v", end)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "x.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a skipped call ran")
	}
	rs := results(t, h.events())
	if rs[0].Content != "I wrote it myself." || rs[0].ErrorKind != trace.ErrSkipped || rs[0].IsError {
		t.Fatalf("skip result = %+v", rs[0])
	}
	msgs := h.srv.Requests()[1].Chat.Messages
	if last := msgs[len(msgs)-1]; last.Role != "tool" || last.Content != "I wrote it myself." {
		t.Fatalf("the model did not get the user's observation: %+v", last)
	}
	invariants.Check(t, h.events())
}

// Stop while paused ends the run; the open call is answered "cancelled".
func TestStopWhilePaused(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	h.srv.Script(calls(call("call_1", "run_command", `{"command":"touch ran"}`)))
	if _, err := h.m.Do(context.Background(), session.SetBreakpoints{Session: h.id, Breakpoints: &session.Breakpoints{Points: []string{trace.PointBeforeTool}}}); err != nil {
		t.Fatal(err)
	}
	done := startRun(t, h, "Go")
	waitPaused(t, h.m, h.id)
	h.m.Stop(h.id)
	if end := <-done; end.Reason != trace.EndCancelled {
		t.Fatalf("end = %+v", end)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "ran")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the paused call ran after Stop")
	}
	if _, err := h.m.Do(context.Background(), session.Step{Session: h.id, At: 0}); !errors.Is(err, session.ErrNotPaused) {
		t.Fatalf("step after stop: %v", err)
	}
	invariants.Check(t, h.events())
}

// Pausing holds nothing else up: another session runs to its end while
// this one waits.
func TestPauseDoesNotBlockOtherSessions(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	h.srv.Respond(func(req ollamatest.ChatRequest) ollamatest.Reply { return ollamatest.Text("Hi.") })
	stepping(t, h)
	done := startRun(t, h, "Hi")
	waitPaused(t, h.m, h.id)
	other, err := h.m.Create(context.Background(), h.ws, testModel)
	if err != nil {
		t.Fatal(err)
	}
	if end, err := h.m.Run(context.Background(), other.ID, "Hello", session.RunOptions{}); err != nil || end.Reason != trace.EndAnswered {
		t.Fatalf("other session: %+v %v", end, err)
	}
	_, _ = h.m.Do(context.Background(), session.Continue{Session: h.id, At: 0})
	<-done
}

// A paused session survives a restart: it reopens paused at the same
// checkpoint and goes on from there.
func TestPausedSessionSurvivesRestart(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	h.srv.Script(
		calls(call("call_1", "read_file", `{"path":"README.md"}`), call("call_2", "list_dir", `{"path":"."}`)),
		ollamatest.Text("Done."),
	)
	ctx := context.Background()
	// The first "app": its own store handle, closed to play dead.
	path := h.st.Path()
	st1, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	m1 := session.NewManager(st1, ollama.New(h.srv.URL(), nil), permission.NewBroker(), nil)
	if _, err := m1.Do(ctx, session.SetStepping{Session: h.id, On: true}); err != nil {
		t.Fatal(err)
	}
	go m1.Run(ctx, h.id, "Look", session.RunOptions{})
	for _, want := range []string{trace.PointBeforeRequest, trace.PointAfterResponse, trace.PointBeforeTool, trace.PointAfterResult} {
		if p := waitPaused(t, m1, h.id); p.Point != want {
			t.Fatalf("paused at %s, want %s", p.Point, want)
		}
		if want != trace.PointAfterResult {
			if _, err := m1.Do(context.Background(), session.Step{Session: h.id, At: 0}); err != nil {
				t.Fatal(err)
			}
		}
	}
	st1.Close() // the app is gone; its run can write nothing more

	// The second "app" on the same file.
	m2 := session.NewManager(h.st, ollama.New(h.srv.URL(), nil), permission.NewBroker(), nil)
	t.Cleanup(m2.StopAll)
	if err := m2.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	p := waitPaused(t, m2, h.id)
	if p.Point != trace.PointAfterResult || p.CallID != "call_1" || !strings.Contains(p.Result.Content, "hello from the workspace") {
		t.Fatalf("reopened at %+v", p)
	}
	d, _ := m2.Open(ctx, h.id)
	if !d.Summary.Stepping {
		t.Fatal("stepping was not kept")
	}
	// On from there: the second call, then the answer.
	var got []string
	for i := 0; i < 5; i++ {
		p := waitPaused(t, m2, h.id)
		got = append(got, p.Point+"/"+p.CallID)
		// The window names the pause it shows; the first is the restored
		// one, which the log showed before the run got there again.
		if _, err := m2.Do(context.Background(), session.Step{Session: h.id, At: p.Seq}); err != nil {
			t.Fatal(err)
		}
	}
	want := "after_result/call_1 before_tool/call_2 after_result/call_2 before_request/ after_response/"
	if strings.Join(got, " ") != want {
		t.Fatalf("after restart:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	m2.Wait(h.id)
	evs := h.events()
	invariants.Check(t, evs)
	if e := lastEnd(t, evs); e.Reason != trace.EndAnswered {
		t.Fatalf("end = %+v", e)
	}
	paused := 0
	for _, e := range evs {
		if e.Kind == trace.KindCheckpoint {
			if cp, _ := trace.Decode[trace.Checkpoint](e); cp.State == trace.Paused {
				paused++
			}
		}
	}
	if paused != 8 {
		t.Fatalf("%d paused checkpoints, want 8 (the restored pause is not recorded twice)", paused)
	}
	_ = time.Second
}

// A command names the pause the user saw: a second Step meant for a pause
// that is over is refused and does not move the run on from the next one.
func TestCommandForAPauseThatIsOverIsRefused(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	h.srv.Script(ollamatest.Text("Hi."))
	stepping(t, h)
	done := startRun(t, h, "Hello")
	first := waitPaused(t, h.m, h.id)
	ctx := context.Background()
	if _, err := h.m.Do(ctx, session.Step{Session: h.id, At: first.Seq}); err != nil {
		t.Fatal(err)
	}
	second := waitPaused(t, h.m, h.id)
	if second.Seq == first.Seq || second.Point != trace.PointAfterResponse {
		t.Fatalf("second pause = %+v", second)
	}
	before := len(h.events())
	if _, err := h.m.Do(ctx, session.Step{Session: h.id, At: first.Seq}); !errors.Is(err, session.ErrNotPaused) {
		t.Fatalf("a step for the first pause, sent at the second: %v", err)
	}
	if _, err := h.m.Do(ctx, session.EditArgs{Session: h.id, At: first.Seq, Args: `{}`}); !errors.Is(err, session.ErrNotPaused) {
		t.Fatalf("an edit for the first pause: %v", err)
	}
	if n := len(h.events()); n != before {
		t.Fatalf("the refused commands wrote %d events", n-before)
	}
	if _, err := h.m.Do(ctx, session.Continue{Session: h.id, At: second.Seq}); err != nil {
		t.Fatal(err)
	}
	if end := <-done; end.Reason != trace.EndAnswered {
		t.Fatalf("end = %+v", end)
	}
	if _, err := h.m.Do(ctx, session.Step{Session: h.id, At: second.Seq}); !errors.Is(err, session.ErrNotPaused) {
		t.Fatalf("a step after the run ended: %v", err)
	}
}

// Closing Loupe while a run waits at a checkpoint writes nothing: the next
// start finds it paused at the same checkpoint. Closing it while a run
// works records the run as interrupted because Loupe was closed.
func TestClosingLoupe(t *testing.T) {
	t.Run("paused", func(t *testing.T) {
		h := newHarness(t, permission.ModeAuto, nil)
		h.srv.Script(calls(call("call_1", "read_file", `{"path":"README.md"}`)), ollamatest.Text("Done."))
		ctx := context.Background()
		m1 := session.NewManager(h.st, ollama.New(h.srv.URL(), nil), permission.NewBroker(), nil)
		if _, err := m1.Do(ctx, session.SetBreakpoints{Session: h.id, Breakpoints: &session.Breakpoints{Points: []string{trace.PointBeforeTool}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := m1.Start(ctx, h.id, "Read it", session.RunOptions{}); err != nil {
			t.Fatal(err)
		}
		p := waitPaused(t, m1, h.id)
		if len(m1.Working(ctx)) != 0 {
			t.Fatal("a paused run counts as working: closing would ask about it")
		}
		before := len(h.events())
		m1.Close()
		if evs := h.events(); len(evs) != before {
			t.Fatalf("closing while paused wrote %d events, the last %s", len(evs)-before, evs[len(evs)-1].Kind)
		}
		m2 := session.NewManager(h.st, ollama.New(h.srv.URL(), nil), permission.NewBroker(), nil)
		t.Cleanup(m2.StopAll)
		if err := m2.Recover(ctx); err != nil {
			t.Fatal(err)
		}
		if again := waitPaused(t, m2, h.id); again.Seq != p.Seq {
			t.Fatalf("reopened paused at %d, want %d", again.Seq, p.Seq)
		}
		if _, err := m2.Do(ctx, session.Continue{Session: h.id, At: p.Seq}); err != nil {
			t.Fatal(err)
		}
		m2.Wait(h.id)
		evs := h.events()
		invariants.Check(t, evs)
		if e := lastEnd(t, evs); e.Reason != trace.EndAnswered {
			t.Fatalf("end = %+v", e)
		}
	})
	t.Run("working", func(t *testing.T) {
		h := newHarness(t, permission.ModeAuto, nil)
		h.srv.Script(calls(call("call_1", "run_command", `{"command":"echo started > started.txt; sleep 30"}`)))
		ctx := context.Background()
		if _, err := h.m.Start(ctx, h.id, "Wait", session.RunOptions{}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, func() bool { _, err := os.Stat(filepath.Join(h.ws, "started.txt")); return err == nil }, "the command to start")
		if w := h.m.Working(ctx); len(w) != 1 || w[0].ID != h.id {
			t.Fatalf("working = %+v, want the session", w)
		}
		h.m.Close()
		evs := h.events()
		invariants.Check(t, evs)
		if e := lastEnd(t, evs); e.Reason != trace.EndInterrupted || !strings.Contains(e.Detail, "Loupe was closed") {
			t.Fatalf("end = %+v, want interrupted because Loupe was closed", e)
		}
		if rs := results(t, evs); len(rs) != 1 || rs[0].ErrorKind != trace.ErrInterrupted || !strings.Contains(rs[0].Content, "Loupe was closed") {
			t.Fatalf("results = %+v", rs)
		}
	})
}
