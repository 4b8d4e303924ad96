package ollama

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/loupe-dev/loupe/backend/llm"
)

// Rendered is a request as the model reads it: the one string Ollama makes
// of the messages and the tool schemas with the model's chat template,
// special tokens and all, before it is cut into tokens.
type Rendered struct {
	Model string `json:"model"`
	// Text is Ollama's _debug_info.rendered_template.
	Text string `json:"text"`
	// Digest is the installed model's digest (from /api/tags), "" when the
	// list did not name it: which template did the rendering.
	Digest string `json:"digest,omitempty"`
	// At is when Ollama rendered it (its created_at).
	At time.Time `json:"rendered_at"`
}

// Render asks Ollama to render r with the model's current chat template
// without running the model (the request's _debug_render_only, Ollama
// v0.17.4 server/routes.go ChatHandler, which answers one JSON object with
// _debug_info.rendered_template). Ollama still loads the model to render
// (it schedules a runner before it builds the prompt), so the bound is
// Chat's first-token timeout, not the short calls' one. The errors are
// Chat's: *UnreachableError, *ModelNotFoundError, *StatusError (e.g. a
// model that no longer supports tools), *TimeoutError.
func (c *Client) Render(ctx context.Context, r llm.Request) (Rendered, error) {
	body, err := encodeChatBodyWith(r, nil, func(req *api.ChatRequest) {
		stream := false
		req.Stream = &stream
		req.DebugRenderOnly = true
	})
	if err != nil {
		return Rendered{}, err
	}
	var resp *api.ChatResponse
	err = c.streamChat(ctx, r.Model, body, func(cr api.ChatResponse) { resp = &cr })
	if err != nil {
		return Rendered{}, err
	}
	if resp == nil || resp.DebugInfo == nil {
		// A server that does not know the field answers as for a chat.
		return Rendered{}, errors.New("Ollama at " + c.Host() + " did not render the prompt (its answer has no _debug_info): update Ollama, then try again")
	}
	return Rendered{Model: r.Model, Text: resp.DebugInfo.RenderedTemplate, At: resp.CreatedAt}, nil
}

// Digest returns the digest of the installed model name (as /api/tags
// lists it), or a *ModelNotFoundError.
func (c *Client) Digest(ctx context.Context, name string) (string, error) {
	ep := c.at()
	var list *api.ListResponse
	err := ep.short(ctx, "GET /api/tags", "", func(ctx context.Context, a *api.Client) (err error) {
		list, err = a.List(ctx)
		return err
	})
	if err != nil {
		return "", err
	}
	want := withTag(name)
	for _, m := range list.Models {
		if withTag(m.Name) == want || withTag(m.Model) == want {
			return m.Digest, nil
		}
	}
	return "", &ModelNotFoundError{Model: name}
}

// withTag gives a model name Ollama's default tag.
func withTag(name string) string {
	for i := len(name) - 1; i >= 0 && name[i] != '/'; i-- {
		if name[i] == ':' {
			return name
		}
	}
	return fmt.Sprintf("%s:latest", name)
}
