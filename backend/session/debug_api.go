package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/trace"
)

// ErrNotPaused is returned for a step or edit when the session's run is not
// waiting at a checkpoint.
var ErrNotPaused = errors.New("this session is not paused at a checkpoint")

// ErrPauseOver is returned for a command meant for a pause the run has
// left: it waits at another checkpoint now.
var ErrPauseOver = fmt.Errorf("%w: that pause is over, and the run now waits at another checkpoint", ErrNotPaused)

// stepGate is a session's agent.Pauser: whether it steps, its breakpoints,
// and the channel commands reach the run through. Where the run waits is
// the log's (a paused checkpoint event); the gate only knows whether the
// run takes commands now, so that a command to a pause that is over is
// refused at once.
type stepGate struct {
	m  *Manager
	id string

	mu       sync.Mutex
	stepping bool
	// free is the run Continue let go: stepping pauses it no more (its
	// breakpoints still do); Step mode stays on for the next run.
	free int
	bp   Breakpoints
	// at is the seq of the paused checkpoint the run takes commands at (0:
	// none), and run that run's number; left is closed when it stops
	// taking them; changed is closed (and replaced) whenever at changes
	// or the session's run ends.
	at      int64
	run     int
	left    chan struct{}
	changed chan struct{}
	cmds    chan agent.Command
}

// debugState is what is saved per session.
type debugState struct {
	Stepping    bool        `json:"stepping"`
	Breakpoints Breakpoints `json:"breakpoints"`
}

// gateFor returns the session's gate, loading its saved state once.
func (m *Manager) gateFor(ctx context.Context, id string) (*stepGate, error) {
	m.mu.Lock()
	g := m.gates[id]
	m.mu.Unlock()
	if g != nil {
		return g, nil
	}
	var st debugState
	if _, err := m.store.GetStepping(ctx, id, &st); err != nil {
		return nil, err
	}
	g = &stepGate{m: m, id: id, stepping: st.Stepping, bp: st.Breakpoints.normal(), cmds: make(chan agent.Command), changed: make(chan struct{})}
	m.mu.Lock()
	defer m.mu.Unlock()
	if existing := m.gates[id]; existing != nil {
		return existing, nil
	}
	m.gates[id] = g
	return g, nil
}

// startStepping gives a new session the Step mode Settings sets for new
// sessions, kept as the session's own.
func (m *Manager) startStepping(ctx context.Context, id string) error {
	set, err := settings.Load(ctx, m.store)
	if err != nil || !set.StepMode {
		return err
	}
	g, err := m.gateFor(ctx, id)
	if err != nil {
		return err
	}
	g.mu.Lock()
	g.stepping = true
	g.mu.Unlock()
	return g.save(ctx)
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
	case g.stepping && c.Run != g.free:
		return true, false
	case slices.Contains(g.bp.Points, c.Point):
		return true, true
	case c.Point == trace.PointBeforeTool && slices.Contains(g.bp.Tools, c.Tool):
		return true, true
	}
	return false, false
}

func (g *stepGate) Waiting(run int, seq int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if seq == g.at {
		return
	}
	if g.left != nil {
		close(g.left)
		g.left = nil
	}
	g.at, g.run = seq, run
	if seq != 0 {
		g.left = make(chan struct{})
	}
	g.pokeLocked()
}

// poke wakes whoever waits for the run to reach a pause.
func (g *stepGate) poke() {
	g.mu.Lock()
	g.pokeLocked()
	g.mu.Unlock()
}

func (g *stepGate) pokeLocked() {
	close(g.changed)
	g.changed = make(chan struct{})
}

func (g *stepGate) Commands() <-chan agent.Command { return g.cmds }

func (g *stepGate) state() (bool, Breakpoints) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.stepping, g.bp
}

func (g *stepGate) save(ctx context.Context) error {
	g.mu.Lock()
	st := debugState{Stepping: g.stepping, Breakpoints: g.bp}
	g.mu.Unlock()
	return g.m.store.PutStepping(ctx, g.id, st)
}

// send hands a command to the paused run and waits for its answer. at
// names the paused checkpoint the user saw (0: whichever it waits at), so
// that a second click meant for a pause that is over does not act on the
// next one. The log may show a pause before the run takes commands there:
// a run restored after a restart gets there in a moment, and one whose
// restore failed (its folder was missing) is resumed now. Then send waits
// for the run, as long as the log says it waits at at. deliver, if set,
// runs once the run is there to take the command, just before it does,
// with the number of the run that waits.
func (g *stepGate) send(ctx context.Context, at int64, cmd agent.Command, deliver func(run int) error) error {
	resumed := false
	for {
		g.mu.Lock()
		cur, run, left, changed := g.at, g.run, g.left, g.changed
		g.mu.Unlock()
		switch {
		case cur != 0 && (at == 0 || at == cur):
			if deliver != nil {
				if err := deliver(run); err != nil {
					return err
				}
				deliver = nil
			}
			cmd.Reply = make(chan error, 1)
			select {
			case g.cmds <- cmd:
				return <-cmd.Reply
			case <-left:
				continue
			case <-ctx.Done():
				return ctx.Err()
			}
		case cur != 0:
			return ErrPauseOver
		case at == 0 || !g.m.logPausedAt(ctx, g.id, at):
			return ErrNotPaused
		case !g.m.runs(g.id) && !resumed:
			resumed = true
			if err := g.m.resumePaused(ctx, g.id); err != nil && !errors.Is(err, ErrBusy) {
				return fmt.Errorf("this run stays paused but cannot go on: %w", err)
			}
			continue
		case !g.m.runs(g.id):
			return ErrNotPaused
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// logPausedAt reports whether the session's log says its open run waits
// at the paused checkpoint event at.
func (m *Manager) logPausedAt(ctx context.Context, id string, at int64) bool {
	s, err := m.store.GetSession(ctx, id)
	if err != nil || s.OpenRun == 0 {
		return false
	}
	evs, err := m.store.RunEvents(ctx, id, s.OpenRun)
	return err == nil && trace.StateOf(evs).PausedSeq == at
}

// SetStepping turns step-through on or off for a session.
func (m *Manager) SetStepping(ctx context.Context, id string, on bool) (Summary, error) {
	if _, err := m.store.GetSession(ctx, id); err != nil {
		return Summary{}, err
	}
	g, err := m.gateFor(ctx, id)
	if err != nil {
		return Summary{}, err
	}
	g.mu.Lock()
	g.stepping = on
	// Turned on, it pauses the run that goes now too, even one Continue let go.
	g.free = 0
	g.mu.Unlock()
	if err := g.save(ctx); err != nil {
		return Summary{}, err
	}
	return m.summaryOf(ctx, id)
}

// SetBreakpoints sets where a session pauses when not stepping.
func (m *Manager) SetBreakpoints(ctx context.Context, id string, bp Breakpoints) (Summary, error) {
	for _, p := range bp.Points {
		switch p {
		case trace.PointBeforeRequest, trace.PointAfterResponse, trace.PointBeforeTool, trace.PointAfterResult:
		default:
			return Summary{}, errors.New("unknown checkpoint " + p + ": use before_request, after_response, before_tool or after_result")
		}
	}
	if _, err := m.store.GetSession(ctx, id); err != nil {
		return Summary{}, err
	}
	g, err := m.gateFor(ctx, id)
	if err != nil {
		return Summary{}, err
	}
	g.mu.Lock()
	g.bp = bp.normal()
	g.mu.Unlock()
	if err := g.save(ctx); err != nil {
		return Summary{}, err
	}
	return m.summaryOf(ctx, id)
}

// Resume ends the pause at checkpoint event at (0: wherever the run
// waits): "step" goes to the next checkpoint, "continue" runs to a
// breakpoint or the end of this run, leaving Step mode on for the next.
// The summary is the session's as the run is resumed, read before it
// goes on.
func (m *Manager) Resume(ctx context.Context, id string, at int64, action string) (Summary, error) {
	g, err := m.gateFor(ctx, id)
	if err != nil {
		return Summary{}, err
	}
	if action != trace.ActionStep && action != trace.ActionContinue {
		return Summary{}, errors.New("resume with step or continue")
	}
	var sum Summary
	// The summary is read before the run goes on, so it says what the
	// command changed and nothing the run did after.
	deliver := func(run int) (err error) {
		if action == trace.ActionContinue {
			// The run is let go only once it is there to go on: a
			// Continue that is refused changes nothing. Step mode stays
			// as the user set it, for the session's next run.
			g.mu.Lock()
			g.free = run
			g.mu.Unlock()
		}
		sum, err = m.summaryOf(ctx, id)
		return err
	}
	return sum, g.send(ctx, at, agent.Command{Action: action}, deliver)
}

// EditRequest changes the pending request at a before_request pause.
func (m *Manager) EditRequest(ctx context.Context, id string, at int64, e agent.RequestEdit) error {
	g, err := m.gateFor(ctx, id)
	if err != nil {
		return err
	}
	return g.send(ctx, at, agent.Command{Action: agent.ActionEdit, Request: &e}, nil)
}

// EditArgs changes the pending call's arguments at a before_tool pause;
// they are checked against the tool's schema again.
func (m *Manager) EditArgs(ctx context.Context, id string, at int64, args string) error {
	if !json.Valid([]byte(args)) {
		return errors.New("the arguments are not valid JSON")
	}
	g, err := m.gateFor(ctx, id)
	if err != nil {
		return err
	}
	return g.send(ctx, at, agent.Command{Action: agent.ActionEdit, Args: json.RawMessage(args)}, nil)
}

// SkipCall answers the pending call with the user's observation, without
// running it, and resumes.
func (m *Manager) SkipCall(ctx context.Context, id string, at int64, observation string) error {
	g, err := m.gateFor(ctx, id)
	if err != nil {
		return err
	}
	return g.send(ctx, at, agent.Command{Action: trace.ActionSkip, Observation: observation}, nil)
}

// EditResult changes the result at an after_result pause.
func (m *Manager) EditResult(ctx context.Context, id string, at int64, content string) error {
	g, err := m.gateFor(ctx, id)
	if err != nil {
		return err
	}
	return g.send(ctx, at, agent.Command{Action: agent.ActionEdit, Result: &content}, nil)
}
