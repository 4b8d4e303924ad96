package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/trace"
)

// Gate lets a person step through the loop. At each checkpoint the agent
// asks ShouldPause; when it pauses, it records a paused checkpoint, tells
// the gate where it waits, and takes Commands (edits, then step, continue
// or skip) until one resumes it or the run is cancelled. Edits are applied
// and recorded by the agent itself, so the log keeps one writer.
type Gate interface {
	// Active reports whether this run may pause at all (stepping or any
	// breakpoint). An active gate makes tool calls run one at a time.
	Active() bool
	// ShouldPause reports whether to pause at c, and whether a breakpoint
	// (not stepping) is the reason.
	ShouldPause(c Checkpoint) (pause, breakpoint bool)
	// Waiting tells where the run waits, again after each edit; nil when
	// it resumes.
	Waiting(c *Checkpoint)
	// Commands delivers the user's commands while paused.
	Commands() <-chan Command
}

// Checkpoint is a place where the loop can pause, with what may be edited
// there.
type Checkpoint struct {
	Point  string
	Run    int
	Round  int
	CallID string
	Tool   string
	// Request is the pending request (before_request); Messages is its
	// projected history with each message's source event.
	Request  *trace.ModelRequest
	Messages []trace.Sourced
	// Args are the pending call's arguments (before_tool).
	Args json.RawMessage
	// Result is the result about to go back to the model (after_result).
	Result *trace.ToolResult
}

// Command is one thing the user asks of a paused run. Reply gets nil when
// it was done, or why not.
type Command struct {
	Action      string // trace.ActionStep, ActionContinue, ActionSkip, or "edit"
	Request     *RequestEdit
	Args        json.RawMessage
	Result      *string
	Observation string
	Reply       chan error
}

// ActionEdit is a Command that edits and stays paused.
const ActionEdit = "edit"

// RequestEdit changes a pending request; nil fields stay.
type RequestEdit struct {
	System   *string
	Options  *llm.Options
	Messages map[int64]string
}

// ErrNotHere is returned for a command that does not fit the checkpoint.
var ErrNotHere = errors.New("that cannot be done at this checkpoint")

// pause is what a checkpoint can do with an edit command.
type pause struct {
	cp   Checkpoint
	edit func(Command) error
	// refresh recomputes what the checkpoint shows after an edit.
	refresh func() error
}

// checkpoint pauses at cp if the gate says so (or if the run was restored
// paused here), applying edits until the user resumes. It returns the
// resuming command ("" when it did not pause).
func (a *Agent) checkpoint(ctx context.Context, p *pause) (Command, error) {
	if a.gate == nil {
		return Command{}, nil
	}
	cp := p.cp
	cp.Run, cp.Round = a.run, a.round
	restored := a.resumeAt != nil && a.resumeAt.Point == cp.Point && a.resumeAt.CallID == cp.CallID
	if a.resumeAt != nil && !restored {
		// A restored run passes the checkpoints before the one it was
		// paused at: they were already passed before the app exited.
		return Command{}, nil
	}
	if !restored {
		stop, breakpoint := a.gate.ShouldPause(cp)
		if !stop {
			return Command{}, nil
		}
		if _, err := a.record(ctx, trace.KindCheckpoint, trace.Checkpoint{Point: cp.Point, State: trace.Paused, CallID: cp.CallID, Tool: cp.Tool, Breakpoint: breakpoint}); err != nil {
			return Command{}, errStore{err}
		}
	}
	a.resumeAt = nil
	a.gate.Waiting(&cp)
	for {
		select {
		case <-ctx.Done():
			a.gate.Waiting(nil)
			return Command{}, nil
		case cmd := <-a.gate.Commands():
			switch cmd.Action {
			case ActionEdit:
				if p.edit == nil {
					reply(cmd, ErrNotHere)
					continue
				}
				err := p.edit(cmd)
				if se, ok := err.(errStore); ok {
					a.gate.Waiting(nil)
					reply(cmd, se.err)
					return Command{}, err
				}
				cp = p.cp
				cp.Run, cp.Round = a.run, a.round
				a.gate.Waiting(&cp)
				reply(cmd, err)
			case trace.ActionSkip:
				if cp.Point != trace.PointBeforeTool {
					reply(cmd, ErrNotHere)
					continue
				}
				fallthrough
			case trace.ActionStep, trace.ActionContinue:
				_, err := a.record(ctx, trace.KindCheckpoint, trace.Checkpoint{Point: cp.Point, State: trace.Resumed, CallID: cp.CallID, Tool: cp.Tool, Action: cmd.Action})
				// No longer waiting before the reply, so that whoever
				// resumed never sees this pause again.
				a.gate.Waiting(nil)
				reply(cmd, err)
				if err != nil {
					return Command{}, errStore{err}
				}
				return cmd, nil
			default:
				reply(cmd, fmt.Errorf("unknown command %q", cmd.Action))
			}
		}
	}
}

func reply(c Command, err error) {
	if c.Reply != nil {
		c.Reply <- err
	}
}

// recordEdit commits one edit with its value before and after.
func (a *Agent) recordEdit(ctx context.Context, target string, seq int64, callID string, before, after any) error {
	b, _ := json.Marshal(before)
	af, _ := json.Marshal(after)
	if raw, ok := before.(json.RawMessage); ok {
		b = raw
	}
	if raw, ok := after.(json.RawMessage); ok {
		af = raw
	}
	if _, err := a.record(ctx, trace.KindEdit, trace.Edit{Target: target, Seq: seq, CallID: callID, Before: b, After: af}); err != nil {
		return errStore{err}
	}
	return nil
}

// editRequest applies a RequestEdit to the pending request mr: system and
// options change for the rest of the run, message edits from now on.
func (a *Agent) editRequest(ctx context.Context, mr *trace.ModelRequest, e *RequestEdit) error {
	if e == nil {
		return ErrNotHere
	}
	if e.Options != nil {
		if e.Options.NumCtx < 256 || e.Options.Temperature < 0 || e.Options.Temperature > 2 {
			return errors.New("options not changed: num_ctx must be at least 256 and temperature between 0 and 2")
		}
	}
	inHistory := map[int64]bool{}
	for _, s := range mr.HistorySeqs {
		inHistory[s] = true
	}
	for seq := range e.Messages {
		if !inHistory[seq] {
			return fmt.Errorf("message %d is not part of this request", seq)
		}
	}
	if e.System != nil && *e.System != mr.System {
		if err := a.recordEdit(ctx, trace.EditSystem, 0, "", mr.System, *e.System); err != nil {
			return err
		}
		mr.System, a.cfg.System = *e.System, *e.System
	}
	if e.Options != nil && *e.Options != mr.Options {
		if err := a.recordEdit(ctx, trace.EditOptions, 0, "", mr.Options, *e.Options); err != nil {
			return err
		}
		mr.Options, a.cfg.Options = *e.Options, *e.Options
	}
	if len(e.Messages) > 0 {
		current, err := trace.Project(a.events, mr.HistorySeqs)
		if err != nil {
			return err
		}
		for _, m := range current {
			after, ok := e.Messages[m.Seq]
			if !ok || after == m.Content {
				continue
			}
			if err := a.recordEdit(ctx, trace.EditMessage, m.Seq, "", m.Content, after); err != nil {
				return err
			}
		}
	}
	return nil
}
