package session_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

// editCase is one thing the user can do to a pause's pending step, and what
// the model must then read.
type editCase struct {
	name  string
	point string
	// do makes the edit at the pause at, through the manager.
	do func(ctx context.Context, m *session.Manager, id string, p pausedAt) error
	// seen is text the requests after the edit hold only if it was
	// applied, unseen text they hold only if it was not.
	seen, unseen string
	// resumes is set for a command that ends the pause (skip): a restart
	// comes before it, not after.
	resumes bool
}

var editCases = []editCase{
	{name: "edit_request/system", point: trace.PointBeforeRequest, seen: "You are a careful agent.",
		do: func(ctx context.Context, m *session.Manager, id string, p pausedAt) error {
			system := "You are a careful agent."
			_, err := m.Do(ctx, session.EditRequest{Session: id, At: p.Seq, Request: &agent.RequestEdit{System: &system}})
			return err
		}},
	{name: "edit_request/options", point: trace.PointBeforeRequest, seen: `"num_ctx":4096`,
		do: func(ctx context.Context, m *session.Manager, id string, p pausedAt) error {
			opts := p.Request.Options
			opts.NumCtx = 4096
			_, err := m.Do(ctx, session.EditRequest{Session: id, At: p.Seq, Request: &agent.RequestEdit{Options: &opts}})
			return err
		}},
	{name: "edit_request/tools", point: trace.PointBeforeRequest, seen: `"name":"read_file"`, unseen: `"name":"write_file"`,
		do: func(ctx context.Context, m *session.Manager, id string, p pausedAt) error {
			only := []string{"read_file"}
			_, err := m.Do(ctx, session.EditRequest{Session: id, At: p.Seq, Request: &agent.RequestEdit{Tools: &only}})
			return err
		}},
	{name: "edit_request/message", point: trace.PointBeforeRequest, seen: "Read notes.txt, please",
		do: func(ctx context.Context, m *session.Manager, id string, p pausedAt) error {
			_, err := m.Do(ctx, session.EditRequest{Session: id, At: p.Seq, Request: &agent.RequestEdit{
				Messages: []agent.MessageEdit{{Seq: p.Request.Messages[0].Seq, Content: "Read notes.txt, please"}}}})
			return err
		}},
	{name: "edit_args", point: trace.PointBeforeTool, seen: "hello from notes",
		do: func(ctx context.Context, m *session.Manager, id string, p pausedAt) error {
			_, err := m.Do(ctx, session.EditArgs{Session: id, At: p.Seq, Args: `{"path":"notes.txt"}`})
			return err
		}},
	{name: "skip", point: trace.PointBeforeTool, seen: "I read it myself: it is empty", resumes: true,
		do: func(ctx context.Context, m *session.Manager, id string, p pausedAt) error {
			_, err := m.Do(ctx, session.Skip{Session: id, At: p.Seq, Observation: "I read it myself: it is empty"})
			return err
		}},
	{name: "edit_result", point: trace.PointAfterResult, seen: "The README says: edited",
		do: func(ctx context.Context, m *session.Manager, id string, p pausedAt) error {
			_, err := m.Do(ctx, session.EditResult{Session: id, At: p.Seq, Content: "The README says: edited"})
			return err
		}},
}

// Every edit a pause takes is applied by one function
// (trace.Checkpoint.WithEdit), and every reader of the pause agrees with
// it: the loop going on at once, a run restored after Loupe was closed at
// that pause, the rendering of the pending request, and the window, which
// shows the pause each edit event carries. For each kind of edit the
// requests the model gets afterwards are the same whether or not Loupe
// restarted in between, and hold the edit.
func TestEveryReaderOfAPauseAppliesItsEditsAlike(t *testing.T) {
	for _, c := range editCases {
		t.Run(c.name, func(t *testing.T) {
			live := editedRun(t, c, false)
			restored := editedRun(t, c, true)
			if len(live) != len(restored) {
				t.Fatalf("%d requests going on at once, %d after a restart", len(live), len(restored))
			}
			for i := range live {
				if live[i] != restored[i] {
					t.Errorf("request %d differs after a restart:\n at once: %s\nrestored: %s", i+1, live[i], restored[i])
				}
			}
			if !strings.Contains(strings.Join(live, "\n"), c.seen) {
				t.Errorf("no request holds the edit %q:\n%s", c.seen, strings.Join(live, "\n"))
			}
			if c.unseen != "" && strings.Contains(strings.Join(live, "\n"), c.unseen) {
				t.Errorf("a request still holds %q after the edit:\n%s", c.unseen, strings.Join(live, "\n"))
			}
		})
	}
}

// editedRun runs one call through its pauses, makes c's edit at c's point,
// closes Loupe there when restart is set (a second manager on the same
// file takes the run up), and goes on to the end. It returns the bodies
// the model got, with the workspace's path named $WORKSPACE.
func editedRun(t *testing.T, c editCase, restart bool) []string {
	h := newHarness(t, permission.ModeAuto, nil)
	h.write("notes.txt", "hello from notes\n")
	h.srv.Script(calls(call("call_1", "read_file", `{"path":"README.md"}`)), ollamatest.Text("Done."))
	ctx := context.Background()
	st1, err := store.Open(h.st.Path())
	if err != nil {
		t.Fatal(err)
	}
	m := session.NewManager(st1, ollama.New(h.srv.URL(), nil), permission.NewBroker(), nil)
	if _, err := m.Do(ctx, session.SetStepping{Session: h.id, On: true}); err != nil {
		t.Fatal(err)
	}
	go m.Run(ctx, h.id, "Read README.md", session.RunOptions{})
	var p pausedAt
	for p = waitPaused(t, m, h.id); p.Point != c.point; p = waitPaused(t, m, h.id) {
		if _, err := m.Do(ctx, session.Step{Session: h.id, At: p.Seq}); err != nil {
			t.Fatal(err)
		}
	}
	if !c.resumes {
		if err := c.do(ctx, m, h.id, p); err != nil {
			t.Fatal(err)
		}
	}
	evs := h.events()
	st := trace.StateOf(evs)
	if last := evs[len(evs)-1]; last.Kind == trace.KindEdit {
		// The window shows the pause the edit carries: it is the one
		// every Go reader folds from the log.
		ed, err := trace.Decode[trace.Edit](last)
		if err != nil || ed.Pause == nil || st.BadEdit != nil || !reflect.DeepEqual(*ed.Pause, *st.Paused) {
			t.Fatalf("the edit's pause is not the pause the log reads as (%v, %v):\n edit: %+v\n  log: %+v", err, st.BadEdit, ed.Pause, st.Paused)
		}
	}
	var rendered string
	if c.point == trace.PointBeforeRequest {
		r, err := session.RenderRequest(ctx, h.st, ollama.New(h.srv.URL(), nil), h.id, p.Seq)
		if err != nil {
			t.Fatal(err)
		}
		rendered = r.Text
	}
	if restart {
		st1.Close() // Loupe is gone; its run writes nothing more
		m = session.NewManager(h.st, ollama.New(h.srv.URL(), nil), permission.NewBroker(), nil)
		if err := m.Recover(ctx); err != nil {
			t.Fatal(err)
		}
	} else {
		t.Cleanup(func() { st1.Close() })
	}
	if c.resumes {
		if err := c.do(ctx, m, h.id, p); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(m.StopAll)
	at := p.Seq
	if c.name == "skip" {
		// Skip resumed the run itself, which stops at the next pause.
		waitFor(t, func() bool {
			st := trace.StateOf(h.events())
			return !st.Open || (st.Paused != nil && st.PausedSeq != p.Seq)
		}, "the run to go on from the skip")
		at = trace.StateOf(h.events()).PausedSeq
	}
	if at != 0 {
		if _, err := m.Do(ctx, session.Continue{Session: h.id, At: at}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, func() bool { return lastKind(h.events()) == trace.KindRunEnd }, "the run to end")
	evs = h.events()
	invariants.Check(t, evs)
	if end := lastEnd(t, evs); end.Reason != trace.EndAnswered {
		t.Fatalf("the run ended %+v", end)
	}
	var bodies []string
	for _, r := range h.srv.Requests() {
		bodies = append(bodies, strings.ReplaceAll(string(r.Body), jsonPath(h.ws), "$WORKSPACE"))
	}
	if rendered != "" {
		// What the pause rendered is what was sent.
		var sent int64
		for _, e := range evs {
			if e.Kind == trace.KindModelRequest && sent == 0 {
				sent = e.Seq
			}
		}
		r, err := session.RenderRequest(ctx, h.st, ollama.New(h.srv.URL(), nil), h.id, sent)
		if err != nil {
			t.Fatal(err)
		}
		if r.Text != rendered {
			t.Errorf("rendered at the pause:\n%s\nrendered as sent:\n%s", rendered, r.Text)
		}
	}
	return bodies
}

func lastKind(evs []trace.Event) trace.Kind {
	if len(evs) == 0 {
		return ""
	}
	return evs[len(evs)-1].Kind
}

// jsonPath is a path as a JSON string holds it.
func jsonPath(p string) string {
	b, _ := json.Marshal(p)
	return strings.Trim(string(b), `"`)
}
