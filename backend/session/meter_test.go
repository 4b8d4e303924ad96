package session_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

// The context meter against the fake server: every answer's meter is the
// fake's prompt_eval_count, split by part, beside the context /api/ps
// says Ollama allocated. In round 3 the server (as one ignoring truncate
// false would) reports the prompt without round 1's 20 KB read: far below
// Loupe's calibrated estimate, and no cache explains it, so the round is
// flagged with what was probably lost. The next run's estimate is
// calibrated by the session's counts from the log.
func TestMeterFlagsADroppedReadOnTheFake(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	h.write("big.log", bigLog())
	// The fake's count is a quarter of the body; round 3's leaves out
	// the 20 KB the read of round 1 put in the history twice over (JSON
	// escapes it once in the result).
	n := 0
	h.srv.Respond(func(req ollamatest.ChatRequest) ollamatest.Reply {
		n++
		body, _ := json.Marshal(req)
		count := len(body) / 4
		r := ollamatest.Reply{Metrics: &ollamatest.Metrics{TotalDuration: 9 * time.Millisecond, PromptEvalDuration: 5 * time.Millisecond, EvalCount: 12, EvalDuration: 3 * time.Millisecond}}
		switch n {
		case 1:
			r.ToolCalls = []ollamatest.Call{call("call_1", "read_file", `{"path":"big.log"}`)}
		case 2:
			r.ToolCalls = []ollamatest.Call{call("call_2", "read_file", `{"path":"notes.txt"}`)}
		case 3:
			dropped, _ := json.Marshal(req.Messages[1:4])
			count -= len(dropped) / 4
			r.Chunks = []ollamatest.Chunk{{Content: "Both read."}}
		default:
			r.Chunks = []ollamatest.Chunk{{Content: "Hello again."}}
		}
		r.Metrics.PromptEvalCount = count
		return r
	})
	if end := h.run("Read big.log, then notes.txt"); end.Reason != trace.EndAnswered {
		t.Fatalf("end = %+v", end)
	}
	evs := h.events()
	invariants.Check(t, evs)
	var ns []trace.Notice
	var resps []trace.ModelResponse
	for _, e := range evs {
		switch e.Kind {
		case trace.KindNotice:
			p, _ := trace.Decode[trace.Notice](e)
			ns = append(ns, p)
		case trace.KindModelResponse:
			p, _ := trace.Decode[trace.ModelResponse](e)
			resps = append(resps, p)
		}
	}
	if len(ns) != 1 || ns[0].Code != trace.CodeContextDropped ||
		!strings.Contains(ns[0].Message, "message 1: user") || !strings.Contains(ns[0].Message, "the result of read_file") {
		t.Fatalf("notices = %+v, want one context_dropped naming the task and the read", ns)
	}
	for i, p := range resps {
		m := p.Context
		if m == nil || m.Counted != p.Metrics.PromptEvalCount || m.Prompt != m.Counted || m.Parts.Sum() != m.Prompt ||
			m.NumCtx != 16384 || m.Loaded != 16384 || m.Dropped != (i == 2) {
			t.Fatalf("round %d meter = %+v", i+1, m)
		}
	}
	h.golden("context_dropped")

	// A new run: its first estimate is calibrated by round 2's count (the
	// last full one), read back from the log.
	if end := h.run("Hello?"); end.Reason != trace.EndAnswered {
		t.Fatalf("end = %+v", end)
	}
	var last trace.ModelRequest
	var seqOf2 int64
	k := 0
	for _, e := range h.events() {
		switch e.Kind {
		case trace.KindModelRequest:
			last, _ = trace.Decode[trace.ModelRequest](e)
		case trace.KindModelResponse:
			if k++; k == 2 {
				seqOf2 = e.Seq
			}
		}
	}
	if last.Split == nil || last.Split.CalibratedBy != seqOf2 || last.Split.BytesPerToken == trace.DefaultBytesPerToken {
		t.Errorf("run 2's split = %+v, want calibrated by round 2's answer (seq %d)", last.Split, seqOf2)
	}
}

// Ollama allocates a vision model at least 2048 tokens of context, more
// than a num_ctx cap of 1024 asks: the run says so once, and the meter
// counts against what Ollama holds.
func TestMeterSaysOllamaAllocatedMore(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, func(s *settings.Settings) { s.NumCtxCap = 1024 })
	h.srv.AddModel(ollamatest.ModelSpec{Name: testModel, ContextLength: 32768, Capabilities: []string{"completion", "tools", "vision"}})
	h.srv.Script(calls(call("call_1", "list_dir", `{"path":"."}`)), text("Two files."))
	if end := h.run("What is here?"); end.Reason != trace.EndAnswered {
		t.Fatalf("end = %+v", end)
	}
	var ns []trace.Notice
	var meters []*trace.Meter
	for _, e := range h.events() {
		switch e.Kind {
		case trace.KindNotice:
			p, _ := trace.Decode[trace.Notice](e)
			ns = append(ns, p)
		case trace.KindModelResponse:
			p, _ := trace.Decode[trace.ModelResponse](e)
			meters = append(meters, p.Context)
		}
	}
	if len(ns) != 1 || ns[0].Code != trace.CodeContextAllocated || !strings.Contains(ns[0].Message, "2048") || !strings.Contains(ns[0].Message, "num_ctx 1024") {
		t.Fatalf("notices = %+v", ns)
	}
	for i, m := range meters {
		if m == nil || m.NumCtx != 1024 || m.Loaded != 2048 || m.Context() != 2048 {
			t.Errorf("round %d meter = %+v", i+1, m)
		}
	}
}
