package ollama_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
)

var (
	smallTool = llm.ToolSpec{Name: "a.small", Description: "x", Parameters: json.RawMessage(`{"type":"object"}`)}
	bigTool   = llm.ToolSpec{Name: "a.big", Description: "A tool whose schema is long enough to cost many more tokens than the small one does.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"The file to read, relative to the workspace root"},"limit":{"type":"integer","description":"How many lines at most"}},"required":["path"]}`)}
)

func byteEstimate(s llm.ToolSpec) int { return 7 }

// The cost is Ollama's count over real HTTP: a bigger schema costs more,
// each is measured once per model, and the requests ask for one token.
func TestSchemaCostsMeasuredOnceByOllama(t *testing.T) {
	srv := ollamatest.New(t)
	srv.Respond(func(ollamatest.ChatRequest) ollamatest.Reply { return ollamatest.Reply{} })
	srv.AddModel(ollamatest.ModelSpec{Name: "qwen3:0.6b", Family: "qwen3", ContextLength: 40960, Capabilities: []string{"completion", "tools"}})
	c := ollama.New(srv.URL(), nil)
	// A session's request loaded the model with its num_ctx.
	load(t, c, "qwen3:0.6b", 12288)
	n0 := len(srv.Requests())
	sc := ollama.NewSchemaCosts()
	got, err := sc.Measure(context.Background(), c, "qwen3:0.6b", []llm.ToolSpec{smallTool, bigTool}, byteEstimate)
	if err != nil {
		t.Fatal(err)
	}
	small, big := got["a.small"], got["a.big"]
	if !small.Measured || !big.Measured || small.Tokens <= 0 || big.Tokens <= small.Tokens {
		t.Fatalf("costs %+v, want both measured, big > small > 0", got)
	}
	n := len(srv.Requests())
	if n-n0 != 4 {
		t.Fatalf("%d requests, want 4 (each tool offered twice and once)", n-n0)
	}
	for _, r := range srv.Requests()[n0:] {
		// num_ctx as loaded: another would make Ollama reload the model.
		if r.Chat.Options["num_predict"] != float64(1) || r.Chat.Options["num_ctx"] != float64(12288) {
			t.Fatalf("options %v, want num_predict 1 and the loaded num_ctx 12288", r.Chat.Options)
		}
	}
	again, err := sc.Measure(context.Background(), c, "qwen3:0.6b", []llm.ToolSpec{bigTool, smallTool}, byteEstimate)
	if err != nil || again["a.big"] != big || len(srv.Requests()) != n {
		t.Fatalf("second measure %+v %v with %d requests, want the cached %+v and no request", again, err, len(srv.Requests()), big)
	}
	// In all, the two cost their schemas and the template's tool header
	// once: more than the two alone.
	total, err := sc.Total(context.Background(), c, "qwen3:0.6b", []llm.ToolSpec{smallTool, bigTool}, 14)
	if err != nil || !total.Measured || total.Tokens <= small.Tokens+big.Tokens {
		t.Fatalf("total %+v %v, want measured, more than %d", total, err, small.Tokens+big.Tokens)
	}
}

// Unreachable Ollama: the estimate stands in, labelled so, and nothing is
// cached for later.
func TestSchemaCostsFallBackToEstimate(t *testing.T) {
	srv := ollamatest.New(t)
	url := srv.URL()
	srv.Close()
	got, err := ollama.NewSchemaCosts().Measure(context.Background(), ollama.New(url, nil), "m", []llm.ToolSpec{smallTool}, byteEstimate)
	if err == nil {
		t.Fatal("no error from an unreachable Ollama")
	}
	if c := got["a.small"]; c.Measured || c.Tokens != 7 {
		t.Fatalf("cost %+v, want the estimate 7, not measured", c)
	}
}

// load sends one request, as a session's first would: Ollama then holds
// the model with that num_ctx.
func load(t *testing.T, c *ollama.Client, model string, numCtx int) {
	t.Helper()
	if _, err := c.Chat(context.Background(), llm.Request{Model: model, Messages: []llm.Message{{Role: llm.RoleUser, Content: "hello"}}, Options: llm.Options{NumCtx: numCtx}}, nil); err != nil {
		t.Fatal(err)
	}
}

// A model Ollama has not loaded is not loaded by a measurement: no chat
// request goes out, and the estimate stands in, labelled so.
func TestSchemaCostsNeverLoadAModel(t *testing.T) {
	srv := ollamatest.New(t)
	srv.Respond(func(ollamatest.ChatRequest) ollamatest.Reply { return ollamatest.Reply{} })
	srv.AddModel(ollamatest.ModelSpec{Name: "qwen3:0.6b", Family: "qwen3", ContextLength: 40960, Capabilities: []string{"completion", "tools"}})
	got, err := ollama.NewSchemaCosts().Measure(context.Background(), ollama.New(srv.URL(), nil), "qwen3:0.6b", []llm.ToolSpec{bigTool}, byteEstimate)
	if !errors.Is(err, ollama.ErrNotLoaded) {
		t.Fatalf("error %v, want ErrNotLoaded", err)
	}
	if c := got["a.big"]; c.Measured || c.Tokens != 7 {
		t.Fatalf("cost %+v, want the estimate 7, not measured", c)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d chat requests went out to a model not loaded, want none", n)
	}
}
