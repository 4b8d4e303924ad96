package session

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/trace"
)

// ErrNotPaused is returned for a step or edit when the session's run is not
// waiting at a checkpoint.
var ErrNotPaused = errors.New("this session is not paused at a checkpoint")

// stepGate is a session's agent.Pauser: whether it steps, its breakpoints,
// where its run waits, and the channel commands reach the run through.
type stepGate struct {
	m  *Manager
	id string

	mu       sync.Mutex
	stepping bool
	bp       Breakpoints
	paused   *Pause
	cmds     chan agent.Command
}

// debugState is what is saved per session.
type debugState struct {
	Stepping    bool        `json:"stepping"`
	Breakpoints Breakpoints `json:"breakpoints"`
}

func debugKey(id string) string { return "session/" + id + "/debug" }

// gateFor returns the session's gate, loading its saved state once.
func (m *Manager) gateFor(ctx context.Context, id string) (*stepGate, error) {
	m.mu.Lock()
	g := m.gates[id]
	m.mu.Unlock()
	if g != nil {
		return g, nil
	}
	var st debugState
	if _, err := m.store.GetSetting(ctx, debugKey(id), &st); err != nil {
		return nil, err
	}
	g = &stepGate{m: m, id: id, stepping: st.Stepping, bp: st.Breakpoints.normal(), cmds: make(chan agent.Command)}
	m.mu.Lock()
	defer m.mu.Unlock()
	if existing := m.gates[id]; existing != nil {
		return existing, nil
	}
	m.gates[id] = g
	return g, nil
}

func (b Breakpoints) normal() Breakpoints {
	if b.Points == nil {
		b.Points = []string{}
	}
	if b.Tools == nil {
		b.Tools = []string{}
	}
	return b
}

func (g *stepGate) Stops(c agent.Checkpoint) (bool, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.stepping:
		return true, false
	case slices.Contains(g.bp.Points, c.Point):
		return true, true
	case c.Point == trace.PointBeforeTool && slices.Contains(g.bp.Tools, c.Tool):
		return true, true
	}
	return false, false
}

func (g *stepGate) Waiting(c *agent.Checkpoint) {
	g.mu.Lock()
	if c == nil {
		g.paused = nil
	} else {
		g.paused = pauseOf(*c)
	}
	g.mu.Unlock()
	if s, err := g.m.store.GetSession(context.Background(), g.id); err == nil {
		g.m.sink.Session(g.m.summary(s))
	}
}

func (g *stepGate) Commands() <-chan agent.Command { return g.cmds }

func pauseOf(c agent.Checkpoint) *Pause {
	p := &Pause{Point: c.Point, Run: c.Run, Round: c.Round, CallID: c.CallID, Tool: c.Tool, Args: c.Args, Result: c.Result}
	if c.Request != nil {
		r := &PendingRequest{Model: c.Request.Model, System: c.Request.System, Options: c.Request.Options, Tools: append([]string{}, c.Request.ToolNames...), Messages: []PendingMessage{}}
		for _, m := range c.Messages {
			r.Messages = append(r.Messages, PendingMessage{Seq: m.Seq, Role: m.Role, Content: m.Content, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID, ToolName: m.ToolName})
		}
		p.Request = r
	}
	return p
}

func (g *stepGate) state() (bool, Breakpoints, *Pause) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.stepping, g.bp, g.paused
}

func (g *stepGate) save(ctx context.Context) error {
	g.mu.Lock()
	st := debugState{Stepping: g.stepping, Breakpoints: g.bp}
	g.mu.Unlock()
	if err := g.m.store.PutSetting(ctx, debugKey(g.id), st); err != nil {
		return err
	}
	if s, err := g.m.store.GetSession(ctx, g.id); err == nil {
		g.m.sink.Session(g.m.summary(s))
	}
	return nil
}

// send hands a command to the paused run and waits for its answer.
func (g *stepGate) send(cmd agent.Command) error {
	g.mu.Lock()
	paused := g.paused != nil
	g.mu.Unlock()
	if !paused {
		return ErrNotPaused
	}
	cmd.Reply = make(chan error, 1)
	select {
	case g.cmds <- cmd:
	case <-time.After(5 * time.Second):
		return ErrNotPaused
	}
	return <-cmd.Reply
}

// SetStepping turns step-through on or off for a session.
func (m *Manager) SetStepping(ctx context.Context, id string, on bool) error {
	if _, err := m.store.GetSession(ctx, id); err != nil {
		return err
	}
	g, err := m.gateFor(ctx, id)
	if err != nil {
		return err
	}
	g.mu.Lock()
	g.stepping = on
	g.mu.Unlock()
	return g.save(ctx)
}

// SetBreakpoints sets where a session pauses when not stepping.
func (m *Manager) SetBreakpoints(ctx context.Context, id string, bp Breakpoints) error {
	for _, p := range bp.Points {
		switch p {
		case trace.PointBeforeRequest, trace.PointAfterResponse, trace.PointBeforeTool, trace.PointAfterResult:
		default:
			return errors.New("unknown checkpoint " + p + ": use before_request, after_response, before_tool or after_result")
		}
	}
	if _, err := m.store.GetSession(ctx, id); err != nil {
		return err
	}
	g, err := m.gateFor(ctx, id)
	if err != nil {
		return err
	}
	g.mu.Lock()
	g.bp = bp.normal()
	g.mu.Unlock()
	return g.save(ctx)
}

// Resume ends a pause: "step" goes to the next checkpoint, "continue"
// turns stepping off and runs to a breakpoint or the end.
func (m *Manager) Resume(id, action string) error {
	g, err := m.gateFor(context.Background(), id)
	if err != nil {
		return err
	}
	if action != trace.ActionStep && action != trace.ActionContinue {
		return errors.New("resume with step or continue")
	}
	if action == trace.ActionContinue {
		g.mu.Lock()
		g.stepping = false
		g.mu.Unlock()
		if err := g.save(context.Background()); err != nil {
			return err
		}
	}
	return g.send(agent.Command{Action: action})
}

// EditRequest changes the pending request at a before_request pause.
func (m *Manager) EditRequest(ctx context.Context, id string, e RequestEdit) error {
	g, err := m.gateFor(ctx, id)
	if err != nil {
		return err
	}
	re := &agent.RequestEdit{System: e.System, Options: e.Options}
	if len(e.Messages) > 0 {
		re.Messages = map[int64]string{}
		for _, me := range e.Messages {
			re.Messages[me.Seq] = me.Content
		}
	}
	return g.send(agent.Command{Action: agent.ActionEdit, Request: re})
}

// EditArgs changes the pending call's arguments at a before_tool pause;
// they are checked against the tool's schema again.
func (m *Manager) EditArgs(ctx context.Context, id, args string) error {
	if !json.Valid([]byte(args)) {
		return errors.New("the arguments are not valid JSON")
	}
	g, err := m.gateFor(ctx, id)
	if err != nil {
		return err
	}
	return g.send(agent.Command{Action: agent.ActionEdit, Args: json.RawMessage(args)})
}

// SkipCall answers the pending call with the user's observation, without
// running it, and resumes.
func (m *Manager) SkipCall(ctx context.Context, id, observation string) error {
	g, err := m.gateFor(ctx, id)
	if err != nil {
		return err
	}
	return g.send(agent.Command{Action: trace.ActionSkip, Observation: observation})
}

// EditResult changes the result at an after_result pause.
func (m *Manager) EditResult(ctx context.Context, id, content string) error {
	g, err := m.gateFor(ctx, id)
	if err != nil {
		return err
	}
	return g.send(agent.Command{Action: agent.ActionEdit, Result: &content})
}
