package session_test

import (
	"context"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/trace"
)

// Step mode is the session's, as the user set it: Continue lets the run
// that waits go to a breakpoint or its end, and the session's next run
// steps again; a new session starts with the Settings default.
func TestStepModeIsRemembered(t *testing.T) {
	t.Run("across Continue", func(t *testing.T) {
		h := newHarness(t, permission.ModeAuto, nil)
		h.srv.Script(
			calls(call("call_1", "read_file", `{"path":"README.md"}`)),
			ollamatest.Text("Done."),
			ollamatest.Text("Again."),
		)
		ctx := context.Background()
		stepping(t, h)
		done := startRun(t, h, "Look")
		first := waitPaused(t, h.m, h.id)
		if first.Point != trace.PointBeforeRequest {
			t.Fatalf("first pause %+v", first)
		}
		sum, err := h.m.Do(ctx, session.Continue{Session: h.id, At: first.Seq})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Summary == nil || !sum.Summary.Stepping {
			t.Fatal("Continue turned Step mode off")
		}
		// Continue ran the rest of the run without pausing.
		if end := <-done; end.Reason != trace.EndAnswered {
			t.Fatalf("end = %+v", end)
		}
		paused := 0
		for _, e := range h.events() {
			if e.Kind == trace.KindCheckpoint {
				paused++
			}
		}
		if paused != 2 { // the pause and its resumed event
			t.Fatalf("%d checkpoint events in the continued run, want 2", paused)
		}
		// The next run steps again.
		done = startRun(t, h, "Once more")
		again := waitPaused(t, h.m, h.id)
		if again.Point != trace.PointBeforeRequest || again.Seq <= first.Seq+2 {
			t.Fatalf("the next run paused at %+v, want before_request of run 2", again)
		}
		if _, err := h.m.Do(ctx, session.Continue{Session: h.id, At: again.Seq}); err != nil {
			t.Fatal(err)
		}
		<-done
		d, err := h.m.Open(ctx, h.id)
		if err != nil || !d.Summary.Stepping {
			t.Fatalf("stepping after the second Continue: %v %v", d.Summary.Stepping, err)
		}
	})
	// A run left paused when Loupe closed is run again by the next
	// process: Continue lets that run go too, as it is numbered in the
	// log (run 2 here), and it pauses no more.
	t.Run("across a restart", func(t *testing.T) {
		h := newHarness(t, permission.ModeAuto, nil)
		h.srv.Script(ollamatest.Text("Hi."), calls(call("call_1", "read_file", `{"path":"README.md"}`)), ollamatest.Text("Done."))
		ctx := context.Background()
		h.run("Hi")
		stepping(t, h)
		if _, err := h.m.Start(ctx, h.id, "Look", session.RunOptions{}); err != nil {
			t.Fatal(err)
		}
		first := waitPaused(t, h.m, h.id)
		h.m.Close()
		m2 := session.NewManager(h.st, ollama.New(h.srv.URL(), nil), permission.NewBroker(), nil)
		t.Cleanup(m2.StopAll)
		if err := m2.Recover(ctx); err != nil {
			t.Fatal(err)
		}
		if again := waitPaused(t, m2, h.id); again.Seq != first.Seq {
			t.Fatalf("reopened paused at %d, want %d", again.Seq, first.Seq)
		}
		if _, err := m2.Do(ctx, session.Continue{Session: h.id, At: first.Seq}); err != nil {
			t.Fatal(err)
		}
		// Bounded: a run that paused again would wait for ever.
		waitFor(t, func() bool { evs := h.events(); return evs[len(evs)-1].Kind == trace.KindRunEnd }, "the continued run to end")
		m2.Wait(h.id)
		evs := h.events()
		if e := lastEnd(t, evs); e.Reason != trace.EndAnswered || evs[len(evs)-1].Run != 2 {
			t.Fatalf("end = %+v of run %d, want run 2 answered", e, evs[len(evs)-1].Run)
		}
		paused := 0
		for _, e := range evs {
			if e.Kind == trace.KindCheckpoint {
				paused++
			}
		}
		if paused != 2 { // the pause and its resumed event
			t.Fatalf("%d checkpoint events, want 2: the continued run paused again", paused)
		}
	})
	t.Run("a new session starts with the default", func(t *testing.T) {
		on := newHarness(t, permission.ModeAuto, func(s *settings.Settings) { s.StepMode = true })
		d, err := on.m.Open(context.Background(), on.id)
		if err != nil || !d.Summary.Stepping {
			t.Fatalf("new session with Step mode on by default: stepping %v, %v", d.Summary.Stepping, err)
		}
		on.srv.Script(ollamatest.Text("Hi."))
		done := startRun(t, on, "Hi")
		p := waitPaused(t, on.m, on.id)
		if p.Point != trace.PointBeforeRequest {
			t.Fatalf("paused at %+v", p)
		}
		// The session's own choice wins over the default from then on.
		if _, err := on.m.Do(context.Background(), session.SetStepping{Session: on.id, On: false}); err != nil {
			t.Fatal(err)
		}
		if _, err := on.m.Do(context.Background(), session.Step{Session: on.id, At: p.Seq}); err != nil {
			t.Fatal(err)
		}
		<-done
		off := newHarness(t, permission.ModeAuto, nil)
		if d, _ := off.m.Open(context.Background(), off.id); d.Summary.Stepping {
			t.Fatal("a new session steps though the default is off")
		}
	})
}
