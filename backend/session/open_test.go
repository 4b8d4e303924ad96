package session_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
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
	run := h.events()
	ctx := context.Background()
	for copy, total := 2, len(run); total < n; copy++ {
		for _, e := range run {
			e.Seq, e.Run = 0, copy
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

// TestOpenLongSession reports what opening a 10,000-event session sends
// the window: the JSON of Manager.Open, as the bound OpenSession returns
// it. Run with -v to see the figure (docs/BENCHMARKS.md).
func TestOpenLongSession(t *testing.T) {
	if testing.Short() {
		t.Skip("stores a 10,000-event session")
	}
	h := newHarness(t, permission.ModeAuto, nil)
	longSession(t, h, longSessionEvents)
	d, err := h.m.Open(context.Background(), h.id)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	stored := 0
	for _, e := range h.events() {
		stored += len(e.Payload)
	}
	t.Logf("opening %d events sends %d bytes (%.1f MB); their stored payloads are %.1f MB", len(d.Events), len(b), float64(len(b))/1e6, float64(stored)/1e6)
}
