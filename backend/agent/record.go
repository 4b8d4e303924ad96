package agent

import (
	"context"
	"fmt"

	"github.com/loupe-dev/loupe/backend/trace"
)

// record commits an event of the current run and round and adds it to what
// the run keeps: the history, the open calls. Recording must survive the
// run's cancellation (the cancel itself is recorded), so it never uses the
// run's ctx for the write. It is safe to call from several goroutines; the
// log holds the events in the order record was called.
func (r *run) record(ctx context.Context, kind trace.Kind, payload any) (trace.Event, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := trace.New(kind, r.num, r.round, payload)
	e.SessionID, e.Agent = r.cfg.SessionID, r.agent
	var err error
	if sr, ok := r.a.seams.Recorder.(soonRecorder); ok && !mustWait(kind) {
		e, err = sr.AppendSoon(context.WithoutCancel(ctx), e)
	} else {
		e, err = r.a.seams.Recorder.Append(context.WithoutCancel(ctx), e)
	}
	if err != nil {
		return e, errStore{fmt.Errorf("record %s: %w", kind, err)}
	}
	r.hist.Where(e.Run, e.Round)
	switch p := payload.(type) {
	case trace.UserMessage:
		r.hist.AddUser(e.Seq, p)
	case trace.ModelRequest:
		// A summarising request is marked first: Requested keeps the new
		// observations for the request after it.
		if p.Purpose == trace.PurposeCompaction {
			r.hist.SummaryRequested(e.Seq)
		}
		r.hist.Requested(e.Seq)
	case trace.ModelResponse:
		// A summary is not the run's answer: the compaction event after
		// it is what changes the history.
		summary := r.hist.IsSummaryAnswer(p)
		r.hist.AddResponse(e.Seq, p)
		if summary {
			break
		}
		r.squeeze.lastPrompt = p.Metrics.PromptEvalCount
		r.lastText = p.Content
		if !p.Incomplete {
			r.open = append(r.open, p.ToolCalls...)
		}
	case trace.ToolResult:
		r.hist.AddResult(e.Seq, p)
		for i, c := range r.open {
			if c.ID == p.CallID {
				r.open = append(r.open[:i:i], r.open[i+1:]...)
				break
			}
		}
	case trace.Compaction:
		if err := r.hist.Compact(e.Seq, p); err != nil {
			return e, err
		}
		r.squeeze.lastPrompt = 0
	case trace.Edit:
		if err := r.hist.ApplyEdit(p); err != nil {
			return e, err
		}
	}
	return e, nil
}
