package agent

import (
	"context"
	"fmt"
	"time"

	"github.com/loupe-dev/loupe/backend/llm"
)

// retrying is a Model that tries a request again when it failed before any
// of its answer arrived, with an error that may pass (Ollama restarting,
// busy, failing on its side), saying so each time through notice. The loop
// sees one call that either answered or failed.
type retrying struct {
	model  Model
	delays []time.Duration
	// notice records a notice; its error (the log could not be written)
	// ends the request.
	notice func(ctx context.Context, code, msg string) error
}

func (m retrying) Chat(ctx context.Context, req llm.Request, onChunk func(llm.Chunk)) (llm.Response, error) {
	for attempt := 0; ; attempt++ {
		resp, err := m.model.Chat(ctx, req, onChunk)
		if err == nil || ctx.Err() != nil || resp.Chunks > 0 || attempt >= len(m.delays) || !llm.Temporary(err) {
			return resp, err
		}
		wait := m.delays[attempt]
		msg := fmt.Sprintf("%v; trying again in %s (try %d of %d)", err, wait, attempt+2, len(m.delays)+1)
		if nerr := m.notice(ctx, "retry", msg); nerr != nil {
			return resp, nerr
		}
		select {
		case <-ctx.Done():
			return resp, ctx.Err()
		case <-time.After(wait):
		}
	}
}
