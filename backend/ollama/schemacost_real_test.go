package ollama_test

import (
	"context"
	"testing"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/testkit/gguf"
	"github.com/loupe-dev/loupe/testkit/realollama"
)

// Against the real server: a measurement equals the difference of two
// counts a freshly started Ollama makes (nothing in its KV cache), even
// when the probe prompts were just evaluated and sit in the cache. Were
// prompt_eval_count only the uncached part, the warm measurement would
// come out near zero.
func TestSchemaCostIgnoresOllamasCache(t *testing.T) {
	realollama.Require(t)
	srv := realollama.Start(t)
	const model = "cost"
	// The full template: each tool's JSON schema is in the prompt.
	srv.CreateModel(t, model, gguf.Script{Steps: []gguf.Step{{Answer: "ok"}}})
	c := ollama.New(srv.URL(), nil)
	ctx := context.Background()
	const numCtx = 8192

	fresh := func(tools []llm.ToolSpec) int {
		t.Helper()
		srv.Restart(t)
		r, err := c.Chat(ctx, llm.Request{Model: model, Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}, Tools: tools, Options: llm.Options{NumCtx: numCtx}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return r.Metrics.PromptEvalCount
	}
	none, once, twice := fresh(nil), fresh([]llm.ToolSpec{bigTool}), fresh([]llm.ToolSpec{bigTool, bigTool})
	want, wantTotal := twice-once, once-none
	if want <= 0 || wantTotal <= want {
		t.Fatalf("fresh counts %d, %d, %d: want the tool header and schema to cost more than the schema, and that more than 0", none, once, twice)
	}

	// Warm: the probe prompts, with and without the tool, are evaluated
	// first, so the measurement's requests find them cached.
	for _, tools := range [][]llm.ToolSpec{nil, {bigTool}, {bigTool, bigTool}, nil, {bigTool}, {bigTool, bigTool}} {
		if _, err := c.Chat(ctx, llm.Request{Model: model, Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}, Tools: tools, Options: llm.Options{NumCtx: numCtx}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	sc := ollama.NewSchemaCosts()
	got, err := sc.Measure(ctx, c, model, []llm.ToolSpec{bigTool}, byteEstimate)
	if err != nil {
		t.Fatal(err)
	}
	if c := got[bigTool.Name]; !c.Measured || c.Tokens != want {
		t.Fatalf("measured %+v with a warm cache, want %d measured (the difference of two fresh counts)", c, want)
	}
	if total, err := sc.Total(ctx, c, model, []llm.ToolSpec{bigTool}, 7); err != nil || !total.Measured || total.Tokens != wantTotal {
		t.Fatalf("total %+v %v with a warm cache, want %d measured", total, err, wantTotal)
	}
}

// Against the real server: a model that is installed but not loaded
// stays unloaded; /api/ps lists nothing afterwards.
func TestSchemaCostLeavesAModelUnloaded(t *testing.T) {
	realollama.Require(t)
	srv := realollama.Start(t)
	srv.CreateModel(t, "idle", gguf.Script{Steps: []gguf.Step{{Answer: "ok"}}})
	c := ollama.New(srv.URL(), nil)
	got, err := ollama.NewSchemaCosts().Measure(context.Background(), c, "idle", []llm.ToolSpec{bigTool}, byteEstimate)
	if err != ollama.ErrNotLoaded || got[bigTool.Name].Measured {
		t.Fatalf("measure %+v %v, want the estimate and ErrNotLoaded", got, err)
	}
	if ms, err := c.Running(context.Background()); err != nil || len(ms) != 0 {
		t.Fatalf("running %+v %v, want no model loaded", ms, err)
	}
}
