package agent

// One request of a round and its answer: the request built from the run's
// settings and history (compacted first when it would not fit), the pause
// before it, sending it through the Model with its deltas streamed, and
// what a failed, refused or cut answer becomes.

import (
	"context"
	"errors"
	"fmt"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/trace"
)

// ask builds the round's request, pauses before it when stepping (the user
// may edit it), sends it and records the answer. A non-nil end means the
// run is over (error, cancel, truncation).
func (r *run) ask(ctx context.Context) (trace.ModelResponse, *trace.RunEnd, error) {
	noTruncate := false
	mr := trace.ModelRequest{
		Model:     r.cfg.Model,
		Options:   r.cfg.Options,
		Think:     r.cfg.Think,
		Truncate:  &noTruncate,
		System:    r.cfg.System,
		ToolSet:   r.cfg.ToolSet,
		ToolNames: r.names,

		Instructions: r.cfg.Instructions,
	}
	if r.cfg.Host != nil {
		mr.HostName, mr.Host = r.cfg.Host()
	}
	if err := r.autoCompact(ctx); err != nil {
		return trace.ModelResponse{}, nil, err
	}
	if err := r.beforeRequest(ctx, &mr); err != nil {
		return trace.ModelResponse{}, nil, err
	}
	if ctx.Err() != nil {
		end, err := r.cancelled(ctx)
		return trace.ModelResponse{}, &end, err
	}
	if end, err := r.requestHooks(ctx); err != nil || end != nil {
		return trace.ModelResponse{}, end, err
	}
	if ctx.Err() != nil {
		end, err := r.cancelled(ctx)
		return trace.ModelResponse{}, &end, err
	}
	r.mu.Lock()
	mr.HistoryBase, mr.HistoryAdded = r.hist.Delta()
	req := trace.BuildRequest(r.hist, mr, r.specs)
	mr.MessageCount = len(req.Messages)
	split := r.split(mr.System)
	mr.Split, mr.PromptEstimate = &split, split.Sum()
	r.mu.Unlock()
	reqEv, err := r.record(ctx, trace.KindModelRequest, mr)
	if err != nil {
		return trace.ModelResponse{}, nil, err
	}

	// req shares the history's memory: nothing adds to the history until
	// Chat returns.
	run, round := r.num, r.round
	resp, chatErr := r.model.Chat(ctx, req, func(c llm.Chunk) {
		r.a.seams.OnDelta(Delta{SessionID: r.cfg.SessionID, Run: run, Round: round, Content: c.Content, Thinking: c.Thinking, Agent: r.agent})
	})
	if se := (errStore{}); errors.As(chatErr, &se) {
		return trace.ModelResponse{}, nil, se
	}
	for i := range resp.Message.ToolCalls {
		// Ollama gives every call an id; an older server may not. The
		// history needs one to pair each result with its call.
		if resp.Message.ToolCalls[i].ID == "" {
			resp.Message.ToolCalls[i].ID = fmt.Sprintf("call_%d_%d_%d", r.num, r.round, i)
		}
	}
	answer := trace.ModelResponse{
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
	if !answer.Incomplete {
		r.rescue(&answer)
	}
	var reading trace.Reading
	if chatErr == nil {
		reading = r.measure(ctx, mr, split, resp.Metrics)
		answer.Context = &reading.Meter
	}
	respEv, err := r.record(ctx, trace.KindModelResponse, answer)
	if err != nil {
		return answer, nil, err
	}
	if chatErr == nil {
		r.measured(reqEv.Seq, respEv.Seq, reading.Meter)
	}

	var end trace.RunEnd
	switch {
	case chatErr != nil && ctx.Err() != nil:
		end, err = r.cancelled(ctx)
	case chatErr != nil && isTimeout(chatErr):
		// Not a failure of the model or of Loupe: Ollama went quiet. The
		// notice says what happened and what to try; the partial answer
		// is kept (marked incomplete) and none of its calls run.
		msg := chatErr.Error()
		if len(answer.ToolCalls) > 0 {
			msg += fmt.Sprintf(" (the %d tool call(s) in the unfinished message were not run)", len(answer.ToolCalls))
		}
		end, err = r.stopped(ctx, "timeout", trace.EndTimeout, msg)
		end.FinalText = answer.Content
	case chatErr != nil && errors.Is(chatErr, llm.ErrPromptTooLong):
		// Loupe sends truncate false: Ollama refused the prompt rather
		// than drop its oldest messages. Say what did not fit, and stop.
		fit := trace.FitOf(req, mr.Options.NumCtx, mr.PromptEstimate, r.rate)
		if again, err := r.compactToFit(ctx, fit); err != nil || again {
			if err != nil {
				return answer, nil, err
			}
			return r.ask(ctx)
		}
		msg := fmt.Sprintf("the prompt does not fit the context: about %d tokens needed, num_ctx is %d. Nothing was cut; the run stopped. Compact, raise num_ctx, drop old tool outputs or offer fewer tools, then send a message to go on.", fit.Needed, fit.NumCtx)
		if _, err := r.record(ctx, trace.KindError, trace.Error{Code: trace.CodeDoesNotFit, Message: msg, Fit: &fit}); err != nil {
			return answer, nil, err
		}
		end = trace.RunEnd{Reason: trace.EndDoesNotFit, Detail: msg, Rounds: r.round}
	case chatErr != nil:
		msg := chatErr.Error()
		if len(answer.ToolCalls) > 0 {
			msg += fmt.Sprintf(" (the %d tool call(s) in the unfinished message were not run)", len(answer.ToolCalls))
		}
		if _, err := r.record(ctx, trace.KindError, trace.Error{Code: "model", Message: msg}); err != nil {
			return answer, nil, err
		}
		end = trace.RunEnd{Reason: trace.EndError, Detail: msg, FinalText: answer.Content, Rounds: r.round}
	case answer.Incomplete:
		msg := "the model hit its output limit (done_reason \"length\") before finishing"
		if len(answer.ToolCalls) > 0 {
			msg += "; its tool calls were not run"
		}
		msg += ". Raise num_ctx or ask for a shorter step."
		end, err = r.stopped(ctx, "truncated", trace.EndTruncated, msg)
		end.FinalText = answer.Content
	default:
		if err := r.contextNotices(ctx, mr, split, req, reading); err != nil {
			return answer, nil, err
		}
		return answer, nil, nil
	}
	return answer, &end, err
}
