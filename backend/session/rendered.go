package session

import (
	"context"
	"errors"
	"slices"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/tools"
	"github.com/loupe-dev/loupe/backend/trace"

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
//
// seq may also be the checkpoint a run is paused at before a request: the
// request it will send when stepped is rendered, with the edits made at
// the pause, as the window shows it there.
func RenderRequest(ctx context.Context, st *store.Store, oc *ollama.Client, id string, seq int64) (RenderedPrompt, error) {
	req, err := pendingRequest(ctx, st, oc, id, seq)
	if err == errNotPending {
		req, err = storedRequest(ctx, st, id, seq)
	}
	if err != nil {
		return RenderedPrompt{}, err
	}
	if req.Options.NumCtx == 0 {
		// An imported request that records no context window: the
		// template's text does not depend on it, and Ollama is never
		// asked without one.
		req.Options.NumCtx = ollama.FallbackNumCtx
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

var errNotPending = errors.New("not a pending request")

// pendingRequest is the request the run paused at checkpoint seq (before
// a request) will send: the history the log forms now (message edits
// applied), the pending system prompt and options with their edits since
// the pause, and the tools it names. errNotPending when seq is no such
// pause.
func pendingRequest(ctx context.Context, st *store.Store, oc *ollama.Client, id string, seq int64) (llm.Request, error) {
	evs, err := st.Events(ctx, id)
	if err != nil {
		return llm.Request{}, err
	}
	state := trace.StateOf(evs)
	if state.Paused == nil || state.PausedSeq != seq || state.Paused.Point != trace.PointBeforeRequest || state.Paused.Request == nil {
		return llm.Request{}, errNotPending
	}
	if state.BadEdit != nil {
		return llm.Request{}, state.BadEdit
	}
	// The pause as its edits leave it (trace.Checkpoint.WithEdit).
	p := state.Paused.Request
	mr := trace.ModelRequest{Model: p.Model, System: p.System, Options: p.Options}
	var think *bool
	for _, e := range evs {
		if e.Kind == trace.KindModelRequest {
			// The run's think setting is its requests' (the model's
			// capability when the run began).
			if prev, err := trace.Decode[trace.ModelRequest](e); err == nil {
				think = prev.Think
			}
		}
	}
	if think == nil {
		// The run's first request: think as setUp decides it.
		if info, err := oc.Show(ctx, p.Model); err == nil && info.SupportsThinking() {
			t := true
			think = &t
		}
	}
	f := false
	mr.Think, mr.Truncate = think, &f
	h, err := trace.Replay(evs)
	if err != nil {
		return llm.Request{}, err
	}
	// The built-in tools' schemas do not change: the names say which.
	specs := slices.DeleteFunc(tools.BuiltinSpecs(), func(s llm.ToolSpec) bool { return !slices.Contains(p.Tools, s.Name) })
	return trace.BuildRequest(h, mr, specs), nil
}
