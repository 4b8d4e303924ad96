package session_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/golden"
	"github.com/loupe-dev/loupe/testkit/workdir"
)

var update = flag.Bool("update", false, "rewrite the golden event logs in testdata/golden")

const testModel = "scripted"

// harness is one session wired like the app: a real SQLite file, the real
// Ollama client over HTTP to the fake server, the real tools on a temp
// workspace, and a permission broker that the test answers.
type harness struct {
	t      testing.TB
	srv    *ollamatest.Server
	st     *store.Store
	broker *permission.Broker
	m      *session.Manager
	sink   *recordingSink
	ws     string
	id     string
	// asks gets each question the runs put to the user, as the window
	// learns of it: the ask event.
	asks chan trace.Permission
}

func newHarness(t *testing.T, mode permission.Mode, edit func(*settings.Settings)) *harness {
	t.Helper()
	srv := ollamatest.New(t)
	srv.SetClock(func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) })
	srv.AddModel(ollamatest.ModelSpec{Name: testModel, ContextLength: 32768})
	h := build(t, srv, mode, edit)
	h.t = t
	return h
}

func benchHarness(b *testing.B, srv *ollamatest.Server, mode permission.Mode) *harness {
	return build(b, srv, mode, nil)
}

func build(t testing.TB, srv *ollamatest.Server, mode permission.Mode, edit func(*settings.Settings)) *harness {
	t.Helper()
	st := tempStore(t)
	asks := make(chan trace.Permission, 16)
	h := &harness{t: t, srv: srv, st: st, broker: permission.NewBroker(), sink: &recordingSink{asks: asks}, asks: asks}
	h.m = session.NewManager(st, ollama.New(srv.URL(), nil), h.broker, h.sink)
	t.Cleanup(h.m.StopAll)
	saveSettings(t, st, mode, edit)
	h.ws = demoWorkspace(t)
	sum, err := h.m.Create(context.Background(), h.ws, testModel)
	if err != nil {
		t.Fatal(err)
	}
	h.id = sum.ID
	return h
}

// tempStore opens a fresh database in a temporary folder, closed when the
// test ends.
func tempStore(t testing.TB) *store.Store {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "loupe.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// saveSettings saves the default settings in the permission mode, changed
// by edit when it is set.
func saveSettings(t testing.TB, st *store.Store, mode permission.Mode, edit func(*settings.Settings)) {
	t.Helper()
	s := settings.Defaults()
	s.PermissionMode = mode
	if edit != nil {
		edit(&s)
	}
	if err := settings.Save(context.Background(), st, s); err != nil {
		t.Fatal(err)
	}
}

// demoWorkspace is the workspace of the harness and of the recordings: a
// folder of a fixed path length holding README.md and notes.txt.
func demoWorkspace(t testing.TB) string {
	t.Helper()
	dir := fixedLengthDir(t)
	writeIn(t, dir, "README.md", "# Demo\nhello from the workspace\n")
	writeIn(t, dir, "notes.txt", "alpha\nbeta\n")
	return dir
}

// writeIn writes the file name below dir, making its folders.
func writeIn(t testing.TB, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (h *harness) write(name, content string) {
	h.t.Helper()
	writeIn(h.t, h.ws, name, content)
}

func (h *harness) run(text string) trace.RunEnd {
	h.t.Helper()
	end, err := h.m.Run(context.Background(), h.id, text, session.RunOptions{})
	if err != nil {
		h.t.Fatalf("run: %v", err)
	}
	return end
}

// answer replies to the question about a call, for this call only, as
// the window does.
func (h *harness) answer(callID string, allow bool) error {
	_, err := h.m.Do(context.Background(), session.Answer{Session: h.id, CallID: callID, Allow: allow, Scope: string(permission.ScopeOnce)})
	return err
}

func (h *harness) events() []trace.Event {
	h.t.Helper()
	evs, err := h.st.Events(context.Background(), h.id)
	if err != nil {
		h.t.Fatal(err)
	}
	return evs
}

// golden compares the session's log, with what varies from run to run
// redacted, to testdata/golden/NAME.json. The file is the spec: read it.
func (h *harness) golden(name string) {
	h.t.Helper()
	got := golden.Normalize(h.t, h.events(), golden.Options{Workspace: h.ws})
	golden.Check(h.t, filepath.Join("testdata", "golden", name+".json"), got, *update, "run `go test ./backend/session -update`")
	// Every recorded session comes back whole from its JSON export.
	if t, ok := h.t.(*testing.T); ok {
		checkJSONRoundTrip(t, h.st)
	}
}

// recordingSink keeps what the UI would have been sent.
type recordingSink struct {
	mu     sync.Mutex
	events []trace.Event
	deltas []agent.Delta
	asks   chan trace.Permission
	// onAsk, if set, sees each question as it is recorded.
	onAsk func(trace.Event, trace.Permission)
}

func (s *recordingSink) Event(e trace.Event) {
	s.mu.Lock()
	s.events = append(s.events, e)
	s.mu.Unlock()
	if p, err := trace.Decode[trace.Permission](e); err == nil && p.Decision == trace.Ask {
		if s.asks != nil {
			s.asks <- p
		}
		if s.onAsk != nil {
			s.onAsk(e, p)
		}
	}
}
func (s *recordingSink) Delta(d agent.Delta) {
	s.mu.Lock()
	s.deltas = append(s.deltas, d)
	s.mu.Unlock()
}

func results(t *testing.T, evs []trace.Event) []trace.ToolResult {
	t.Helper()
	var out []trace.ToolResult
	for _, e := range evs {
		if e.Kind == trace.KindToolResult {
			p, err := trace.Decode[trace.ToolResult](e)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, p)
		}
	}
	return out
}

func lastEnd(t *testing.T, evs []trace.Event) trace.RunEnd {
	t.Helper()
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Kind == trace.KindRunEnd {
			p, _ := trace.Decode[trace.RunEnd](evs[i])
			return p
		}
	}
	t.Fatal("no run_end")
	return trace.RunEnd{}
}

// notices counts the notices with the code in a log.
func notices(evs []trace.Event, code string) int {
	n := 0
	for _, e := range evs {
		if e.Kind == trace.KindNotice {
			if p, err := trace.Decode[trace.Notice](e); err == nil && p.Code == code {
				n++
			}
		}
	}
	return n
}

type llmCall = llm.ToolCall

// waitFor polls until cond holds or fails the test after 10 s.
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// fixedLengthDir makes a workspace whose path always has the same length,
// so that sizes and token counts in golden logs don't change with the
// random part of a temp dir name.
func fixedLengthDir(t testing.TB) string { return workdir.Fixed(t) }

// crashedDuringCall writes the log of a run that stopped (Loupe killed)
// while its one call, call_1, was running: the call is recorded, its
// result is not.
func (h *harness) crashedDuringCall(name, args string) {
	h.t.Helper()
	raw := json.RawMessage(args)
	for _, e := range []trace.Event{
		trace.New(trace.KindUserMessage, 1, 0, trace.UserMessage{Text: "go"}),
		trace.New(trace.KindModelRequest, 1, 1, trace.ModelRequest{Model: testModel}),
		trace.New(trace.KindModelResponse, 1, 1, trace.ModelResponse{ToolCalls: []llmCall{{ID: "call_1", Name: name, Args: raw}}, DoneReason: "stop"}),
		trace.New(trace.KindToolCall, 1, 1, trace.ToolCall{CallID: "call_1", Name: name, Args: raw, Valid: true}),
	} {
		e.SessionID = h.id
		if _, err := h.st.Append(context.Background(), e); err != nil {
			h.t.Fatal(err)
		}
	}
}
