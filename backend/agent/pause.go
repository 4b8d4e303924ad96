package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/tools"
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
// System, Options and Tools hold for the rest of the run; Tools names the
// tools to offer, among those the pause says the run can offer
// (trace.Pending.Offer): the others are switched off.
type RequestEdit struct {
	System   *string       `json:"system,omitempty"`
	Options  *llm.Options  `json:"options,omitempty"`
	Tools    *[]string     `json:"tools,omitempty"`
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
	// paused is the paused checkpoint as the log holds it, with the
	// edits made so far applied: what the run does when it goes on.
	paused trace.Checkpoint
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
	if restored {
		s.paused = *r.restored
	}
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
		at, s.paused = e.Seq, logged
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
			case trace.ActionStepInto:
				if s.cp.Point != trace.PointBeforeTool || s.cp.Tool != tools.TaskName {
					reply(cmd, errors.New("only a task call's sub-agent can be stepped into"))
					continue
				}
				fallthrough
			case trace.ActionSkip:
				// (A step into has passed this: it is at a before_tool.)
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
// the system prompt, options and tools offered (for the rest of the run)
// and the content of history messages (from now on).
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
		if all := r.a.seams.Tools; all != nil {
			// What the tools can be switched among: every tool the run
			// was given, less those it may not use (which it may still
			// offer; their calls are refused).
			pr.Offer = all.Names()
			for _, n := range pr.Offer {
				if why := r.perm.withheld(n); why != "" {
					if pr.Withheld == nil {
						pr.Withheld = map[string]string{}
					}
					pr.Withheld[n] = why
				}
			}
		}
		cp.Request = pr
	}
	s.edit = func(cmd Command) error { return r.editRequest(ctx, s, mr, cmd.Request) }
	_, err := r.pause(ctx, s)
	return err
}

// editRequest applies a RequestEdit to the pending request mr: every
// change is checked against the pause first, so a command with one that
// does not fit changes nothing; then each is recorded, and mr and the
// run's settings take what the pause has become.
func (r *run) editRequest(ctx context.Context, s *stop, mr *trace.ModelRequest, e *RequestEdit) error {
	if e == nil || s.paused.Request == nil {
		return ErrNotHere
	}
	if e.Options != nil {
		if e.Options.NumCtx < 256 || e.Options.Temperature < 0 || e.Options.Temperature > 2 {
			return errors.New("options not changed: num_ctx must be at least 256 and temperature between 0 and 2")
		}
	}
	pending := s.paused.Request
	var eds []trace.Edit
	if e.System != nil && *e.System != pending.System {
		eds = append(eds, editOf(trace.EditSystem, 0, "", pending.System, *e.System))
	}
	if e.Options != nil && *e.Options != pending.Options {
		eds = append(eds, editOf(trace.EditOptions, 0, "", pending.Options, *e.Options))
	}
	if e.Tools != nil {
		before, after := sortedNames(pending.Tools), sortedNames(*e.Tools)
		if !slices.Equal(before, after) {
			eds = append(eds, editOf(trace.EditTools, 0, "", before, after))
		}
	}
	edited := make(map[int64]string, len(e.Messages))
	for _, me := range e.Messages {
		edited[me.Seq] = me.Content
	}
	for _, m := range pending.Messages {
		if after, ok := edited[m.Seq]; ok {
			delete(edited, m.Seq)
			if after != m.Content {
				eds = append(eds, editOf(trace.EditMessage, m.Seq, "", m.Content, after))
			}
		}
	}
	for seq, after := range edited {
		// Not in the request: WithEdit says so.
		eds = append(eds, editOf(trace.EditMessage, seq, "", "", after))
	}
	final, err := withEdits(s.paused, eds)
	if err != nil {
		return err
	}
	// The tools the pause leaves are stored before any edit is recorded,
	// so a failure to store them leaves the pause as it was.
	var offered *tools.Registry
	toolSet := r.cfg.ToolSet
	if !slices.Equal(final.Request.Tools, pending.Tools) {
		if offered, toolSet, err = r.toolSet(ctx, final.Request.Tools); err != nil {
			return err
		}
	}
	for _, ed := range eds {
		before := s.paused.Request.System
		p, err := r.recordEdit(ctx, s, ed)
		if err != nil {
			return err
		}
		switch ed.Target {
		case trace.EditSystem:
			mr.Instructions = mr.Instructions.Kept(before, p.Request.System)
			mr.System, r.cfg.System, r.cfg.Instructions = p.Request.System, p.Request.System, mr.Instructions
		case trace.EditOptions:
			mr.Options, r.cfg.Options = p.Request.Options, p.Request.Options
		case trace.EditTools:
			// For the rest of the run: its later requests offer these
			// too, and a call of another is an unknown tool.
			r.use(offered)
			r.cfg.ToolSet = toolSet
			mr.ToolSet, mr.ToolNames = toolSet, r.names
		}
	}
	return nil
}

// sortedNames is names sorted, without repeats: a tools edit's value.
func sortedNames(names []string) []string {
	out := slices.Clone(names)
	slices.Sort(out)
	return slices.Compact(out)
}

// toolSet is the registry of the run's tools that offers the names alone,
// and the id of its stored tool set (Config.ToolSets) for requests to
// name.
func (r *run) toolSet(ctx context.Context, names []string) (*tools.Registry, int, error) {
	if r.a.seams.Tools == nil {
		return nil, 0, nil
	}
	reg := r.a.seams.Tools.Subset(names...)
	id := 0
	if specs := reg.Specs(); len(specs) > 0 && r.cfg.ToolSets != nil {
		var err error
		if id, err = r.cfg.ToolSets(ctx, specs); err != nil {
			return nil, 0, errStore{fmt.Errorf("store the tools offered: %w", err)}
		}
	}
	return reg, id, nil
}

// use makes reg the tools the run offers from its next request on.
func (r *run) use(reg *tools.Registry) {
	r.tools, r.specs, r.names = reg, nil, nil
	if reg != nil {
		r.specs, r.names = reg.Specs(), reg.Names()
	}
	b, _ := json.Marshal(r.specs)
	r.toolsJSON = len(b)
}

// withEdits is cp with each of eds applied in turn.
func withEdits(cp trace.Checkpoint, eds []trace.Edit) (trace.Checkpoint, error) {
	for _, ed := range eds {
		var err error
		if cp, err = cp.WithEdit(ed); err != nil {
			return cp, err
		}
	}
	return cp, nil
}

// editOf is an edit with its value before and after as JSON.
func editOf(target string, seq int64, callID string, before, after any) trace.Edit {
	b, _ := json.Marshal(before)
	af, _ := json.Marshal(after)
	if raw, ok := before.(json.RawMessage); ok {
		b = raw
	}
	if raw, ok := after.(json.RawMessage); ok {
		af = raw
	}
	return trace.Edit{Target: target, Seq: seq, CallID: callID, Before: b, After: af}
}

// recordEdit applies ed to the pause (the one way an edit changes it,
// trace.Checkpoint.WithEdit) and commits it with the pause it leaves, which
// it returns; the history applies it as it is recorded. An edit that does
// not fit the pause is refused before anything is written.
func (r *run) recordEdit(ctx context.Context, s *stop, ed trace.Edit) (trace.Checkpoint, error) {
	next, err := s.paused.WithEdit(ed)
	if err != nil {
		return s.paused, err
	}
	ed.Pause = &next
	if _, err := r.record(ctx, trace.KindEdit, ed); err != nil {
		return s.paused, err
	}
	s.paused = next
	return next, nil
}
