package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/trace"
)

// This file is the loop's part of the context meter (see trace/meter.go):
// the estimate of each request by part, calibrated by the session's own
// counts, the reading of each answer's count, and the notices when
// Ollama probably dropped part of the prompt or allocated another context.

// contextReporter is a Model that can say how much context the server
// allocated for a loaded model (Ollama's /api/ps); 0 when it does not know.
type contextReporter interface {
	LoadedContext(ctx context.Context, model string) (int, error)
}

// loadedWait bounds the question: the meter is not worth holding a round.
const loadedWait = 2 * time.Second

// previous is the session's last answered request and its meter.
type previous struct {
	seq int64
	trace.Previous
}

// meterFrom takes what a stored answer says for the meter: the request it
// answered becomes the one the next extends, and a full count of the
// run's model sets the rate. An answer logged before the meter gives its
// count alone.
func (r *run) meterFrom(seq int64, p trace.ModelResponse, model string) {
	switch {
	case p.Context != nil:
		r.prev = &previous{seq: p.RequestSeq, Previous: trace.Previous{Prompt: p.Context.Prompt, Output: p.Context.Output}}
		if p.Context.BytesPerToken > 0 && model == r.cfg.Model {
			r.rate = trace.Rate{BytesPerToken: p.Context.BytesPerToken, From: seq}
		}
	case p.Metrics.PromptEvalCount > 0:
		r.prev = &previous{seq: p.RequestSeq, Previous: trace.Previous{Prompt: p.Metrics.PromptEvalCount, Output: p.Metrics.EvalCount}}
	}
}

// split estimates the request about to be built from the history, by
// part. r.mu is held; it must run before the request is recorded (which
// starts the next request's list of new events).
func (r *run) split(system string) trace.Split {
	sys := 0
	if system != "" {
		b, _ := json.Marshal(llm.Message{Role: llm.RoleSystem, Content: system})
		sys = len(b)
	}
	hist, fresh := r.hist.PartBytes()
	return trace.SplitOf(sys, r.toolsJSON, hist, fresh, r.rate)
}

// measure reads the count of request mr's answer, asking Ollama first
// what context it allocated for the model (which is loaded now).
func (r *run) measure(ctx context.Context, mr trace.ModelRequest, split trace.Split, m llm.Metrics) trace.Reading {
	loaded := r.loadedContext(ctx, mr.Model, mr.Options.NumCtx, m)
	var prev *trace.Previous
	if r.prev != nil && r.prev.seq == mr.HistoryBase && mr.HistoryBase != 0 {
		prev = &r.prev.Previous
	}
	return trace.MeterOf(split, prev, m, mr.Options.NumCtx, loaded)
}

// loadedAsked is an answer of Ollama's /api/ps: the context it allocated
// for model when asked for numCtx.
type loadedAsked struct {
	model  string
	numCtx int
	n      int
}

// reloadedAfter is a load_duration that says Ollama loaded the model for
// the answer: a model already loaded takes it milliseconds.
const reloadedAfter = 100 * time.Millisecond

// loadedContext is the context Ollama allocated for model, asked at
// request numCtx, for the answer whose metrics are m (0: unknown). Ollama
// allocates a context when it loads a model, so /api/ps is asked again
// only when the answer may have come from another load than the one asked
// about: another model or num_ctx, or a load_duration that says the model
// was loaded for it (evicted, or reloaded by another client meanwhile).
// Asking every round cost a request to Ollama a round.
func (r *run) loadedContext(ctx context.Context, model string, numCtx int, m llm.Metrics) int {
	if l := r.loaded; l.n > 0 && l.model == model && l.numCtx == numCtx && m.LoadDuration < reloadedAfter {
		return l.n
	}
	cr, ok := r.a.seams.Model.(contextReporter)
	if !ok || ctx.Err() != nil {
		return 0
	}
	qctx, cancel := context.WithTimeout(ctx, loadedWait)
	defer cancel()
	// An older server that lists no context, or one that does not
	// answer, leaves it unknown: the meter counts against num_ctx, and
	// the next answer asks again.
	n, err := cr.LoadedContext(qctx, model)
	if err != nil {
		n = 0
	}
	r.loaded = loadedAsked{model: model, numCtx: numCtx, n: n}
	return n
}

// measured keeps what the next request needs of this answer's meter.
func (r *run) measured(reqSeq, respSeq int64, m trace.Meter) {
	r.prev = &previous{seq: reqSeq, Previous: trace.Previous{Prompt: m.Prompt, Output: m.Output}}
	if m.BytesPerToken > 0 {
		r.rate = trace.Rate{BytesPerToken: m.BytesPerToken, From: respSeq}
	}
}

// contextNotices flags a round whose prompt Ollama probably cut (it read
// all the context holds, or far less than the estimate with no cache to
// explain it; the round goes on) and a context allocated other than
// asked.
func (r *run) contextNotices(ctx context.Context, mr trace.ModelRequest, split trace.Split, req llm.Request, rd trace.Reading) error {
	m := rd.Meter
	if m.Loaded > 0 && m.Loaded != m.NumCtx && m.Loaded != r.allocated {
		r.allocated = m.Loaded
		if _, err := r.record(ctx, trace.KindNotice, trace.AllocatedNotice(mr.Model, m.NumCtx, m.Loaded)); err != nil {
			return err
		}
	}
	switch {
	case trace.CutSuspected(llm.Metrics{PromptEvalCount: m.Counted}, m.Context()):
		// Ollama cut anyway (an older server ignoring truncate, or a
		// context shift): the round goes on, flagged.
		msg := fmt.Sprintf("Ollama read %d prompt tokens, all that the context of %d holds (Loupe estimated %d): it probably dropped the oldest messages after the system prompt, so the model may not have seen the start of the task or earlier tool results. Compact, or raise num_ctx.",
			m.Counted, m.Context(), mr.PromptEstimate)
		return r.notice(ctx, trace.CodeContextCut, msg)
	case rd.Lost > 0:
		rate := trace.Rate{BytesPerToken: split.BytesPerToken, From: split.CalibratedBy}
		lost := trace.LostMessages(req.Messages, rd.Lost, rate, func(m llm.Message) int {
			b, _ := json.Marshal(m)
			return len(b)
		})
		_, err := r.record(ctx, trace.KindNotice, trace.DroppedNotice(rd, split.Sum(), rate, lost))
		return err
	}
	return nil
}
