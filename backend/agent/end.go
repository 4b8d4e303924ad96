package agent

// How a run ends other than by an answer: stopped on an error or a
// limit, cancelled by the user, closed with Loupe, and what is written for
// the calls left open.

import (
	"context"
	"errors"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/trace"
)

func (r *run) stopped(ctx context.Context, code, reason, msg string) (trace.RunEnd, error) {
	if err := r.notice(ctx, code, msg); err != nil {
		return trace.RunEnd{}, err
	}
	return trace.RunEnd{Reason: reason, Detail: msg, Rounds: r.round}, nil
}

// ErrClosing is the cause a run is cancelled with when Loupe closes. A run
// paused at a checkpoint stays paused: nothing more is written, Run
// returns ErrLeftPaused, and the run waits at the same checkpoint when
// Loupe opens again. A working run ends as interrupted, because Loupe was
// closed, not because the user stopped it.
var ErrClosing = errors.New("Loupe was closed")

// ErrLeftPaused is what Run returns when Loupe closed while the run waited
// at a checkpoint: the log still says it waits there.
var ErrLeftPaused = errors.New("the run stays paused at its checkpoint: Loupe was closed while it waited")

// StoppedBy is a cause a run can be cancelled with to say who stopped it,
// when it was not the user at the window: its text is the run_end's
// detail ("stopped by SIGTERM").
type StoppedBy string

func (s StoppedBy) Error() string { return "stopped by " + string(s) }

// closing reports whether the run is being cancelled because Loupe closes.
func closing(ctx context.Context) bool { return errors.Is(context.Cause(ctx), ErrClosing) }

// cancelled answers every call still open with "cancelled" and closes the
// run; when Loupe closes, with "interrupted" instead.
func (r *run) cancelled(ctx context.Context) (trace.RunEnd, error) {
	if closing(ctx) {
		if err := r.backfill(ctx, trace.ErrInterrupted, "interrupted: Loupe was closed before this call finished"); err != nil {
			return trace.RunEnd{}, err
		}
		return trace.RunEnd{Reason: trace.EndInterrupted, Detail: "Loupe was closed while this run was going", Rounds: r.round, FinalText: r.lastText}, nil
	}
	who := stopper(ctx)
	if err := r.backfill(ctx, trace.ErrCancelled, "cancelled: "+who+" stopped the run before this call finished"); err != nil {
		return trace.RunEnd{}, err
	}
	return trace.RunEnd{Reason: trace.EndCancelled, Detail: "stopped by " + who, Rounds: r.round, FinalText: r.lastText}, nil
}

// backfill gives every call still open a result of the given kind, so
// that each call in the history has exactly one result.
func (r *run) backfill(ctx context.Context, kind, content string) error {
	r.mu.Lock()
	open := append([]llm.ToolCall(nil), r.open...)
	r.mu.Unlock()
	for _, c := range open {
		res := trace.ToolResult{CallID: c.ID, Name: c.Name, Content: content, IsError: true, ErrorKind: kind, Bytes: len(content)}
		if _, err := r.record(ctx, trace.KindToolResult, res); err != nil {
			return err
		}
	}
	return nil
}
