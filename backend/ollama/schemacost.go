package ollama

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
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
// per (host, model, schema), so a schema is measured once per model.
// Ollama has no tokenize endpoint: a measurement is the difference of
// prompt_eval_count between a one-token answer to a fixed tiny message
// with the tool and one without it. Ollama v0.17.4 reports the whole
// prompt there, also when the KV cache holds most of it.
type SchemaCosts struct {
	mu   sync.Mutex
	seen map[string]int
}

// NewSchemaCosts is an empty cache.
func NewSchemaCosts() *SchemaCosts { return &SchemaCosts{seen: map[string]int{}} }

// probeMessage is the fixed message both requests of a measurement send.
var probeMessage = []llm.Message{{Role: llm.RoleUser, Content: "hi"}}

// Measure returns each spec's cost by name. When Ollama cannot be asked
// (unreachable, the model not installed) the estimate stands in,
// Measured false, and the error says why; nothing is cached then.
func (sc *SchemaCosts) Measure(ctx context.Context, c *Client, model string, specs []llm.ToolSpec, estimate func(llm.ToolSpec) int) (map[string]SchemaCost, error) {
	out := make(map[string]SchemaCost, len(specs))
	var base int
	var firstErr error
	for _, s := range specs {
		key := sc.key(c.Host(), model, s)
		sc.mu.Lock()
		n, ok := sc.seen[key]
		sc.mu.Unlock()
		if ok {
			out[s.Name] = SchemaCost{Tokens: n, Measured: true}
			continue
		}
		if firstErr == nil && base == 0 {
			base, firstErr = c.promptCount(ctx, model, nil)
		}
		if firstErr == nil {
			with, err := c.promptCount(ctx, model, []llm.ToolSpec{s})
			if err == nil {
				n = max(with-base, 0)
				sc.mu.Lock()
				sc.seen[key] = n
				sc.mu.Unlock()
				out[s.Name] = SchemaCost{Tokens: n, Measured: true}
				continue
			}
			firstErr = err
		}
		out[s.Name] = SchemaCost{Tokens: estimate(s)}
	}
	return out, firstErr
}

func (sc *SchemaCosts) key(host, model string, s llm.ToolSpec) string {
	b, _ := json.Marshal(s)
	h := sha256.Sum256(b)
	return host + "\x00" + withTag(model) + "\x00" + hex.EncodeToString(h[:])
}

// promptCount is Ollama's prompt_eval_count for the probe message with
// tools, the model asked for one token only.
func (c *Client) promptCount(ctx context.Context, model string, tools []llm.ToolSpec) (int, error) {
	r := llm.Request{Model: model, Messages: probeMessage, Tools: tools, Options: llm.Options{NumCtx: probeNumCtx}}
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

// probeNumCtx fits the probe with any one schema; the count does not
// depend on it.
const probeNumCtx = 8192
