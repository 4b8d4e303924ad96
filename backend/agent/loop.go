package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

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
	onDelta  func(Delta)

	// events is the session's log as committed so far; requests are
	// projected from it.
	events []trace.Event
	run    int
	round  int
}

// New builds an agent over a session's existing log.
func New(cfg Config, model Model, rec Recorder, reg *tools.Registry, approver Approver, onDelta func(Delta), history []trace.Event) *Agent {
	if onDelta == nil {
		onDelta = func(Delta) {}
	}
	return &Agent{cfg: cfg, model: model, rec: rec, tools: reg, approver: approver, onDelta: onDelta, events: append([]trace.Event(nil), history...)}
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

func (a *Agent) loop(ctx context.Context) (trace.RunEnd, error) {
	for {
		if a.round >= a.cfg.maxRounds() {
			msg := fmt.Sprintf("stopped after %d rounds (the round cap); raise it in Settings or send a message to continue", a.round)
			if _, err := a.record(ctx, trace.KindNotice, trace.Notice{Code: "round_cap", Message: msg}); err != nil {
				return trace.RunEnd{}, errStore{err}
			}
			return trace.RunEnd{Reason: trace.EndRoundCap, Detail: msg, Rounds: a.round}, nil
		}
		if ctx.Err() != nil {
			return a.cancelled(ctx)
		}
		a.round++
		resp, end, err := a.ask(ctx)
		if err != nil || end != nil {
			return deref(end), err
		}
		if len(resp.ToolCalls) == 0 {
			if strings.TrimSpace(resp.Content) == "" {
				// Ollama drops a tool call it cannot parse (malformed JSON,
				// a tool that was not offered), leaving an empty answer.
				msg := "the model's answer is empty. If it was trying to call a tool, Ollama may have dropped a call it could not parse or one naming a tool that was not offered."
				if _, err := a.record(ctx, trace.KindNotice, trace.Notice{Code: "empty_answer", Message: msg}); err != nil {
					return trace.RunEnd{}, errStore{err}
				}
			}
			return trace.RunEnd{Reason: trace.EndAnswered, FinalText: resp.Content, Rounds: a.round}, nil
		}
		if err := a.runCalls(ctx, resp.ToolCalls); err != nil {
			return trace.RunEnd{}, err
		}
		if ctx.Err() != nil {
			return a.cancelled(ctx)
		}
	}
}

func deref(e *trace.RunEnd) trace.RunEnd {
	if e == nil {
		return trace.RunEnd{}
	}
	return *e
}

// ask sends one request and records the response. A non-nil end means the
// run is over (error, cancel, truncation).
func (a *Agent) ask(ctx context.Context) (trace.ModelResponse, *trace.RunEnd, error) {
	mr := trace.ModelRequest{
		Model:       a.cfg.Model,
		Options:     a.cfg.Options,
		Think:       a.cfg.Think,
		System:      a.cfg.System,
		Tools:       a.tools.Specs(),
		HistorySeqs: trace.HistorySeqs(a.events),
	}
	req, err := trace.BuildRequest(a.events, mr)
	if err != nil {
		return trace.ModelResponse{}, nil, err
	}
	mr.MessageCount = len(req.Messages)
	mr.PromptEstimate = trace.PromptEstimate(req)
	reqEv, err := a.record(ctx, trace.KindModelRequest, mr)
	if err != nil {
		return trace.ModelResponse{}, nil, errStore{err}
	}

	run, round := a.run, a.round
	resp, chatErr := a.model.Chat(ctx, req, func(c llm.Chunk) {
		a.onDelta(Delta{Run: run, Round: round, Content: c.Content, Thinking: c.Thinking})
	})
	for i := range resp.Message.ToolCalls {
		// Ollama gives every call an id; an older server may not. The
		// history needs one to pair each result with its call.
		if resp.Message.ToolCalls[i].ID == "" {
			resp.Message.ToolCalls[i].ID = fmt.Sprintf("call_%d_%d_%d", run, round, i)
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
		return out, nil, errStore{err}
	}

	switch {
	case chatErr != nil && ctx.Err() != nil:
		end, err := a.cancelled(ctx)
		return out, &end, err
	case chatErr != nil:
		msg := chatErr.Error()
		if len(out.ToolCalls) > 0 {
			msg += fmt.Sprintf(" (the %d tool call(s) in the unfinished message were not run)", len(out.ToolCalls))
		}
		if _, err := a.record(ctx, trace.KindError, trace.Error{Code: "model", Message: msg}); err != nil {
			return out, nil, errStore{err}
		}
		return out, &trace.RunEnd{Reason: trace.EndError, Detail: msg, FinalText: out.Content, Rounds: a.round}, nil
	case out.Incomplete:
		msg := "the model hit its output limit (done_reason \"length\") before finishing"
		if len(out.ToolCalls) > 0 {
			msg += "; its tool calls were not run"
		}
		msg += ". Raise num_ctx or ask for a shorter step."
		if _, err := a.record(ctx, trace.KindNotice, trace.Notice{Code: "truncated", Message: msg}); err != nil {
			return out, nil, errStore{err}
		}
		return out, &trace.RunEnd{Reason: trace.EndTruncated, Detail: msg, FinalText: out.Content, Rounds: a.round}, nil
	}
	return out, nil, nil
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

// Recover closes a run the app left open when it exited: every call that
// was started or asked for gets an "interrupted (app exited)" result, and
// the run gets its run_end.
func (a *Agent) Recover(ctx context.Context) (bool, error) {
	if !trace.OpenRun(a.events) {
		return false, nil
	}
	a.run = nextRun(a.events) - 1
	a.round = lastRound(a.events)
	if err := a.backfill(ctx, trace.ErrInterrupted, "interrupted (app exited) before this call finished"); err != nil {
		return true, err
	}
	_, err := a.record(ctx, trace.KindRunEnd, trace.RunEnd{Reason: trace.EndInterrupted, Detail: "Loupe exited while this run was going", Rounds: a.round, FinalText: lastText(a.events)})
	return true, err
}

func lastRound(events []trace.Event) int {
	if len(events) == 0 {
		return 0
	}
	return events[len(events)-1].Round
}

func summarize(name string, args []byte) string {
	s := strings.TrimSpace(string(args))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return name + " " + s
}
