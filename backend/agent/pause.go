package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/trace"
)

// Checkpoint is a place where the loop can pause, as the Pauser is asked
// about it.
type Checkpoint struct {
	Point  string
	Run    int
	Round  int
	CallID string
	Tool   string
	// Args are the pending call's arguments (before_tool).
	Args json.RawMessage
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

// RequestEdit changes a pending request: nil fields stay as they are.
type RequestEdit struct {
	System   *string       `json:"system,omitempty"`
	Options  *llm.Options  `json:"options,omitempty"`
	Messages []MessageEdit `json:"messages,omitempty"`
}

// MessageEdit replaces the content of the history message from event Seq.
type MessageEdit struct {
	Seq     int64  `json:"seq"`
	Content string `json:"content"`
}

// ErrNotHere is returned for a command that does not fit the checkpoint.
var ErrNotHere = errors.New("that cannot be done at this checkpoint")

// stop is one checkpoint the loop reached: where, what the paused
// checkpoint shows of what may be edited (show fills it in), and what an
// edit does there.
type stop struct {
	cp   Checkpoint
	show func(*trace.Checkpoint)
	edit func(Command) error
}

// pause is the one pause hook of the loop, called at each checkpoint. It
// pauses when the Pauser says so (or when a restored run waits here):
// the paused checkpoint is recorded with what may be edited, edits are
// applied (and recorded) until the user resumes, and it returns the
// resuming command ("" when it did not pause or the run was cancelled
// while paused).
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
	at := r.restoredSeq
	r.restored, r.restoredSeq = nil, 0
	if !restored {
		stops, breakpoint := p.Stops(s.cp)
		if !stops {
			return Command{}, nil
		}
		logged := trace.Checkpoint{Point: s.cp.Point, State: trace.Paused, CallID: s.cp.CallID, Tool: s.cp.Tool, Breakpoint: breakpoint, Args: s.cp.Args}
		if s.show != nil {
			s.show(&logged)
		}
		e, err := r.record(ctx, trace.KindCheckpoint, logged)
		if err != nil {
			return Command{}, err
		}
		at = e.Seq
	}
	p.Waiting(r.num, at)
	defer p.Waiting(r.num, 0)
	for {
		select {
		case <-ctx.Done():
			if closing(ctx) {
				// The paused checkpoint stays the log's last word on
				// this run, so it waits here again after a restart.
				return Command{}, ErrLeftPaused
			}
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
					reply(cmd, se.err)
					return Command{}, err
				}
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
				// resumed is refused if they send to this pause again.
				p.Waiting(r.num, 0)
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
	s := &stop{cp: Checkpoint{Point: trace.PointBeforeRequest}}
	s.show = func(cp *trace.Checkpoint) {
		r.mu.Lock()
		sourced := r.hist.Sourced()
		r.mu.Unlock()
		pr := &trace.Pending{Model: mr.Model, System: mr.System, Options: mr.Options, Tools: append([]string{}, mr.ToolNames...), Messages: make([]trace.PendingMessage, len(sourced))}
		for i, m := range sourced {
			pr.Messages[i] = trace.PendingMessage{Seq: m.Seq, Role: m.Role, Content: m.Content, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID, ToolName: m.ToolName}
		}
		cp.Request = pr
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
	edited := make(map[int64]string, len(e.Messages))
	for _, me := range e.Messages {
		if _, ok := shown[me.Seq]; !ok {
			return fmt.Errorf("message %d is not part of this request", me.Seq)
		}
		edited[me.Seq] = me.Content
	}
	if e.System != nil && *e.System != mr.System {
		if err := r.recordEdit(ctx, trace.EditSystem, 0, "", mr.System, *e.System); err != nil {
			return err
		}
		mr.Instructions = mr.Instructions.Kept(mr.System, *e.System)
		mr.System, r.cfg.System, r.cfg.Instructions = *e.System, *e.System, mr.Instructions
	}
	if e.Options != nil && *e.Options != mr.Options {
		if err := r.recordEdit(ctx, trace.EditOptions, 0, "", mr.Options, *e.Options); err != nil {
			return err
		}
		mr.Options, r.cfg.Options = *e.Options, *e.Options
	}
	for _, m := range current {
		after, ok := edited[m.Seq]
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
