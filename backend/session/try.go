package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/loupe-dev/loupe/backend/demo"
	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/trace"
)

// "Try this request on…": one recorded request sent again, byte for byte
// or edited, to another model, temperature or num_ctx, on any host, and
// its answer compared with the recorded one. Nothing of the session
// changes: the log is only read, no tool runs, and the try is not stored
// (it is an answer to a question, like the rendering of a request; what
// the user wants to keep of it is a fork with it as the answer).

// Try asks for the request of the model_request event At of Session to be
// sent again. A zero field of Model, Temperature and NumCtx keeps what the
// request had.
type Try struct {
	// ID names the try for its deltas and for CancelTry; the window picks
	// it. It may be "".
	ID      string `json:"id,omitempty"`
	Session string `json:"session"`
	At      int64  `json:"at"`
	// Host is where to send it, named as for a new session (a Settings
	// name, "local", an address); "" is the host the session runs on.
	Host        string   `json:"host,omitempty"`
	Model       string   `json:"model,omitempty"`
	Temperature *float64 `json:"temperature,omitempty"`
	NumCtx      int      `json:"num_ctx,omitempty"`
	// Body is an edited copy of the body RawRequest gives, sent as it is
	// (with Model, Temperature and NumCtx set in it when given); "" sends
	// the recorded body.
	Body string `json:"body,omitempty"`
}

// What a try changed of the recorded request (TryResult.Changed).
const (
	TryChangedBody        = "body"
	TryChangedModel       = "model"
	TryChangedTemperature = "temperature"
	TryChangedNumCtx      = "num_ctx"
	TryChangedHost        = "host"
)

// TryResult is the alternative answer beside the recorded one.
type TryResult struct {
	ID      string `json:"id,omitempty"`
	Session string `json:"session"`
	At      int64  `json:"at"`
	// Body is exactly the bytes that were sent; Exact says they are the
	// recorded request's, byte for byte.
	Body  string `json:"body"`
	Exact bool   `json:"exact"`
	// Changed lists what differs from the recorded request.
	Changed []string `json:"changed"`
	// Recorded is the answer the log holds to the request (nil when it
	// holds none: the request failed, or the run stopped before it).
	Recorded    *trace.Answer          `json:"recorded"`
	Alternative trace.Answer           `json:"alternative"`
	Compare     trace.AnswerComparison `json:"compare"`
}

// TryDelta is a piece of the alternative answer as it streams.
type TryDelta struct {
	ID       string `json:"id"`
	Content  string `json:"content,omitempty"`
	Thinking string `json:"thinking,omitempty"`
}

// Try sends a recorded request again and compares the answer with the
// recorded one; onDelta (may be nil) gets the answer's text as it comes.
// Before anything is sent it checks the request, the host and the model:
// a session or request that does not exist, a host Settings does not know
// or that does not answer, a model not installed or that cannot take the
// tools the request offers, and a body that is not a chat request are
// errors that say what to do. Nothing is written.
func (m *Manager) Try(ctx context.Context, t Try, onDelta func(TryDelta)) (TryResult, error) {
	if t.NumCtx < 0 {
		return TryResult{}, fmt.Errorf("num_ctx must be above 0, not %d", t.NumCtx)
	}
	if t.Temperature != nil && (*t.Temperature < 0 || *t.Temperature > 2) {
		return TryResult{}, fmt.Errorf("temperature must be from 0 to 2, not %g", *t.Temperature)
	}
	sess, err := m.store.GetSession(ctx, t.Session)
	if err != nil {
		return TryResult{}, err
	}
	req, err := storedRequest(ctx, m.store, t.Session, t.At)
	if err != nil {
		return TryResult{}, err
	}
	recordedBody, err := ollama.EncodeRecordedRequest(req)
	if err != nil {
		return TryResult{}, err
	}
	evs, err := m.store.Events(ctx, t.Session)
	if err != nil {
		return TryResult{}, err
	}
	mr, resp := requestAndAnswer(evs, t.At)

	// Where it goes.
	set, err := settings.Load(ctx, m.store)
	if err != nil {
		return TryResult{}, err
	}
	ref := sess.Host
	if t.Host != "" {
		if ref, err = m.hostRef(ctx, t.Host); err != nil {
			return TryResult{}, err
		}
	}
	h, err := m.clientFor(ctx, set, ref)
	if err != nil {
		return TryResult{}, err
	}

	// What goes.
	res := TryResult{ID: t.ID, Session: t.Session, At: t.At, Changed: []string{}}
	body := recordedBody
	if t.Body != "" {
		body = []byte(t.Body)
	}
	body, err = ollama.SetChatFields(body, ollama.BodyChanges{Model: t.Model, Temperature: t.Temperature, NumCtx: t.NumCtx})
	if err != nil {
		return TryResult{}, err
	}
	facts, err := ollama.ReadChatBody(body)
	if err != nil {
		return TryResult{}, err
	}
	if demo.Is(facts.Model) {
		return TryResult{}, errors.New("the demo model is a script that answers only its own session: choose an Ollama model to try the request on")
	}
	res.Body, res.Exact = string(body), bytes.Equal(body, recordedBody)
	if !res.Exact && t.Body != "" && t.Body != string(recordedBody) {
		res.Changed = append(res.Changed, TryChangedBody)
	}
	if facts.Model != req.Model {
		res.Changed = append(res.Changed, TryChangedModel)
	}
	if facts.Temperature != req.Options.Temperature {
		res.Changed = append(res.Changed, TryChangedTemperature)
	}
	if facts.NumCtx != req.Options.NumCtx {
		res.Changed = append(res.Changed, TryChangedNumCtx)
	}
	if mr != nil && mr.Host != "" && mr.Host != h.client.Host() {
		res.Changed = append(res.Changed, TryChangedHost)
	}

	// Whether the model can take it: asked first, so a model that is not
	// there or cannot use tools is said plainly, with the host.
	info, err := h.client.Show(ctx, facts.Model)
	if err != nil {
		return TryResult{}, h.wrap(err)
	}
	if len(facts.Tools) > 0 && !info.SupportsTools() {
		return TryResult{}, h.wrap(fmt.Errorf("model %q cannot use tools (Ollama does not list the tools capability for it), and this request offers %d (%s): choose a model that supports tools, or edit the body to leave \"tools\" out", facts.Model, len(facts.Tools), strings.Join(facts.Tools, ", ")))
	}
	if facts.Think && !info.SupportsThinking() {
		return TryResult{}, h.wrap(fmt.Errorf("model %q does not think, and this request asks it to (\"think\": true): choose a thinking model, or edit the body to leave \"think\" out", facts.Model))
	}
	if facts.NumCtx == 0 {
		// A body without num_ctx (an imported request that records none,
		// or an edit that took it out) gets what a run of this model
		// would send: Ollama is never left to its own silent default.
		n := ollama.NumCtx(info.ContextLength, set.NumCtxCap)
		if body, err = ollama.SetChatFields(body, ollama.BodyChanges{NumCtx: n}); err != nil {
			return TryResult{}, err
		}
		facts.NumCtx = n
		res.Body, res.Exact = string(body), false
		if !slices.Contains(res.Changed, TryChangedNumCtx) {
			res.Changed = append(res.Changed, TryChangedNumCtx)
		}
	}

	var onChunk func(llm.Chunk)
	if onDelta != nil {
		onChunk = func(c llm.Chunk) { onDelta(TryDelta{ID: t.ID, Content: c.Content, Thinking: c.Thinking}) }
	}
	alt, err := h.client.ChatBody(ctx, body, onChunk)
	if err != nil {
		if ctx.Err() == nil {
			err = h.wrap(err)
		}
		return TryResult{}, err
	}
	name, host := h.where()
	res.Alternative = trace.Answer{
		Model: facts.Model, Host: host, HostName: name,
		Options:    llm.Options{NumCtx: facts.NumCtx, Temperature: facts.Temperature},
		Content:    alt.Message.Content,
		Thinking:   alt.Message.Thinking,
		ToolCalls:  nonNil(alt.Message.ToolCalls),
		DoneReason: alt.DoneReason,
		Incomplete: !alt.Complete(),
		Metrics:    alt.Metrics,
	}
	if resp != nil {
		a := trace.Answer{
			Model: req.Model, Options: req.Options,
			Content: resp.Content, Thinking: resp.Thinking, ToolCalls: nonNil(resp.ToolCalls),
			DoneReason: resp.DoneReason, Incomplete: resp.Incomplete, Metrics: resp.Metrics,
		}
		if mr != nil {
			a.Host, a.HostName = mr.Host, mr.HostName
		}
		res.Recorded = &a
	}
	res.Compare = trace.CompareAnswers(res.Recorded, res.Alternative)
	return res, nil
}

// requestAndAnswer finds the model_request event seq and the answer the
// log recorded to it, either nil when absent.
func requestAndAnswer(evs []trace.Event, seq int64) (*trace.ModelRequest, *trace.ModelResponse) {
	var mr *trace.ModelRequest
	for _, e := range evs {
		switch {
		case e.Seq == seq && e.Kind == trace.KindModelRequest:
			if p, err := trace.Decode[trace.ModelRequest](e); err == nil {
				mr = &p
			}
		case e.Seq > seq && e.Kind == trace.KindModelResponse:
			if p, err := trace.Decode[trace.ModelResponse](e); err == nil && p.RequestSeq == seq {
				return mr, &p
			}
		}
	}
	return mr, nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Tries are the tries under way, by ID, so that one can be cancelled.
type Tries struct {
	mu sync.Mutex
	on map[string]context.CancelFunc
}

// Run runs f with a context that Cancel(id) ends. A second try of the same
// ID is refused while the first runs.
func (ts *Tries) Run(ctx context.Context, id string, f func(context.Context) (TryResult, error)) (TryResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if id != "" {
		ts.mu.Lock()
		if ts.on == nil {
			ts.on = map[string]context.CancelFunc{}
		}
		if _, busy := ts.on[id]; busy {
			ts.mu.Unlock()
			return TryResult{}, fmt.Errorf("a try named %q is under way already", id)
		}
		ts.on[id] = cancel
		ts.mu.Unlock()
		defer func() {
			ts.mu.Lock()
			delete(ts.on, id)
			ts.mu.Unlock()
		}()
	}
	return f(ctx)
}

// Cancel stops the try id; false when none of that ID is under way.
func (ts *Tries) Cancel(id string) bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	cancel, ok := ts.on[id]
	if ok {
		cancel()
	}
	return ok
}
