package realscenarios_test

import (
	"testing"

	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/gguf"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

// The context meter on the real server: every answer's meter total is the
// real prompt_eval_count (round 2 is read mostly from the KV cache and is
// still counted whole, so it is not taken for a cut nor for a cache-only
// count), its parts add up to it, and the context the real /api/ps lists
// for the loaded model is recorded beside num_ctx. Round 2's estimate is
// calibrated by round 1's count (this model's template and vocabulary are
// far from the default 4 bytes a token), and lands near the real count.
func TestMeterOnRealOllama(t *testing.T) {
	srv := startServer(t, gguf.Script{ContextLength: 8192, Steps: []gguf.Step{
		{Call: []gguf.Call{{Name: "read_file", Args: `{"path": "notes.txt"}`}}},
		{Answer: "The notes say alpha and beta."},
	}})
	r := newRig(t, srv)
	end := r.run("What do the notes say?")
	if end.Reason != trace.EndAnswered || end.Rounds != 2 {
		t.Fatalf("end = %+v", end)
	}
	evs := r.events()
	invariants.Check(t, evs)
	reqs := payloads[trace.ModelRequest](t, evs, trace.KindModelRequest)
	resps := payloads[trace.ModelResponse](t, evs, trace.KindModelResponse)
	for i, p := range resps {
		m := p.Context
		if m == nil {
			t.Fatalf("round %d has no meter", i+1)
		}
		if m.Source != trace.SourceOllama || m.Prompt != p.Metrics.PromptEvalCount || m.Counted != p.Metrics.PromptEvalCount || m.Prompt <= 0 {
			t.Errorf("round %d: meter total %d (%s), real prompt_eval_count %d", i+1, m.Prompt, m.Source, p.Metrics.PromptEvalCount)
		}
		if m.Parts.Sum() != m.Prompt || m.Parts.Tools <= 0 || m.Parts.System <= 0 {
			t.Errorf("round %d: parts %+v do not add up to %d", i+1, m.Parts, m.Prompt)
		}
		if m.NumCtx != 8192 || m.Loaded != 8192 || m.Dropped || m.Output != p.Metrics.EvalCount {
			t.Errorf("round %d: meter %+v, want num_ctx 8192 allocated by the real server, nothing dropped", i+1, m)
		}
	}
	if sp := reqs[1].Split; sp.CalibratedBy == 0 || sp.BytesPerToken == trace.DefaultBytesPerToken || sp.BytesPerToken != resps[0].Context.BytesPerToken {
		t.Errorf("round 2 split = %+v, want calibrated by round 1's rate %v", sp, resps[0].Context.BytesPerToken)
	}
	if est, got := reqs[1].PromptEstimate, resps[1].Metrics.PromptEvalCount; got < est*8/10 || got > est*12/10 {
		t.Errorf("round 2: calibrated estimate %d, real count %d", est, got)
	}
	for _, n := range payloads[trace.Notice](t, evs, trace.KindNotice) {
		switch n.Code {
		case trace.CodeContextDropped, trace.CodeContextCut, trace.CodeContextAllocated:
			t.Errorf("notice %+v", n)
		}
	}
}
