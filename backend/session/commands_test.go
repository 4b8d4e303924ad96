package session_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

// A command the window should never send is refused with what is wrong,
// and changes nothing: no event, no setting.
func TestBadCommandsChangeNothing(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	h.srv.Script(ollamatest.Text("Hi."))
	h.run("Hello")
	ctx := context.Background()
	n := len(h.events())
	before, _ := settings.Load(ctx, h.st)
	for _, tc := range []struct {
		c    session.Command
		want string
	}{
		{nil, "says what to do"},
		{session.Send{Session: h.id}, "type a message first"},
		{session.SetModel{Session: h.id}, "which model"},
		{session.Answer{Session: h.id}, "which call"},
		{session.SetBreakpoints{Session: h.id}, "no breakpoints given"},
		{session.EditRequest{Session: h.id}, "no changes given"},
		{session.EditArgs{Session: h.id, Args: "{"}, "not valid JSON"},
		{session.UndoRun{Session: h.id}, "undo_run: which run? (run is empty)"},
		{session.Step{}, "which session"},
		{session.Continue{Session: "nope"}, "not found"},
		{session.Skip{Session: "nope", At: 3}, "not found"},
		{session.Answer{Session: "nope", CallID: "c"}, "not found"},
		{session.RestoreFiles{Session: h.id, Seq: 99999}, "no event 99999"},
		{session.RestoreFiles{Session: h.id, Seq: -5}, "no event -5"},
		{session.RestoreFiles{Session: h.id}, "restore_files: which event? (seq is empty)"},
		{session.Continue{Session: h.id, At: 2}, "not paused"},
		{session.StopCall{Session: h.id}, "which call"},
		{session.StopCall{Session: h.id, CallID: "call_1"}, "not running: this session has no run going"},
		{session.StopCall{Session: "nope", CallID: "call_1"}, "not found"},
	} {
		_, err := h.m.Do(ctx, tc.c)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error saying %q", tc.c, err, tc.want)
		}
	}
	if got := len(h.events()); got != n {
		t.Fatalf("the refused commands wrote %d events", got-n)
	}
	var dbg map[string]any
	if ok, _ := h.st.GetSetting(ctx, "session/nope/debug", &dbg); ok {
		t.Fatal("a command for a session that does not exist saved its step settings")
	}
	if after, _ := settings.Load(ctx, h.st); after.MaxRounds != before.MaxRounds {
		t.Fatal("settings changed")
	}
}

// A Continue for a pause that is over is refused and leaves Step mode on.
func TestRefusedContinueKeepsStepping(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	h.srv.Script(ollamatest.Text("Hi."))
	stepping(t, h)
	done := startRun(t, h, "Hello")
	ctx := context.Background()
	first := waitPaused(t, h.m, h.id)
	if _, err := h.m.Do(ctx, session.Step{Session: h.id, At: first.Seq}); err != nil {
		t.Fatal(err)
	}
	second := waitPaused(t, h.m, h.id)
	if _, err := h.m.Do(ctx, session.Continue{Session: h.id, At: first.Seq}); !errors.Is(err, session.ErrNotPaused) {
		t.Fatalf("continue for the first pause: %v", err)
	}
	d, _ := h.m.Open(ctx, h.id)
	if !d.Summary.Stepping {
		t.Fatal("a refused Continue turned Step mode off")
	}
	out, err := h.m.Do(ctx, session.Continue{Session: h.id, At: second.Seq})
	// Continue lets this run go; Step mode stays on for the next (issue 11).
	if err != nil || out.Summary == nil || !out.Summary.Stepping {
		t.Fatalf("continue: %+v %v, want a summary with Step mode still on", out.Summary, err)
	}
	<-done
}

// A run left paused whose restore failed at start-up (its folder was
// away) says so in its log; once the folder is back, Step goes on from the
// same pause; or Stop ends it.
func TestPausedRunWhoseRestoreFailed(t *testing.T) {
	for _, then := range []string{"step", "stop"} {
		t.Run(then, func(t *testing.T) {
			h := newHarness(t, permission.ModeAuto, nil)
			h.srv.Script(calls(call("call_1", "read_file", `{"path":"README.md"}`)), ollamatest.Text("Done."))
			ctx := context.Background()
			st1, err := store.Open(h.st.Path())
			if err != nil {
				t.Fatal(err)
			}
			m1 := session.NewManager(st1, ollama.New(h.srv.URL(), nil), permission.NewBroker(), nil)
			if _, err := m1.Do(ctx, session.SetBreakpoints{Session: h.id, Breakpoints: &session.Breakpoints{Points: []string{trace.PointBeforeTool}}}); err != nil {
				t.Fatal(err)
			}
			if _, err := m1.Start(ctx, h.id, "Read it", session.RunOptions{}); err != nil {
				t.Fatal(err)
			}
			p := waitPaused(t, m1, h.id)
			m1.Close()
			st1.Close()

			// Loupe starts while the workspace folder is away.
			away := h.ws + ".away"
			if err := os.Rename(h.ws, away); err != nil {
				t.Fatal(err)
			}
			m2 := session.NewManager(h.st, ollama.New(h.srv.URL(), nil), permission.NewBroker(), nil)
			t.Cleanup(m2.StopAll)
			if err := m2.Recover(ctx); err == nil || !strings.Contains(err.Error(), "cannot resume") {
				t.Fatalf("recover: %v", err)
			}
			evs := h.events()
			last, _ := trace.Decode[trace.Notice](evs[len(evs)-1])
			if last.Code != "cannot_resume" || !strings.Contains(last.Message, h.ws+" cannot be opened") || !strings.Contains(last.Message, "press Step") {
				t.Fatalf("the log says %s %s", evs[len(evs)-1].Kind, evs[len(evs)-1].Payload)
			}
			if st := trace.StateOf(evs); st.PausedSeq != p.Seq {
				t.Fatalf("the notice moved the pause: %+v", st)
			}
			if _, err := m2.Do(ctx, session.UndoRun{Session: h.id, Run: 1}); err == nil || !strings.Contains(err.Error(), "still open") {
				t.Fatalf("undo of the open run: %v", err)
			}
			if _, err := m2.Do(ctx, session.Step{Session: h.id, At: p.Seq}); err == nil || !strings.Contains(err.Error(), "cannot go on") {
				t.Fatalf("step while the folder is away: %v", err)
			}
			if err := os.Rename(away, h.ws); err != nil {
				t.Fatal(err)
			}
			switch then {
			case "step":
				if _, err := m2.Do(ctx, session.Continue{Session: h.id, At: p.Seq}); err != nil {
					t.Fatal(err)
				}
				m2.Wait(h.id)
				if e := lastEnd(t, h.events()); e.Reason != trace.EndAnswered {
					t.Fatalf("end = %+v", e)
				}
			case "stop":
				out, err := m2.Do(ctx, session.Stop{Session: h.id})
				if err != nil || out.Summary == nil || out.Summary.OpenRun != 0 {
					t.Fatalf("stop: %+v %v", out.Summary, err)
				}
				if e := lastEnd(t, h.events()); e.Reason != trace.EndCancelled {
					t.Fatalf("end = %+v", e)
				}
			}
			invariants.Check(t, h.events())
		})
	}
}
