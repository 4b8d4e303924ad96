package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/tools"
	"github.com/loupe-dev/loupe/backend/trace"
)

// Agent runs the loop for one session. It is not safe to Run twice at once.
type Agent struct {
	cfg      Config
	model    Model
	rec      Recorder
	tools    *tools.Registry
	approver Approver
	gate     Gate
	onDelta  func(Delta)

	// events is the session's log as committed so far; requests are
	// projected from it, and where a restored run stands is read from it.
	events []trace.Event
	run    int
	round  int
	// resumeAt is the pause a restored run waits at first, without
	// recording it again.
	resumeAt *trace.Checkpoint
	// lastCalls remembers recent rounds' calls to notice a model that
	// repeats itself.
	lastCalls []string
}

// New builds an agent over a session's existing log. gate may be nil (no
// stepping).
func New(cfg Config, model Model, rec Recorder, reg *tools.Registry, approver Approver, gate Gate, onDelta func(Delta), history []trace.Event) *Agent {
	if onDelta == nil {
		onDelta = func(Delta) {}
	}
	return &Agent{cfg: cfg, model: model, rec: rec, tools: reg, approver: approver, gate: gate, onDelta: onDelta, events: append([]trace.Event(nil), history...)}
}

// Events returns the log as the agent knows it.
func (a *Agent) Events() []trace.Event { return a.events }

// record commits an event of the current run and round. Recording must
// survive the run's cancellation (the cancel itself is recorded), so it
// never uses the run's ctx for the write.
func (a *Agent) record(ctx context.Context, kind trace.Kind, payload any) (trace.Event, error) {
	e := trace.New(kind, a.run, a.round, payload)
	e.SessionID = a.cfg.SessionID
	e, err := a.rec.Append(context.WithoutCancel(ctx), e)
	if err != nil {
		return e, fmt.Errorf("record %s: %w", kind, err)
	}
	a.events = append(a.events, e)
	return e, nil
}

// errStore marks a failure to write the log: the loop cannot go on without
// its record, so it stops and says so.
type errStore struct{ err error }

func (e errStore) Error() string { return "could not save the session: " + e.err.Error() }

// Run appends the user's message and loops until the run ends. It returns
// the run_end payload that closed the run. A non-nil error means the log
// itself could not be written.
func (a *Agent) Run(ctx context.Context, text string) (trace.RunEnd, error) {
	a.run = nextRun(a.events)
	a.round = 0
	if _, err := a.record(ctx, trace.KindUserMessage, trace.UserMessage{Text: text}); err != nil {
		return trace.RunEnd{}, err
	}
	for _, n := range a.cfg.StartNotices {
		if _, err := a.record(ctx, trace.KindNotice, n); err != nil {
			return trace.RunEnd{}, err
		}
	}
	return a.finish(ctx)
}

// Resume continues a run that was paused when the app last exited, from
// the checkpoint where it waits.
func (a *Agent) Resume(ctx context.Context) (trace.RunEnd, error) {
	st := RunState(a.events)
	if st.Paused == nil {
		return trace.RunEnd{}, errors.New("agent: the session has no paused run to resume")
	}
	a.run, a.round, a.resumeAt = st.Run, st.Round, st.Paused
	// The run goes on with what it was using: the last request's system
	// prompt and options, and any edit of them since.
	for _, e := range a.events {
		if e.Run != a.run {
			continue
		}
		switch e.Kind {
		case trace.KindModelRequest:
			if mr, err := trace.Decode[trace.ModelRequest](e); err == nil {
				a.cfg.System, a.cfg.Options = mr.System, mr.Options
			}
		case trace.KindEdit:
			if ed, err := trace.Decode[trace.Edit](e); err == nil {
				switch ed.Target {
				case trace.EditSystem:
					_ = json.Unmarshal(ed.After, &a.cfg.System)
				case trace.EditOptions:
					_ = json.Unmarshal(ed.After, &a.cfg.Options)
				}
			}
		}
	}
	return a.finish(ctx)
}

func (a *Agent) finish(ctx context.Context) (trace.RunEnd, error) {
	end, err := a.loop(ctx)
	if err != nil {
		var se errStore
		if errors.As(err, &se) {
			return trace.RunEnd{}, se.err
		}
		return trace.RunEnd{}, err
	}
	if _, err := a.record(ctx, trace.KindRunEnd, end); err != nil {
		return end, err
	}
	return end, nil
}

func nextRun(events []trace.Event) int {
	n := 0
	for _, e := range events {
		if e.Run > n {
			n = e.Run
		}
	}
	return n + 1
}

// loop runs rounds until the run ends. Each pass first looks at the log:
// a complete answer whose calls are not all answered goes on to its tool
// phase (also when a restored run resumes there); otherwise a new round
// starts.
func (a *Agent) loop(ctx context.Context) (trace.RunEnd, error) {
	for {
		if ctx.Err() != nil {
			return a.cancelled(ctx)
		}
		if resp, ok := a.lastResponse(); ok {
			end, err := a.afterResponse(ctx, resp)
			if err != nil || end != nil {
				return deref(end), err
			}
			continue
		}
		if a.round >= a.cfg.maxRounds() {
			msg := fmt.Sprintf("stopped after %d rounds (the round cap); raise it in Settings or send a message to continue", a.round)
			if _, err := a.record(ctx, trace.KindNotice, trace.Notice{Code: "round_cap", Message: msg}); err != nil {
				return trace.RunEnd{}, errStore{err}
			}
			return trace.RunEnd{Reason: trace.EndRoundCap, Detail: msg, Rounds: a.round}, nil
		}
		a.round++
		if end, err := a.ask(ctx); err != nil || end != nil {
			return deref(end), err
		}
	}
}

// lastResponse returns this run's last model response when the loop still
// has to act on it: it is complete and is not followed by a new request,
// and either has calls without results or ends the run.
func (a *Agent) lastResponse() (trace.ModelResponse, bool) {
	for i := len(a.events) - 1; i >= 0; i-- {
		e := a.events[i]
		if e.Run != a.run {
			break
		}
		switch e.Kind {
		case trace.KindModelRequest:
			return trace.ModelResponse{}, false
		case trace.KindModelResponse:
			p, err := trace.Decode[trace.ModelResponse](e)
			if err != nil || p.Incomplete {
				return trace.ModelResponse{}, false
			}
			if len(p.ToolCalls) == 0 {
				return p, true
			}
			answered := a.results()
			for _, c := range p.ToolCalls {
				if _, ok := answered[c.ID]; !ok {
					return p, true
				}
			}
			// Every call answered; a checkpoint after the last result may
			// still be owed to a restored run.
			if a.resumeAt != nil && a.resumeAt.Point == trace.PointAfterResult {
				return p, true
			}
			return trace.ModelResponse{}, false
		}
	}
	return trace.ModelResponse{}, false
}

// afterResponse pauses after the answer (when stepping), then ends the run
// on a plain answer or runs the calls.
func (a *Agent) afterResponse(ctx context.Context, resp trace.ModelResponse) (*trace.RunEnd, error) {
	if !a.toolPhaseStarted(resp.ToolCalls) && (a.resumeAt == nil || a.resumeAt.Point == trace.PointAfterResponse) {
		if _, err := a.checkpoint(ctx, &pause{cp: Checkpoint{Point: trace.PointAfterResponse}}); err != nil {
			return nil, err
		}
		if ctx.Err() != nil {
			end, err := a.cancelled(ctx)
			return &end, err
		}
	}
	if len(resp.ToolCalls) == 0 {
		if strings.TrimSpace(resp.Content) == "" {
			// Ollama drops a tool call it cannot parse (malformed JSON,
			// a tool that was not offered), leaving an empty answer.
			msg := "the model's answer is empty. If it was trying to call a tool, Ollama may have dropped a call it could not parse or one naming a tool that was not offered."
			if _, err := a.record(ctx, trace.KindNotice, trace.Notice{Code: "empty_answer", Message: msg}); err != nil {
				return nil, errStore{err}
			}
		}
		return &trace.RunEnd{Reason: trace.EndAnswered, FinalText: resp.Content, Rounds: a.round}, nil
	}
	if err := a.runCalls(ctx, resp.ToolCalls); err != nil {
		return nil, err
	}
	// A restore point that was not met (a log edited by hand) must not
	// hold the loop back.
	a.resumeAt = nil
	if ctx.Err() != nil {
		end, err := a.cancelled(ctx)
		return &end, err
	}
	if end, err := a.repeating(ctx, resp.ToolCalls); end != nil || err != nil {
		return end, err
	}
	return nil, nil
}

// repeatLimit is how many rounds in a row may ask for exactly the same
// calls before the loop stops: a small model stuck in a loop.
const repeatLimit = 3

func (a *Agent) repeating(ctx context.Context, calls []llm.ToolCall) (*trace.RunEnd, error) {
	var sig strings.Builder
	for _, c := range calls {
		sig.WriteString(c.Name)
		sig.Write(compactJSON(c.Args))
		sig.WriteByte(0)
	}
	a.lastCalls = append(a.lastCalls, sig.String())
	if len(a.lastCalls) > repeatLimit {
		a.lastCalls = a.lastCalls[1:]
	}
	if len(a.lastCalls) < repeatLimit {
		return nil, nil
	}
	for _, s := range a.lastCalls[1:] {
		if s != a.lastCalls[0] {
			return nil, nil
		}
	}
	msg := fmt.Sprintf("stopped: the model asked for the same call%s %d rounds in a row, so it is probably stuck. Send a message to steer it.", plural(len(calls)), repeatLimit)
	if _, err := a.record(ctx, trace.KindNotice, trace.Notice{Code: "loop_detected", Message: msg}); err != nil {
		return nil, errStore{err}
	}
	return &trace.RunEnd{Reason: trace.EndRepeated, Detail: msg, Rounds: a.round}, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func compactJSON(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// toolPhaseStarted reports whether any of these calls was taken up.
func (a *Agent) toolPhaseStarted(calls []llm.ToolCall) bool {
	ids := map[string]bool{}
	for _, c := range calls {
		ids[c.ID] = true
	}
	for _, e := range a.events {
		if e.Kind == trace.KindToolCall {
			if p, err := trace.Decode[trace.ToolCall](e); err == nil && ids[p.CallID] {
				return true
			}
		}
	}
	return false
}

// results maps call ids of this log to their result events' payloads.
func (a *Agent) results() map[string]trace.ToolResult {
	out := map[string]trace.ToolResult{}
	for _, e := range a.events {
		if e.Kind == trace.KindToolResult {
			if p, err := trace.Decode[trace.ToolResult](e); err == nil {
				out[p.CallID] = p
			}
		}
	}
	return out
}

func deref(e *trace.RunEnd) trace.RunEnd {
	if e == nil {
		return trace.RunEnd{}
	}
	return *e
}

// ask builds the next request, pauses before it when stepping (the user
// may edit it), sends it and records the answer. A non-nil end means the
// run is over (error, cancel, truncation).
func (a *Agent) ask(ctx context.Context) (*trace.RunEnd, error) {
	mr := trace.ModelRequest{
		Model:       a.cfg.Model,
		Options:     a.cfg.Options,
		Think:       a.cfg.Think,
		System:      a.cfg.System,
		Tools:       a.tools.Specs(),
		HistorySeqs: trace.HistorySeqs(a.events),
	}
	p := &pause{cp: Checkpoint{Point: trace.PointBeforeRequest}}
	p.refresh = func() error {
		msgs, err := trace.Project(a.events, mr.HistorySeqs)
		p.cp.Request, p.cp.Messages = &mr, msgs
		return err
	}
	p.edit = func(cmd Command) error {
		if err := a.editRequest(ctx, &mr, cmd.Request); err != nil {
			return err
		}
		return p.refresh()
	}
	if err := p.refresh(); err != nil {
		return nil, err
	}
	if _, err := a.checkpoint(ctx, p); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		end, err := a.cancelled(ctx)
		return &end, err
	}
	req, err := trace.BuildRequest(a.events, mr)
	if err != nil {
		return nil, err
	}
	mr.MessageCount = len(req.Messages)
	mr.PromptEstimate = trace.PromptEstimate(req)
	reqEv, err := a.record(ctx, trace.KindModelRequest, mr)
	if err != nil {
		return nil, errStore{err}
	}

	resp, chatErr := a.chat(ctx, req)
	if se := (errStore{}); errors.As(chatErr, &se) {
		return nil, chatErr
	}
	for i := range resp.Message.ToolCalls {
		// Ollama gives every call an id; an older server may not. The
		// history needs one to pair each result with its call.
		if resp.Message.ToolCalls[i].ID == "" {
			resp.Message.ToolCalls[i].ID = fmt.Sprintf("call_%d_%d_%d", a.run, a.round, i)
		}
	}
	out := trace.ModelResponse{
		RequestSeq: reqEv.Seq,
		Content:    resp.Message.Content,
		Thinking:   resp.Message.Thinking,
		ToolCalls:  resp.Message.ToolCalls,
		DoneReason: resp.DoneReason,
		Incomplete: chatErr != nil || !resp.Complete(),
		Metrics:    resp.Metrics,
		Chunks:     resp.Chunks,
		Raw:        resp.Raw,
	}
	if _, err := a.record(ctx, trace.KindModelResponse, out); err != nil {
		return nil, errStore{err}
	}

	switch {
	case chatErr != nil && ctx.Err() != nil:
		end, err := a.cancelled(ctx)
		return &end, err
	case chatErr != nil:
		msg := chatErr.Error()
		if len(out.ToolCalls) > 0 {
			msg += fmt.Sprintf(" (the %d tool call(s) in the unfinished message were not run)", len(out.ToolCalls))
		}
		if _, err := a.record(ctx, trace.KindError, trace.Error{Code: "model", Message: msg}); err != nil {
			return nil, errStore{err}
		}
		return &trace.RunEnd{Reason: trace.EndError, Detail: msg, FinalText: out.Content, Rounds: a.round}, nil
	case out.Incomplete:
		msg := "the model hit its output limit (done_reason \"length\") before finishing"
		if len(out.ToolCalls) > 0 {
			msg += "; its tool calls were not run"
		}
		msg += ". Raise num_ctx or ask for a shorter step."
		if _, err := a.record(ctx, trace.KindNotice, trace.Notice{Code: "truncated", Message: msg}); err != nil {
			return nil, errStore{err}
		}
		return &trace.RunEnd{Reason: trace.EndTruncated, Detail: msg, FinalText: out.Content, Rounds: a.round}, nil
	}
	return nil, nil
}

// RetryDelays are the pauses before each new try of a request that failed
// before any of its answer arrived, with an error that may pass (Ollama
// restarting, busy, failing on its side). A var so tests can shorten it.
var RetryDelays = []time.Duration{time.Second, 3 * time.Second}

// chat sends the request, trying again (with a notice each time) when it
// failed before anything arrived and the error may pass. A failure to
// record the notice comes back as errStore.
func (a *Agent) chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	run, round := a.run, a.round
	for attempt := 0; ; attempt++ {
		resp, chatErr := a.model.Chat(ctx, req, func(c llm.Chunk) {
			a.onDelta(Delta{Run: run, Round: round, Content: c.Content, Thinking: c.Thinking})
		})
		if chatErr == nil || ctx.Err() != nil || resp.Chunks > 0 || attempt >= len(RetryDelays) || !llm.Temporary(chatErr) {
			return resp, chatErr
		}
		wait := RetryDelays[attempt]
		msg := fmt.Sprintf("%v; trying again in %s (try %d of %d)", chatErr, wait, attempt+2, len(RetryDelays)+1)
		if _, err := a.record(ctx, trace.KindNotice, trace.Notice{Code: "retry", Message: msg}); err != nil {
			return resp, errStore{err}
		}
		select {
		case <-ctx.Done():
			return resp, ctx.Err()
		case <-time.After(wait):
		}
	}
}

// cancelled answers every call still open with "cancelled" and closes the
// run.
func (a *Agent) cancelled(ctx context.Context) (trace.RunEnd, error) {
	if err := a.backfill(ctx, trace.ErrCancelled, "cancelled: the user stopped the run before this call finished"); err != nil {
		return trace.RunEnd{}, err
	}
	return trace.RunEnd{Reason: trace.EndCancelled, Detail: "stopped by the user", Rounds: a.round, FinalText: lastText(a.events)}, nil
}

// backfill gives every unanswered call of the log a result of the given
// kind, so that each call in the history has exactly one result.
func (a *Agent) backfill(ctx context.Context, kind, content string) error {
	for _, c := range trace.Unanswered(a.events) {
		res := trace.ToolResult{CallID: c.ID, Name: c.Name, Content: content, IsError: true, ErrorKind: kind, Bytes: len(content)}
		if _, err := a.record(ctx, trace.KindToolResult, res); err != nil {
			return errStore{err}
		}
	}
	return nil
}

func lastText(events []trace.Event) string {
	for i := len(events) - 1; i >= 0; i-- {
		if events[i].Kind == trace.KindModelResponse {
			p, err := trace.Decode[trace.ModelResponse](events[i])
			if err == nil {
				return p.Content
			}
		}
	}
	return ""
}

// Recover closes a run the app left open when it exited (one that was not
// paused): every call that was started or asked for gets an "interrupted
// (app exited)" result, and the run gets its run_end.
func (a *Agent) Recover(ctx context.Context) (bool, error) {
	st := RunState(a.events)
	if !st.Open || st.Paused != nil {
		return false, nil
	}
	a.run, a.round = st.Run, st.Round
	if err := a.backfill(ctx, trace.ErrInterrupted, "interrupted (app exited) before this call finished"); err != nil {
		return true, err
	}
	_, err := a.record(ctx, trace.KindRunEnd, trace.RunEnd{Reason: trace.EndInterrupted, Detail: "Loupe exited while this run was going", Rounds: a.round, FinalText: lastText(a.events)})
	return true, err
}

// State is where a session's last run stands, read from its log.
type State struct {
	Open  bool
	Run   int
	Round int
	// Paused is the checkpoint an open run waits at, or nil.
	Paused *trace.Checkpoint
}

// RunState reads where the last run stands from the log.
func RunState(events []trace.Event) State {
	var st State
	for _, e := range events {
		switch e.Kind {
		case trace.KindUserMessage:
			st = State{Open: true, Run: e.Run}
		case trace.KindRunEnd:
			st.Open, st.Paused = false, nil
		case trace.KindModelRequest:
			st.Round = e.Round
		case trace.KindCheckpoint:
			cp, err := trace.Decode[trace.Checkpoint](e)
			if err != nil {
				continue
			}
			if cp.State == trace.Paused {
				st.Paused = &cp
				// A pause before a request comes before the request is
				// recorded: its round is the one about to be sent.
				st.Round = e.Round
				if cp.Point == trace.PointBeforeRequest {
					st.Round = e.Round - 1
				}
			} else {
				st.Paused = nil
			}
		}
	}
	return st
}

func summarize(name string, args []byte) string {
	s := strings.TrimSpace(string(args))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return name + " " + s
}
