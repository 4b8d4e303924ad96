package ollama

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"sync"

	"github.com/ollama/ollama/api"

	"github.com/loupe-dev/loupe/backend/llm"
)

// SchemaCost is what one tool's schema adds to every request.
type SchemaCost struct {
	Tokens int `json:"tokens"`
	// Measured: Ollama counted it (the model's template rendered the
	// schema); false means Loupe's byte estimate stands in for it.
	Measured bool `json:"measured"`
}

// SchemaCosts measures tool schemas with Ollama and remembers each result
// per (host, model, schemas), so a schema is measured once per model.
// Ollama has no tokenize endpoint: a measurement is a difference of
// prompt_eval_count between one-token answers to a fixed tiny message
// offered different tools. Ollama v0.17.4 reports the whole prompt
// there, also when the KV cache holds most of it (the runner counts its
// inputs before it reuses the cache; the real tier's
// TestSchemaCostIgnoresOllamasCache pins it).
//
// A template prints a header (how to call tools) once when any tool is
// offered, so one tool's cost is what it adds beside another tool (the
// tool offered twice, less once), and what a set of tools costs in all
// is Total: the header and every schema.
//
// It only asks a model Ollama has loaded, with the num_ctx it was
// loaded with: a measurement must never load a model into memory (or
// reload it with another context) on its own.
type SchemaCosts struct {
	mu   sync.Mutex
	seen map[string]int
}

// NewSchemaCosts is an empty cache.
func NewSchemaCosts() *SchemaCosts { return &SchemaCosts{seen: map[string]int{}} }

// ErrNotLoaded is why a measurement was not made: the model is not in
// memory, and loading it only to count would cost seconds and memory.
var ErrNotLoaded = errors.New("the model is not loaded in Ollama, so the schemas' cost is Loupe's estimate")

// probeMessage is the fixed message both requests of a measurement send.
var probeMessage = []llm.Message{{Role: llm.RoleUser, Content: "hi"}}

// Measure returns each spec's cost by name. When Ollama cannot be asked
// (unreachable, the model not loaded or not installed) the estimate
// stands in, Measured false, and the error says why (ErrNotLoaded when
// the model is not in memory); nothing is cached then.
func (sc *SchemaCosts) Measure(ctx context.Context, c *Client, model string, specs []llm.ToolSpec, estimate func(llm.ToolSpec) int) (map[string]SchemaCost, error) {
	out := make(map[string]SchemaCost, len(specs))
	var todo []llm.ToolSpec
	for _, s := range specs {
		if n, ok := sc.cached(c, model, "one", s); ok {
			out[s.Name] = SchemaCost{Tokens: n, Measured: true}
		} else {
			out[s.Name] = SchemaCost{Tokens: estimate(s)}
			todo = append(todo, s)
		}
	}
	if len(todo) == 0 {
		return out, nil
	}
	numCtx, err := c.loadedNumCtx(ctx, model)
	if err != nil {
		return out, err
	}
	for _, s := range todo {
		n, ok, err := c.countDiff(ctx, model, numCtx, []llm.ToolSpec{s, s}, []llm.ToolSpec{s})
		if err != nil {
			return out, err
		}
		if ok {
			sc.remember(c, model, "one", n, s)
			out[s.Name] = SchemaCost{Tokens: n, Measured: true}
		}
	}
	return out, nil
}

// Total is what specs cost a request in all, the template's tool header
// included; estimate stands in as Measure's does.
func (sc *SchemaCosts) Total(ctx context.Context, c *Client, model string, specs []llm.ToolSpec, estimate int) (SchemaCost, error) {
	if len(specs) == 0 {
		return SchemaCost{Measured: true}, nil
	}
	if n, ok := sc.cached(c, model, "all", specs...); ok {
		return SchemaCost{Tokens: n, Measured: true}, nil
	}
	est := SchemaCost{Tokens: estimate}
	numCtx, err := c.loadedNumCtx(ctx, model)
	if err != nil {
		return est, err
	}
	n, ok, err := c.countDiff(ctx, model, numCtx, specs, nil)
	if err != nil || !ok {
		return est, err
	}
	sc.remember(c, model, "all", n, specs...)
	return SchemaCost{Tokens: n, Measured: true}, nil
}

func (sc *SchemaCosts) cached(c *Client, model, kind string, specs ...llm.ToolSpec) (int, bool) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	n, ok := sc.seen[sc.key(c.Host(), model, kind, specs)]
	return n, ok
}

func (sc *SchemaCosts) remember(c *Client, model, kind string, n int, specs ...llm.ToolSpec) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.seen[sc.key(c.Host(), model, kind, specs)] = n
}

// countDiff is Ollama's count with tools more less with tools less; ok
// is false when Ollama cut the larger prompt to fit num_ctx (the count
// is then the cap, not the schemas).
func (c *Client) countDiff(ctx context.Context, model string, numCtx int, more, less []llm.ToolSpec) (int, bool, error) {
	hi, err := c.promptCount(ctx, model, numCtx, more)
	if err != nil {
		return 0, false, err
	}
	lo, err := c.promptCount(ctx, model, numCtx, less)
	if err != nil {
		return 0, false, err
	}
	if hi >= numCtx {
		return 0, false, nil
	}
	return max(hi-lo, 0), true, nil
}

// loadedNumCtx is the context Ollama loaded model with, or ErrNotLoaded.
func (c *Client) loadedNumCtx(ctx context.Context, model string) (int, error) {
	n, err := c.LoadedContext(ctx, model)
	if err != nil {
		return 0, err
	}
	if n <= 0 {
		// Not loaded, or a server that does not say its context: a probe
		// with a guessed num_ctx would reload the model.
		return 0, ErrNotLoaded
	}
	return n, nil
}

func (sc *SchemaCosts) key(host, model, kind string, specs []llm.ToolSpec) string {
	b, _ := json.Marshal(specs)
	h := sha256.Sum256(b)
	return host + "\x00" + withTag(model) + "\x00" + kind + "\x00" + hex.EncodeToString(h[:])
}

// promptCount is Ollama's prompt_eval_count for the probe message with
// tools, the model asked for one token only, with the num_ctx it is
// loaded with (another would make Ollama reload it).
func (c *Client) promptCount(ctx context.Context, model string, numCtx int, tools []llm.ToolSpec) (int, error) {
	r := llm.Request{Model: model, Messages: probeMessage, Tools: tools, Options: llm.Options{NumCtx: numCtx}}
	body, err := encodeChatBodyWith(r, nil, func(req *api.ChatRequest) {
		if req.Options == nil {
			req.Options = map[string]any{}
		}
		req.Options["num_predict"] = 1
		req.Options["temperature"] = 0
	})
	if err != nil {
		return 0, err
	}
	resp, err := c.chat(ctx, model, body, nil)
	if err != nil {
		return 0, err
	}
	return resp.Metrics.PromptEvalCount, nil
}
