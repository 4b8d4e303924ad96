package ollama

import (
	"context"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
)

// Loaded is a model Ollama holds in memory now, as /api/ps lists it.
type Loaded struct {
	Name string `json:"name"`
	// ContextLength is the context Ollama allocated for the model: the
	// num_ctx it was loaded with, capped by the model's trained context
	// (and raised to 2048 for vision models), per runner sequence. 0 when
	// the server does not say (servers before context_length was listed).
	ContextLength int       `json:"context_length"`
	Size          int64     `json:"size"`
	SizeVRAM      int64     `json:"size_vram"`
	ExpiresAt     time.Time `json:"expires_at"`
}

// Running lists the models Ollama has loaded (GET /api/ps), the one that
// will be unloaded last first, as Ollama sorts them.
func (c *Client) Running(ctx context.Context) ([]Loaded, error) {
	var resp *api.ProcessResponse
	err := c.at().short(ctx, "GET /api/ps", "", func(ctx context.Context, a *api.Client) (err error) {
		resp, err = a.ListRunning(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]Loaded, 0, len(resp.Models))
	for _, m := range resp.Models {
		out = append(out, Loaded{Name: m.Name, ContextLength: m.ContextLength, Size: m.Size, SizeVRAM: m.SizeVRAM, ExpiresAt: m.ExpiresAt})
	}
	return out, nil
}

// LoadedContext is the context Ollama allocated for model, if it has the
// model loaded now (0 when it has not, or does not say). The agent asks it
// after each answer, when the model is loaded, to show beside num_ctx what
// Ollama really holds.
func (c *Client) LoadedContext(ctx context.Context, model string) (int, error) {
	ms, err := c.Running(ctx)
	if err != nil {
		return 0, err
	}
	// Right after a reload (another num_ctx), Ollama can list the runner
	// it is unloading beside the new one; the one kept longest is the one
	// that answered.
	n, until := 0, time.Time{}
	for _, m := range ms {
		if sameName(m.Name, model) && (n == 0 || m.ExpiresAt.After(until)) {
			n, until = m.ContextLength, m.ExpiresAt
		}
	}
	return n, nil
}

// sameName compares model names as Ollama does: "x" is "x:latest".
func sameName(a, b string) bool {
	tag := func(s string) string {
		if i := strings.LastIndex(s, ":"); i < 0 || strings.Contains(s[i:], "/") {
			return s + ":latest"
		}
		return s
	}
	return strings.EqualFold(tag(a), tag(b))
}
