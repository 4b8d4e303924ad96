package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

// sentBytes is the size of what a request sends: its messages and tools
// as JSON.
func sentBytes(t *testing.T, req llm.Request) int {
	m, _ := json.Marshal(req.Messages)
	tl, _ := json.Marshal(req.Tools)
	return len(m) + len(tl)
}

// counted answers with calls (or text when none) and reports a prompt of
// count(req) tokens, as Ollama does in its final line.
func counted(t *testing.T, count func(req llm.Request) int, content string, calls ...llm.ToolCall) func(context.Context, llm.Request, func(llm.Chunk)) (llm.Response, error) {
	return func(_ context.Context, req llm.Request, onChunk func(llm.Chunk)) (llm.Response, error) {
		if content != "" {
			onChunk(llm.Chunk{Content: content})
		}
		a := answer(content, calls...)
		// The answer's tokens: what the model printed, its calls too.
		out, _ := json.Marshal(a.Message)
		a.Metrics = llm.Metrics{PromptEvalCount: count(req), EvalCount: len(out) / 4, TotalDuration: 1}
		return a, nil
	}
}

func noticesOf(t *testing.T, evs []trace.Event, code string) []trace.Notice {
	var out []trace.Notice
	for _, n := range payloads[trace.Notice](t, evs) {
		if n.Code == code {
			out = append(out, n)
		}
	}
	return out
}

// A tokenizer of 6 bytes a token, far from the default 4: the first
// round's estimate is off by half, the next ones are calibrated by the
// session's own count, and no round is taken for a cut. Every answer's
// meter is Ollama's count, split into parts that add up to it.
func TestMeterCalibratesAndDoesNotFireOnNormalRounds(t *testing.T) {
	r := newRig(t)
	six := func(req llm.Request) int { return sentBytes(t, req) / 6 }
	r.model.say(
		counted(t, six, "", tc("c1", "look", `{"x":"`+strings.Repeat("a", 900)+`"}`)),
		counted(t, six, "", tc("c2", "look", `{"x":"`+strings.Repeat("b", 2000)+`"}`)),
		counted(t, six, "", tc("c3", "look", `{"x":"c"}`)),
		counted(t, six, "Done."),
	)
	if end := r.run(t.Context(), "Look three times"); end.Reason != trace.EndAnswered {
		t.Fatalf("end = %+v", end)
	}
	evs := r.log.all()
	invariants.Check(t, evs)
	if n := noticesOf(t, evs, trace.CodeContextDropped); len(n) != 0 {
		t.Fatalf("normal rounds flagged: %+v", n)
	}
	reqs := payloads[trace.ModelRequest](t, evs)
	resps := payloads[trace.ModelResponse](t, evs)
	for i, mr := range reqs {
		m := resps[i].Context
		if m == nil || m.Source != trace.SourceOllama || m.Prompt != resps[i].Metrics.PromptEvalCount || m.Parts.Sum() != m.Prompt || m.NumCtx != 2048 {
			t.Fatalf("round %d meter = %+v, want Ollama's count %d split into parts", i+1, m, resps[i].Metrics.PromptEvalCount)
		}
		if m.Parts.Tools <= 0 || m.Parts.System <= 0 {
			t.Errorf("round %d: parts %+v", i+1, m.Parts)
		}
		if i == 0 {
			if mr.Split.BytesPerToken != trace.DefaultBytesPerToken || mr.Split.CalibratedBy != 0 {
				t.Errorf("round 1 split = %+v, want the default rate", mr.Split)
			}
			continue
		}
		// Calibrated by the previous answer's count: within 2%.
		if mr.Split.CalibratedBy == 0 || mr.Split.BytesPerToken < 5.8 || mr.Split.BytesPerToken > 6.2 {
			t.Errorf("round %d split = %+v, want about 6 bytes a token from round %d", i+1, mr.Split, i)
		}
		if got, est := resps[i].Metrics.PromptEvalCount, mr.PromptEstimate; got < est*98/100 || got > est*102/100 {
			t.Errorf("round %d: count %d, calibrated estimate %d", i+1, got, est)
		}
	}
	// The 2,000-byte result is round 3's new observation, and round 4's
	// history.
	if n3, n4 := reqs[2].Split.New, reqs[3].Split.New; n3 < 300 || n4 > 50 {
		t.Errorf("new observations: round 3 %d, round 4 %d tokens", n3, n4)
	}
}

// Ollama counts far fewer tokens than the calibrated estimate, and the
// cache cannot explain it: the round is flagged, naming what was probably
// lost (the oldest messages, the task first), and the round goes on.
// The low count calibrates nothing.
func TestMeterFlagsACountFarBelowTheEstimate(t *testing.T) {
	r := newRig(t)
	big := strings.Repeat("x", 6000)
	full := func(req llm.Request) int { return sentBytes(t, req) / 4 }
	// Round 3: Ollama dropped the first user message and round 1's call
	// and its 6 KB result: it reports the rest.
	cut := func(req llm.Request) int {
		kept := req
		kept.Messages = append([]llm.Message{req.Messages[0]}, req.Messages[4:]...)
		return sentBytes(t, kept) / 4
	}
	r.model.say(
		counted(t, full, "", tc("c1", "look", `{"x":"`+big+`"}`)),
		counted(t, full, "", tc("c2", "look", `{"x":"y"}`)),
		counted(t, cut, "Done."),
	)
	if end := r.run(t.Context(), "Look at the big one"); end.Reason != trace.EndAnswered {
		t.Fatalf("end = %+v", end)
	}
	evs := r.log.all()
	invariants.Check(t, evs)
	ns := noticesOf(t, evs, trace.CodeContextDropped)
	if len(ns) != 1 {
		t.Fatalf("context_dropped notices = %+v, want one", ns)
	}
	msg := ns[0].Message
	for _, want := range []string{"message 1: user", "the result of look", "this session's earlier counts", "Compact"} {
		if !strings.Contains(msg, want) {
			t.Errorf("notice %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "message 5") {
		t.Errorf("notice names a message that was kept: %q", msg)
	}
	resps := payloads[trace.ModelResponse](t, evs)
	m := resps[2].Context
	if !m.Dropped || m.Source != trace.SourceOllama || m.Prompt != resps[2].Metrics.PromptEvalCount || m.BytesPerToken != 0 || m.Parts.Sum() != m.Prompt {
		t.Errorf("round 3 meter = %+v", m)
	}
	// The system prompt and tools were kept: the history took the loss.
	mrs := payloads[trace.ModelRequest](t, evs)
	if m.Parts.Tools != mrs[2].Split.Tools || m.Parts.History >= mrs[2].Split.History {
		t.Errorf("round 3 parts %+v, split %+v", m.Parts, mrs[2].Split)
	}
	// The notice follows the answer, in its round.
	if k := kinds(evs); !strings.Contains(strings.Join(k, " "), "model_response notice run_end") {
		t.Errorf("kinds = %v", k)
	}
}

// A server that counts only the tokens it did not have cached (Ollama
// v0.30.0 did) reports a follow-up round at about the size of what is new.
// That is not a cut: no notice, and the meter shows the previous prompt
// and answer plus the new tokens, never less than the context holds.
func TestMeterReadsACacheOnlyCountWithoutFlagging(t *testing.T) {
	r := newRig(t)
	// A system prompt of about 1,000 tokens, as agents' are: most of each
	// prompt is what the previous request sent.
	r.cfg.System = strings.Repeat("Be careful. ", 340)
	r.cfg.Options.NumCtx = 16384
	big := strings.Repeat("x", 800)
	var prevBytes int
	cacheOnly := func(req llm.Request) int {
		n := sentBytes(t, req)
		d := n - prevBytes
		prevBytes = n
		return max(1, d/4)
	}
	r.model.say(
		counted(t, cacheOnly, "", tc("c1", "look", `{"x":"`+big+`"}`)),
		counted(t, cacheOnly, "", tc("c2", "look", `{"x":"y"}`)),
		counted(t, cacheOnly, "Done."),
	)
	if end := r.run(t.Context(), "Look"); end.Reason != trace.EndAnswered {
		t.Fatalf("end = %+v", end)
	}
	evs := r.log.all()
	if n := append(noticesOf(t, evs, trace.CodeContextDropped), noticesOf(t, evs, trace.CodeContextCut)...); len(n) != 0 {
		t.Fatalf("a cache-only count was flagged: %+v", n)
	}
	resps := payloads[trace.ModelResponse](t, evs)
	mrs := payloads[trace.ModelRequest](t, evs)
	for i := 1; i < 3; i++ {
		m, prev := resps[i].Context, resps[i-1].Context
		if m.Source != trace.SourceCache || m.Counted != resps[i].Metrics.PromptEvalCount ||
			m.Prompt != prev.Prompt+prev.Output+m.Counted || m.BytesPerToken != 0 {
			t.Fatalf("round %d meter = %+v after %+v", i+1, m, prev)
		}
		// Not below what the prompt holds by Loupe's estimate.
		if m.Prompt < mrs[i].PromptEstimate {
			t.Errorf("round %d: meter %d under the estimate %d", i+1, m.Prompt, mrs[i].PromptEstimate)
		}
	}
	// The same low count with no request before it to be cached is a cut.
	if rd := trace.MeterOf(*mrs[2].Split, nil, resps[2].Metrics, 16384, 0); !rd.Meter.Dropped || rd.Lost <= 0 {
		t.Errorf("without a previous request: %+v", rd)
	}
}

// Ollama allocated another context than num_ctx: a notice says so once,
// the meter holds both, and counts against what Ollama allocated.
func TestMeterSaysWhatOllamaAllocated(t *testing.T) {
	r := newRig(t)
	r.model.loaded = 1024
	four := func(req llm.Request) int { return sentBytes(t, req) / 4 }
	r.model.say(counted(t, four, "", tc("c1", "look", `{"x":"a"}`)), counted(t, four, "Done."))
	if end := r.run(t.Context(), "Look"); end.Reason != trace.EndAnswered {
		t.Fatalf("end = %+v", end)
	}
	evs := r.log.all()
	ns := noticesOf(t, evs, trace.CodeContextAllocated)
	if len(ns) != 1 || !strings.Contains(ns[0].Message, "1024") || !strings.Contains(ns[0].Message, "num_ctx 2048") {
		t.Fatalf("context_allocated notices = %+v, want one naming 1024 and num_ctx 2048", ns)
	}
	for i, resp := range payloads[trace.ModelResponse](t, evs) {
		if m := resp.Context; m.NumCtx != 2048 || m.Loaded != 1024 || m.Context() != 1024 {
			t.Errorf("round %d meter = %+v", i+1, m)
		}
	}
	// When it matches, nothing is said.
	r2 := newRig(t)
	r2.model.loaded = 2048
	r2.model.say(counted(t, four, "Done."))
	r2.run(t.Context(), "Hi")
	if ns := noticesOf(t, r2.log.all(), trace.CodeContextAllocated); len(ns) != 0 {
		t.Errorf("notices = %+v", ns)
	}
}

// Ollama allocates a model's context when it loads it: the run asks
// /api/ps once for its model and num_ctx, and again only when an answer's
// load_duration says the model was loaded for it, whose context it then
// shows. A question a round cost a request to Ollama a round.
func TestMeterAsksWhatOllamaAllocatedOnceALoad(t *testing.T) {
	r := newRig(t)
	r.model.loaded = 1024
	four := func(req llm.Request) int { return sentBytes(t, req) / 4 }
	reloaded := func(next func(context.Context, llm.Request, func(llm.Chunk)) (llm.Response, error)) func(context.Context, llm.Request, func(llm.Chunk)) (llm.Response, error) {
		return func(ctx context.Context, req llm.Request, onChunk func(llm.Chunk)) (llm.Response, error) {
			// Evicted meanwhile and loaded again for this answer, with
			// another context (another server setting, say).
			r.model.mu.Lock()
			r.model.loaded = 2048
			r.model.mu.Unlock()
			a, err := next(ctx, req, onChunk)
			a.Metrics.LoadDuration = 3 * time.Second
			return a, err
		}
	}
	var replies []func(context.Context, llm.Request, func(llm.Chunk)) (llm.Response, error)
	for i := range 6 {
		reply := counted(t, four, "", tc(fmt.Sprintf("c%d", i), "look", fmt.Sprintf(`{"x":"%d"}`, i)))
		if i == 3 {
			reply = reloaded(reply)
		}
		replies = append(replies, reply)
	}
	r.model.say(append(replies, counted(t, four, "Done."))...)
	if end := r.run(t.Context(), "Look"); end.Reason != trace.EndAnswered {
		t.Fatalf("end = %+v", end)
	}
	if r.model.askedLoaded != 2 {
		t.Errorf("/api/ps asked %d times in 7 rounds with one reload, want 2", r.model.askedLoaded)
	}
	for i, resp := range payloads[trace.ModelResponse](t, r.log.all()) {
		want := 1024
		if i >= 3 {
			want = 2048
		}
		if m := resp.Context; m == nil || m.Loaded != want {
			t.Errorf("round %d meter = %+v, want loaded %d", i+1, m, want)
		}
	}
}
