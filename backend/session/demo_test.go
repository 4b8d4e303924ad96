package session_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/demo"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

// demoWindow is a Manager wired as the window's, with no Ollama anywhere:
// its client points at a port where nothing listens.
func demoWindow(t *testing.T) (*session.Manager, *recordingSink) {
	t.Helper()
	st := tempStore(t)
	saveSettings(t, st, permission.ModeAsk, nil)
	sink := &recordingSink{asks: make(chan trace.Permission, 16)}
	m := session.NewManager(st, ollama.New("http://127.0.0.1:9", nil), permission.NewBroker(), sink)
	m.SetDemoPace(0)
	t.Cleanup(m.StopAll)
	return m, sink
}

func do(t *testing.T, m *session.Manager, c session.Command) session.Outcome {
	t.Helper()
	out, err := m.Do(context.Background(), c)
	if err != nil {
		t.Fatalf("%s: %v", c.Kind(), err)
	}
	return out
}

// The window's "Try the demo": a session on a fresh copy of the project,
// in Step mode, paused before its first request. Continue, then a No to
// the test run and a Yes to the edit: the demo fixes the bug by reading
// alone, and says it did not run the tests, as it was told.
func TestDemoInTheWindowDeniedCommand(t *testing.T) {
	m, sink := demoWindow(t)
	out := do(t, m, session.Demo{})
	s := out.Summary
	if s == nil || s.Model != demo.Name || !s.Stepping || !strings.Contains(s.Workspace, "loupe-demo-") || s.Title != demo.Task {
		t.Fatalf("demo session: %+v", s)
	}
	t.Cleanup(func() { os.RemoveAll(s.Workspace) })
	waitFor(t, func() bool {
		st := trace.StateOf(eventsOf(t, m, s.ID))
		return st.Paused != nil && st.Paused.Point == trace.PointBeforeRequest
	}, "the pause before the first request")

	do(t, m, session.Continue{Session: s.ID})
	for _, want := range []struct {
		tool  string
		allow bool
	}{{"run_command", false}, {"edit_file", true}} {
		q := <-sink.asks
		if q.Tool != want.tool {
			t.Fatalf("asked about %s, want %s", q.Tool, want.tool)
		}
		do(t, m, session.Answer{Session: s.ID, CallID: q.CallID, Allow: want.allow, Scope: string(permission.ScopeOnce)})
	}
	m.Wait(s.ID)
	evs := eventsOf(t, m, s.ID)
	invariants.Check(t, evs)
	end := lastEnd(t, evs)
	if end.Reason != trace.EndAnswered || !strings.Contains(end.FinalText, "I did not run the tests, since you said no") {
		t.Fatalf("end: %+v", end)
	}
	// The denial reached the demo as the observation of its call, and the
	// fix is on the disk.
	var deniedRun bool
	for _, r := range results(t, evs) {
		deniedRun = deniedRun || (r.Name == "run_command" && r.ErrorKind == trace.ErrDenied)
	}
	fixed, _ := os.ReadFile(filepath.Join(s.Workspace, "slug.sh"))
	if !deniedRun || !strings.Contains(string(fixed), `-e 's/-$//'`) {
		t.Fatalf("denied run %v, slug.sh:\n%s", deniedRun, fixed)
	}
	// Its answers were streamed in pieces, as a model's are.
	sink.mu.Lock()
	pieces := 0
	for _, d := range sink.deltas {
		if d.SessionID == s.ID && d.Round == 1 && d.Content != "" {
			pieces++
		}
	}
	sink.mu.Unlock()
	if pieces < 3 {
		t.Fatalf("round 1 streamed %d pieces", pieces)
	}
	// Deleting the session takes the demo's copy of its project with it,
	// once no other session works there.
	other := do(t, m, session.Create{Workspace: s.Workspace, Model: demo.Name}).Summary
	do(t, m, session.Delete{Session: s.ID})
	if _, err := os.Stat(filepath.Join(s.Workspace, "slug.sh")); err != nil {
		t.Fatalf("the copy went while another session works in it: %v", err)
	}
	do(t, m, session.Delete{Session: other.ID})
	if _, err := os.Stat(s.Workspace); !os.IsNotExist(err) {
		t.Fatalf("the demo's copy is still there after its session went: %v", err)
	}
}

// Chosen in the model picker for a folder of the user's, the demo looks,
// sees that it is not its project, and says so: it changes nothing.
func TestDemoOnAnotherFolderSaysItCannotWorkThere(t *testing.T) {
	m, _ := demoWindow(t)
	ws := demoWorkspace(t)
	s := do(t, m, session.Create{Workspace: ws, Model: demo.Name}).Summary
	if s.Workspace != ws {
		t.Fatalf("workspace %q, want %q", s.Workspace, ws)
	}
	end, err := m.Run(context.Background(), s.ID, "Tidy up the README", session.RunOptions{})
	if err != nil || end.Reason != trace.EndAnswered || !strings.Contains(end.FinalText, "does not hold the demo's project") {
		t.Fatalf("end %+v, %v", end, err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "README.md")); string(b) != "# Demo\nhello from the workspace\n" {
		t.Fatalf("README changed: %q", b)
	}
	// A folder of the user's stays when its session goes.
	do(t, m, session.Delete{Session: s.ID})
	if _, err := os.Stat(filepath.Join(ws, "README.md")); err != nil {
		t.Fatalf("the user's folder was touched by the delete: %v", err)
	}
}

func eventsOf(t *testing.T, m *session.Manager, id string) []trace.Event {
	t.Helper()
	d, err := m.Open(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return d.Events
}

// The demo's answers carry counts and durations where Ollama puts its
// own: prompt_eval_count is the demo's count of the very body Loupe would
// post (a token per four bytes of what RawRequest rebuilds), so it grows
// round by round as the history does; eval_count counts its answer; the
// context meter reads the count as Ollama's, its total equal to it; and
// Raw says the counts are the demo script's.
func TestDemoReportsCountsAsOllamaWould(t *testing.T) {
	st := tempStore(t)
	saveSettings(t, st, permission.ModeAsk, nil)
	sink := &recordingSink{asks: make(chan trace.Permission, 16)}
	m := session.NewManager(st, ollama.New("http://127.0.0.1:9", nil), permission.NewBroker(), sink)
	m.SetDemoPace(0)
	t.Cleanup(m.StopAll)
	s := do(t, m, session.Demo{}).Summary
	t.Cleanup(func() { os.RemoveAll(s.Workspace) })
	waitFor(t, func() bool { return trace.StateOf(eventsOf(t, m, s.ID)).Paused != nil }, "the first pause")
	do(t, m, session.Continue{Session: s.ID})
	for range 3 {
		q := <-sink.asks
		do(t, m, session.Answer{Session: s.ID, CallID: q.CallID, Allow: true, Scope: string(permission.ScopeOnce)})
	}
	m.Wait(s.ID)
	// As stored: the window's preview leaves raw out.
	evs, err := st.Events(context.Background(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if end := lastEnd(t, evs); end.Reason != trace.EndAnswered {
		t.Fatalf("end: %+v", end)
	}
	last, rounds := 0, 0
	for _, e := range evs {
		if e.Kind != trace.KindModelResponse {
			continue
		}
		r, err := trace.Decode[trace.ModelResponse](e)
		if err != nil {
			t.Fatal(err)
		}
		rounds++
		body, err := session.RawRequest(context.Background(), st, s.ID, r.RequestSeq)
		if err != nil {
			t.Fatal(err)
		}
		mt := r.Metrics
		if want := (len(body) + demo.BytesPerToken - 1) / demo.BytesPerToken; mt.PromptEvalCount != want {
			t.Fatalf("round %d: prompt_eval_count %d, want %d (the body's %d bytes / %d)", e.Round, mt.PromptEvalCount, want, len(body), demo.BytesPerToken)
		}
		if mt.PromptEvalCount <= last || mt.EvalCount <= 0 {
			t.Fatalf("round %d: counts %d / %d after a prompt of %d", e.Round, mt.PromptEvalCount, mt.EvalCount, last)
		}
		last = mt.PromptEvalCount
		if r.Context == nil || r.Context.Source != trace.SourceOllama || r.Context.Prompt != mt.PromptEvalCount || r.Context.Output != mt.EvalCount {
			t.Fatalf("round %d: meter %+v for counts %d / %d", e.Round, r.Context, mt.PromptEvalCount, mt.EvalCount)
		}
		if !strings.Contains(string(r.Raw), `"prompt_eval_count":`) || !strings.Contains(string(r.Raw), "demo script's own counts") {
			t.Fatalf("round %d: raw %s", e.Round, r.Raw)
		}
	}
	if rounds < 4 {
		t.Fatalf("%d rounds", rounds)
	}
}
