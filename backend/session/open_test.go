package session_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/trace"
)

// longSessionEvents is how long the session of TestOpenLongSession is.
const longSessionEvents = 10_000

// longSession fills the harness's session with at least n events. One run
// goes through the real loop against the fake Ollama: ten rounds, each
// reading one of four source files of a few KB, then an answer of a few
// paragraphs. Its events are then appended again, run after run, until
// the log holds n: the payloads are the engine's own (a round's request,
// response, call, decision and result), and a 10,000-event log is stored
// in seconds instead of the minutes a loop re-sending a growing history
// would take. The copies' requests do not name a consistent history, which
// opening a session does not read.
func longSession(t *testing.T, h *harness, n int) {
	t.Helper()
	appendRuns(t, h, n, realRun(t, h), nil)
}

// roomForRealRun gives realRun's ten file reads (about 17k tokens by the
// fake's count) a context that holds them: the fake refuses a prompt over
// num_ctx as Ollama does with truncate false.
func roomForRealRun(s *settings.Settings) { s.NumCtxCap = 32768 }

// realRun is one run through the real loop: ten rounds, each reading one
// of four source files of a few KB, then an answer of a few paragraphs.
func realRun(t *testing.T, h *harness) []trace.Event {
	t.Helper()
	files := []string{"parse.go", "render.go", "store.go", "watch.go"}
	for i, name := range files {
		h.write(name, sourceFile(name, 3000+i*700))
	}
	round := 0
	h.srv.Respond(func(req ollamatest.ChatRequest) ollamatest.Reply {
		round++
		if round > 10 {
			return ollamatest.Text(strings.Repeat("The four files parse, render, store and watch the notes. ", 40))
		}
		return calls(call("", "read_file", fmt.Sprintf(`{"path":%q}`, files[round%len(files)])))
	})
	if end := h.run("Read the source and tell me how it fits together"); end.Reason != trace.EndAnswered {
		t.Fatalf("the run ended %+v", end)
	}
	return h.events()
}

// appendRuns appends copies of run (the whole log so far), as runs 2, 3
// and on, until the log holds n events. edit, if not nil, may change each
// event before it is appended, given the seq it will get.
func appendRuns(t *testing.T, h *harness, n int, run []trace.Event, edit func(e *trace.Event, seq int64)) {
	t.Helper()
	ctx := context.Background()
	for copy, total := 2, len(run); total < n; copy++ {
		for _, e := range run {
			e.Seq, e.Run = 0, copy
			if edit != nil {
				edit(&e, int64(total+1))
			}
			if _, err := h.st.Append(ctx, e); err != nil {
				t.Fatal(err)
			}
			total++
		}
	}
}

// sourceFile is about size bytes of Go-looking text, different per name.
func sourceFile(name string, size int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// Package notes: %s\npackage notes\n\n", name)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "// step%d handles the %s case number %d.\nfunc step%d(n int) int {\n\treturn n*%d + len(%q)\n}\n\n", i, name, i, i, i+1, name)
	}
	return b.String()
}

// openBudget is the most that opening TestOpenLongSession's session may
// send the window: its 10,000 events as previews, about 580 bytes each
// (130 of them the envelope: session id, seq, kind, time). Whole, they are
// 17 MB.
const openBudget = 7_000_000

// TestOpenLongSession checks that opening a 10,000-event session sends the
// window the previews of its events, not every payload, and that each
// payload fetched afterwards is, byte for byte, the stored one. Run with
// -v to see the figures (docs/BENCHMARKS.md).
func TestOpenLongSession(t *testing.T) {
	if testing.Short() {
		t.Skip("stores a 10,000-event session")
	}
	h := newHarness(t, permission.ModeAuto, roomForRealRun)
	longSession(t, h, longSessionEvents)
	ctx := context.Background()
	start := time.Now()
	d, err := h.m.Open(ctx, h.id)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	stored := h.events()
	whole := 0
	for _, e := range stored {
		whole += len(e.Payload)
	}
	t.Logf("opening %d events sends %d bytes (%.1f MB); their stored payloads are %d bytes (%.1f MB); Open took %v", len(d.Events), len(b), float64(len(b))/1e6, whole, float64(whole)/1e6, took.Round(time.Millisecond))
	if len(b) > openBudget {
		t.Errorf("opening sends %d bytes, more than the %d budget", len(b), openBudget)
	}
	if len(d.Events) != len(stored) {
		t.Fatalf("opened %d events, the log has %d", len(d.Events), len(stored))
	}
	cut := 0
	for i, e := range stored {
		got := d.Events[i]
		if got.Seq != e.Seq || got.Kind != e.Kind || got.Run != e.Run || got.Round != e.Round {
			t.Fatalf("event %d opened as %+v", e.Seq, got)
		}
		if got.Preview != nil {
			cut++
		} else if string(got.Payload) != string(e.Payload) {
			t.Fatalf("event %d was changed without a preview mark", e.Seq)
		}
		full, err := h.m.Payload(ctx, h.id, e.Seq)
		if err != nil {
			t.Fatal(err)
		}
		if full != string(e.Payload) {
			t.Fatalf("the payload of event %d is not the stored one:\n got %.200s\nwant %.200s", e.Seq, full, e.Payload)
		}
	}
	// Every result (a file of a few KB), every response (its raw wire
	// JSON) and every run's end (its long final text) is cut; nothing else
	// is long.
	if kinds := count(stored, trace.KindToolResult) + count(stored, trace.KindModelResponse) + count(stored, trace.KindRunEnd); cut != kinds {
		t.Errorf("%d events were cut, want the %d results, responses and ends", cut, kinds)
	}
	if _, err := h.m.Payload(ctx, h.id, int64(len(stored)+1)); err == nil {
		t.Error("a payload past the end of the log was found")
	}
}

func count(evs []trace.Event, k trace.Kind) int {
	n := 0
	for _, e := range evs {
		if e.Kind == k {
			n++
		}
	}
	return n
}

// TestOpenLongOldSession is TestOpenLongSession on a log written the way
// Loupe wrote requests before tool sets and history deltas (each request
// holding every tool's schema and every history seq; issue 9 measured
// 35 MB for such a session): opening it leaves those out. Run with -v to
// see the figures.
func TestOpenLongOldSession(t *testing.T) {
	if testing.Short() {
		t.Skip("stores a 10,000-event session")
	}
	h := newHarness(t, permission.ModeAuto, roomForRealRun)
	ctx := context.Background()
	run := realRun(t, h)
	sets, err := h.st.ToolSets(ctx, h.id)
	if err != nil || len(sets) != 1 {
		t.Fatalf("tool sets %v, %v", sets, err)
	}
	var specs []llm.ToolSpec
	if err := json.Unmarshal(sets[1], &specs); err != nil {
		t.Fatal(err)
	}
	// The history: every message, answer and result so far.
	var history []int64
	for _, e := range run {
		if e.Kind == trace.KindUserMessage || e.Kind == trace.KindModelResponse || e.Kind == trace.KindToolResult {
			history = append(history, e.Seq)
		}
	}
	appendRuns(t, h, longSessionEvents, run, func(e *trace.Event, seq int64) {
		switch e.Kind {
		case trace.KindModelRequest:
			mr, err := trace.Decode[trace.ModelRequest](*e)
			if err != nil {
				t.Fatal(err)
			}
			mr.ToolSet, mr.ToolNames, mr.HistoryBase, mr.HistoryAdded = 0, nil, 0, nil
			mr.Tools, mr.HistorySeqs = specs, history
			e.Payload = trace.New(e.Kind, e.Run, e.Round, mr).Payload
		case trace.KindUserMessage, trace.KindModelResponse, trace.KindToolResult:
			history = append(history, seq)
		}
	})
	stored := h.events()
	wholeJSON, err := json.Marshal(stored)
	if err != nil {
		t.Fatal(err)
	}
	d, err := h.m.Open(ctx, h.id)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d events: whole they are %d bytes (%.1f MB) of JSON; opening sends %d bytes (%.1f MB)", len(stored), len(wholeJSON), float64(len(wholeJSON))/1e6, len(b), float64(len(b))/1e6)
	if len(b) > openBudget {
		t.Errorf("opening sends %d bytes, more than the %d budget", len(b), openBudget)
	}
}

// A run still open (here one the app left while its call ran) comes
// whole: the user may act on it (a pause, a question). The runs before it
// come as previews.
func TestOpenSendsAnOpenRunWhole(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, roomForRealRun)
	h.write("long.txt", strings.Repeat("a line of a long file\n", 400))
	h.srv.Script(calls(call("call_1", "read_file", `{"path":"long.txt"}`)), ollamatest.Text("Read it."))
	h.run("Read long.txt")
	long := strings.Repeat("x", 3*trace.PreviewBytes)
	ctx := context.Background()
	for _, e := range []trace.Event{
		trace.New(trace.KindUserMessage, 2, 0, trace.UserMessage{Text: long}),
		trace.New(trace.KindModelRequest, 2, 1, trace.ModelRequest{Model: testModel}),
		trace.New(trace.KindModelResponse, 2, 1, trace.ModelResponse{Content: long, DoneReason: "stop"}),
	} {
		e.SessionID = h.id
		if _, err := h.st.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	d, err := h.m.Open(ctx, h.id)
	if err != nil {
		t.Fatal(err)
	}
	stored := h.events()
	for i, e := range d.Events {
		whole := string(e.Payload) == string(stored[i].Payload) && e.Preview == nil
		switch {
		case e.Run == 1 && e.Kind == trace.KindToolResult && (whole || e.Preview["/content"].Lines != 401):
			t.Errorf("the ended run's long result came %s %v", e.Payload, e.Preview)
		case e.Run == 2 && !whole:
			t.Errorf("event %d of the open run came cut: %v", e.Seq, e.Preview)
		}
	}
}
