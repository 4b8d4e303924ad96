package session_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/loupe-dev/loupe/testkit/golden"

	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/trace"
)

// recordedDemoWorkspace is what the recording calls the demo's copy of its
// project (a new temporary folder each time).
const recordedDemoWorkspace = "/tmp/loupe-demo-0123456789ab"

// recordDemoFirstRun is the first run of a newcomer: no session yet, no
// Ollama; "Try the demo" starts the scripted demo in Step mode. The user
// steps through the first round, then continues, and approves the test
// run, the edit and the second test run once each.
func recordDemoFirstRun(t *testing.T) {
	w := newWindow(t, "demo_first_run", "No session and no Ollama: the user starts the scripted demo, which pauses before its first request; they step through round 1, continue, and approve each question once. The demo fixes the bug and the tests pass.", permission.ModeAsk, nil)
	w.m.SetDemoPace(0)
	w.started(nil)
	out := w.mustDo(session.Demo{})
	w.id = out.Summary.ID
	t.Cleanup(func() { os.RemoveAll(out.Summary.Workspace) })
	w.replace = append(w.replace, [2]string{out.Summary.Workspace, recordedDemoWorkspace})
	w.untilPaused(trace.PointBeforeRequest)
	for _, next := range []string{trace.PointAfterResponse, trace.PointBeforeTool, trace.PointAfterResult, trace.PointBeforeRequest} {
		w.step()
		w.untilPaused(next)
	}
	w.continueRun()
	for range 3 {
		w.answer(w.untilAsked().CallID, true, permission.ScopeOnce)
	}
	if end := w.untilEnded(); end.Reason != trace.EndAnswered {
		t.Fatalf("the demo ended %+v", end)
	}
	w.save()
}

// recordDemoStepped is the demo stepped from its first pause to its end
// with Step alone, the first question denied and the others approved once:
// every pause and every question of the demo, one after another, as the
// window's prefix walk checks them.
func recordDemoStepped(t *testing.T) {
	w := newWindow(t, "demo_stepped", "The scripted demo stepped from its first pause to its end with Step alone: the first question is denied, the others approved once.", permission.ModeAsk, nil)
	w.m.SetDemoPace(0)
	w.started(nil)
	out := w.mustDo(session.Demo{})
	w.id = out.Summary.ID
	t.Cleanup(func() { os.RemoveAll(out.Summary.Workspace) })
	w.replace = append(w.replace, [2]string{out.Summary.Workspace, recordedDemoWorkspace})
	w.untilPaused(trace.PointBeforeRequest)
	denied := false
	for range 200 {
		st := trace.StateOf(w.events())
		if !st.Open {
			break
		}
		switch {
		case st.Paused != nil:
			w.step()
			w.untilMoved(st.PausedSeq, "")
		case len(st.Asking) > 0:
			for id := range st.Asking {
				w.answer(id, denied, permission.ScopeOnce)
				denied = true
				w.untilMoved(0, id)
				break
			}
		default:
			w.untilMoved(0, "")
		}
	}
	if end := w.untilEnded(); end.Reason != trace.EndAnswered {
		t.Fatalf("the demo ended %+v", end)
	}
	if !denied {
		t.Fatal("the demo asked nothing to deny")
	}
	w.save()
}

// untilMoved waits until the run waits somewhere else than it did: at
// another pause than the one at seq from, for another question than the
// one about call answered, or not at all because it ended.
func (w *window) untilMoved(from int64, answered string) {
	w.t.Helper()
	w.rec.Wait("the run to move on", func(steps []golden.Step) bool {
		var events []trace.Event
		for _, s := range steps {
			var e trace.Event
			if s.Event != nil && json.Unmarshal(s.Event, &e) == nil && e.SessionID == w.id {
				events = append(events, e)
			}
		}
		st := trace.StateOf(events)
		if !st.Open {
			return len(events) > 0
		}
		if st.Paused != nil {
			return st.PausedSeq != from
		}
		for id := range st.Asking {
			if id != answered {
				return true
			}
		}
		return false
	})
}
