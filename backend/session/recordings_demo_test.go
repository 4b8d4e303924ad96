package session_test

import (
	"os"
	"testing"

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
	out := w.mustDo(session.Command{Do: session.DoDemo})
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
