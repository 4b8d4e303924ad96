package session

import (
	"context"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/store"
)

// RenderedPrompt is a stored request as the model reads it: Ollama's
// rendering of the body RawRequest rebuilds, made now with the model's
// current chat template. The log keeps the request, not its rendering: a
// template changed since (the model pulled again) renders differently,
// which Digest and At let the window say.
type RenderedPrompt struct {
	ollama.Rendered
	Seq int64 `json:"seq"`
}

// RenderRequest asks Ollama, through oc, for the prompt the model's
// template makes of the model_request event seq. It needs Ollama and the
// model: its errors say to start the one or pull the other.
func RenderRequest(ctx context.Context, st *store.Store, oc *ollama.Client, id string, seq int64) (RenderedPrompt, error) {
	req, err := storedRequest(ctx, st, id, seq)
	if err != nil {
		return RenderedPrompt{}, err
	}
	r, err := oc.Render(ctx, req)
	if err != nil {
		return RenderedPrompt{}, err
	}
	// Which model did the rendering, when the list says: best effort, the
	// rendering is there either way.
	if d, err := oc.Digest(ctx, req.Model); err == nil {
		r.Digest = d
	}
	return RenderedPrompt{Rendered: r, Seq: seq}, nil
}
