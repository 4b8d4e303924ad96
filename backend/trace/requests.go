package trace

// Every request of a log in one pass, for what shows all of them at once
// (a shared replay embeds each request's body).

import (
	"fmt"
	"slices"

	"github.com/loupe-dev/loupe/backend/llm"
)

// EachRequest rebuilds every model_request of events (in seq order) in one
// pass over the log: the history is fed each event as the loop fed it, and
// each request is made from it by BuildRequest, as Rebuild makes one. tools
// gives the tool set a request names. fn gets the request's index in events
// and the request, or why it cannot be rebuilt (its record does not match
// the log, its tool set is missing); an error of fn stops the pass.
//
// Rebuild replays the log from its start for each request, which is right
// for one Raw view and quadratic for all of them.
func EachRequest(events []Event, tools func(ModelRequest) ([]llm.ToolSpec, error), fn func(i int, req llm.Request, err error) error) error {
	h := NewHistory()
	for i, e := range events {
		if e.Kind == KindModelRequest {
			req, err := nextRequest(h, e, tools)
			if err := fn(i, req, err); err != nil {
				return err
			}
		}
		if err := h.Add(e); err != nil {
			return fmt.Errorf("event %d: %w", e.Seq, err)
		}
	}
	return nil
}

// nextRequest is the request of the model_request e, h being the history
// of the events before it.
func nextRequest(h *History, e Event, tools func(ModelRequest) ([]llm.ToolSpec, error)) (llm.Request, error) {
	mr, err := Decode[ModelRequest](e)
	if err != nil {
		return llm.Request{}, err
	}
	// A request of the first schema lists its history whole; the later
	// ones name the previous request and what was added since.
	if mr.HistorySeqs == nil && mr.Tools == nil {
		base, added := h.Delta()
		if mr.HistoryBase != base || !slices.Equal(mr.HistoryAdded, added) {
			return llm.Request{}, fmt.Errorf("%w (event %d)", ErrHistoryMismatch, e.Seq)
		}
	}
	specs := mr.Tools
	if specs == nil {
		if specs, err = tools(mr); err != nil {
			return llm.Request{}, err
		}
	}
	return BuildRequest(h, mr, specs), nil
}
