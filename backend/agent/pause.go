package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/trace"
)

// Checkpoint is a place where the loop can pause, with what may be edited
// there.
type Checkpoint struct {
	Point  string
	Run    int
	Round  int
	CallID string
	Tool   string
	// Request is the pending request (before_request); Messages is its
	// history with each message's source event. Both are filled only when
	// the run pauses.
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
	Action      string // trace.ActionStep, ActionContinue, ActionSkip, or ActionEdit
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

// stop is one checkpoint the loop reached: where, what it shows once the
// run pauses (show fills it in), and what an edit does there.
type stop struct {
	cp   Checkpoint
	show func(*Checkpoint)
	edit func(Command) error
}

// pause is the one pause hook of the loop, called at each checkpoint. It
// pauses when the Pauser says so (or when a restored run waits here),
// applying edits until the user resumes, and returns the resuming command
// ("" when it did not pause or the run was cancelled while paused).
func (r *run) pause(ctx context.Context, s *stop) (Command, error) {
	p := r.a.seams.Pauser
	if p == nil {
		return Command{}, nil
	}
	s.cp.Run, s.cp.Round = r.num, r.round
	restored := r.restored != nil && r.restored.Point == s.cp.Point && r.restored.CallID == s.cp.CallID
	if r.restored != nil && !restored {
		// A restored run passes the checkpoints before the one it was
		// paused at: they were passed before the app exited.
		return Command{}, nil
	}
	r.restored = nil
	if !restored {
		stops, breakpoint := p.Stops(s.cp)
		if !stops {
			return Command{}, nil
		}
		logged := trace.Checkpoint{Point: s.cp.Point, State: trace.Paused, CallID: s.cp.CallID, Tool: s.cp.Tool, Breakpoint: breakpoint, Args: s.cp.Args}
		if req := s.cp.Request; req != nil {
			system, options := req.System, req.Options
			logged.System, logged.Options = &system, &options
		}
		if _, err := r.record(ctx, trace.KindCheckpoint, logged); err != nil {
			return Command{}, err
		}
	}
	show := func() Checkpoint {
		cp := s.cp
		if s.show != nil {
			s.show(&cp)
		}
		return cp
	}
	cp := show()
	p.Waiting(&cp)
	for {
		select {
		case <-ctx.Done():
			p.Waiting(nil)
			return Command{}, nil
		case cmd := <-p.Commands():
			switch cmd.Action {
			case ActionEdit:
				if s.edit == nil {
					reply(cmd, ErrNotHere)
					continue
				}
				err := s.edit(cmd)
				var se errStore
				if errors.As(err, &se) {
					p.Waiting(nil)
					reply(cmd, se.err)
					return Command{}, err
				}
				cp = show()
				p.Waiting(&cp)
				reply(cmd, err)
			case trace.ActionSkip:
				if s.cp.Point != trace.PointBeforeTool {
					reply(cmd, ErrNotHere)
					continue
				}
				fallthrough
			case trace.ActionStep, trace.ActionContinue:
				_, err := r.record(ctx, trace.KindCheckpoint, trace.Checkpoint{Point: s.cp.Point, State: trace.Resumed, CallID: s.cp.CallID, Tool: s.cp.Tool, Action: cmd.Action})
				// No longer waiting before the reply, so that whoever
				// resumed never sees this pause again.
				p.Waiting(nil)
				reply(cmd, unwrapStore(err))
				if err != nil {
					return Command{}, err
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

// beforeRequest is the checkpoint before a request: the user may change
// the system prompt and options (for the rest of the run) and the content
// of history messages (from now on).
func (r *run) beforeRequest(ctx context.Context, mr *trace.ModelRequest) error {
	s := &stop{cp: Checkpoint{Point: trace.PointBeforeRequest, Request: mr}}
	s.show = func(cp *Checkpoint) {
		req := *mr
		cp.Request = &req
		r.mu.Lock()
		cp.Messages = r.hist.Sourced()
		r.mu.Unlock()
	}
	s.edit = func(cmd Command) error { return r.editRequest(ctx, mr, cmd.Request) }
	_, err := r.pause(ctx, s)
	return err
}

// editRequest applies a RequestEdit to the pending request mr.
func (r *run) editRequest(ctx context.Context, mr *trace.ModelRequest, e *RequestEdit) error {
	if e == nil {
		return ErrNotHere
	}
	if e.Options != nil {
		if e.Options.NumCtx < 256 || e.Options.Temperature < 0 || e.Options.Temperature > 2 {
			return errors.New("options not changed: num_ctx must be at least 256 and temperature between 0 and 2")
		}
	}
	r.mu.Lock()
	current := r.hist.Sourced()
	r.mu.Unlock()
	shown := make(map[int64]string, len(current))
	for _, m := range current {
		shown[m.Seq] = m.Content
	}
	for seq := range e.Messages {
		if _, ok := shown[seq]; !ok {
			return fmt.Errorf("message %d is not part of this request", seq)
		}
	}
	if e.System != nil && *e.System != mr.System {
		if err := r.recordEdit(ctx, trace.EditSystem, 0, "", mr.System, *e.System); err != nil {
			return err
		}
		mr.System, r.cfg.System = *e.System, *e.System
	}
	if e.Options != nil && *e.Options != mr.Options {
		if err := r.recordEdit(ctx, trace.EditOptions, 0, "", mr.Options, *e.Options); err != nil {
			return err
		}
		mr.Options, r.cfg.Options = *e.Options, *e.Options
	}
	for _, m := range current {
		after, ok := e.Messages[m.Seq]
		if !ok || after == m.Content {
			continue
		}
		if err := r.recordEdit(ctx, trace.EditMessage, m.Seq, "", m.Content, after); err != nil {
			return err
		}
	}
	return nil
}

// recordEdit commits one edit with its value before and after; the
// history applies it as it is recorded.
func (r *run) recordEdit(ctx context.Context, target string, seq int64, callID string, before, after any) error {
	b, _ := json.Marshal(before)
	af, _ := json.Marshal(after)
	if raw, ok := before.(json.RawMessage); ok {
		b = raw
	}
	if raw, ok := after.(json.RawMessage); ok {
		af = raw
	}
	_, err := r.record(ctx, trace.KindEdit, trace.Edit{Target: target, Seq: seq, CallID: callID, Before: b, After: af})
	return err
}
