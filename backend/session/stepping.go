package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
)

// ErrNotPaused is returned for a step or edit when the session's run is not
// waiting at a checkpoint.
var ErrNotPaused = errors.New("this session is not paused at a checkpoint")

// ErrPauseOver is returned for a command meant for a pause the run has
// left: it waits at another checkpoint now.
var ErrPauseOver = fmt.Errorf("%w: that pause is over, and the run now waits at another checkpoint", ErrNotPaused)

// stepping is how the sessions step: each one's gate, made when it is first
// asked for with the session's saved Step mode and breakpoints, and
// dropped when the session is deleted.
type stepping struct {
	store *store.Store
	// runs says whether this process runs the session's run; resume takes
	// on a run the log says is paused that no process runs.
	runs   func(id string) bool
	resume func(ctx context.Context, id string) error

	mu    sync.Mutex
	gates map[string]*stepGate
}

func newStepping(st *store.Store, runs func(string) bool, resume func(context.Context, string) error) *stepping {
	return &stepping{store: st, runs: runs, resume: resume, gates: map[string]*stepGate{}}
}

// stepGate is a session's agent.Pauser: whether it steps, its breakpoints,
// and the channel commands reach the run through. Where the run waits is
// the log's (a paused checkpoint event); the gate only knows whether the
// run takes commands now, so that a command to a pause that is over is
// refused at once.
type stepGate struct {
	s  *stepping
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

// gate returns the session's gate, loading its saved state once.
func (s *stepping) gate(ctx context.Context, id string) (*stepGate, error) {
	s.mu.Lock()
	g := s.gates[id]
	s.mu.Unlock()
	if g != nil {
		return g, nil
	}
	var st debugState
	if _, err := s.store.GetStepping(ctx, id, &st); err != nil {
		return nil, err
	}
	g = &stepGate{s: s, id: id, stepping: st.Stepping, bp: st.Breakpoints.normal(), cmds: make(chan agent.Command), changed: make(chan struct{})}
	s.mu.Lock()
	defer s.mu.Unlock()
	if existing := s.gates[id]; existing != nil {
		return existing, nil
	}
	s.gates[id] = g
	return g, nil
}

// forget drops the gate of a session that is gone.
func (s *stepping) forget(id string) {
	s.mu.Lock()
	delete(s.gates, id)
	s.mu.Unlock()
}

// ended wakes whoever waits for the session's run to reach a pause: the
// run is over.
func (s *stepping) ended(id string) {
	s.mu.Lock()
	g := s.gates[id]
	s.mu.Unlock()
	if g != nil {
		g.poke()
	}
}

// state is whether the session steps, and its breakpoints: its gate's, or
// what is saved when it has none. Reading makes no gate, so that listing
// every session keeps none in memory: gates are for the sessions that run
// or are told how to step in this process, and go when they are deleted.
func (s *stepping) state(ctx context.Context, id string) (bool, Breakpoints, error) {
	s.mu.Lock()
	g := s.gates[id]
	s.mu.Unlock()
	if g != nil {
		on, bp := g.state()
		return on, bp, nil
	}
	var st debugState
	if _, err := s.store.GetStepping(ctx, id, &st); err != nil {
		return false, Breakpoints{}, err
	}
	return st.Stepping, st.Breakpoints.normal(), nil
}

// start gives a new session the Step mode Settings sets for new sessions,
// kept as the session's own.
func (s *stepping) start(ctx context.Context, id string) error {
	set, err := settings.Load(ctx, s.store)
	if err != nil || !set.StepMode {
		return err
	}
	return s.set(ctx, id, true)
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
	return g.s.store.PutStepping(ctx, g.id, st)
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
		case at == 0 || !g.s.logPausedAt(ctx, g.id, at):
			return ErrNotPaused
		case !g.s.runs(g.id) && !resumed:
			resumed = true
			if err := g.s.resume(ctx, g.id); err != nil && !errors.Is(err, ErrBusy) {
				return fmt.Errorf("this run stays paused but cannot go on: %w", err)
			}
			continue
		case !g.s.runs(g.id):
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
func (s *stepping) logPausedAt(ctx context.Context, id string, at int64) bool {
	sess, err := s.store.GetSession(ctx, id)
	if err != nil || sess.OpenRun == 0 {
		return false
	}
	evs, err := s.store.RunEvents(ctx, id, sess.OpenRun)
	if err != nil {
		return false
	}
	_, st := trace.Waiting(evs)
	return st.PausedSeq == at
}

// set turns step-through on or off for a session.
func (s *stepping) set(ctx context.Context, id string, on bool) error {
	g, err := s.gate(ctx, id)
	if err != nil {
		return err
	}
	g.mu.Lock()
	g.stepping = on
	// Turned on, it pauses the run that goes now too, even one Continue let go.
	g.free = 0
	g.mu.Unlock()
	return g.save(ctx)
}

// setBreakpoints sets where a session pauses when not stepping.
func (s *stepping) setBreakpoints(ctx context.Context, id string, bp Breakpoints) error {
	for _, p := range bp.Points {
		switch p {
		case trace.PointBeforeRequest, trace.PointAfterResponse, trace.PointBeforeTool, trace.PointAfterResult, trace.PointAfterHook:
		default:
			return errors.New("unknown checkpoint " + p + ": use before_request, after_response, before_tool, after_result or after_hook")
		}
	}
	g, err := s.gate(ctx, id)
	if err != nil {
		return err
	}
	g.mu.Lock()
	g.bp = bp.normal()
	g.mu.Unlock()
	return g.save(ctx)
}

// goOn ends the pause at checkpoint event at (0: wherever the run
// waits): "step" goes to the next checkpoint, "continue" runs to a
// breakpoint or the end of this run, leaving Step mode on for the next.
// there, if set, runs once the run is there to go on, before it does (so
// what it reads says what the command changed and nothing the run did
// after); its error refuses the command.
func (s *stepping) goOn(ctx context.Context, id string, at int64, action string, there func() error) error {
	if action != trace.ActionStep && action != trace.ActionContinue && action != trace.ActionStepInto {
		return errors.New("resume with step or continue")
	}
	g, err := s.gate(ctx, id)
	if err != nil {
		return err
	}
	deliver := func(run int) error {
		if action == trace.ActionContinue {
			// The run is let go only once it is there to go on: a
			// Continue that is refused changes nothing. Step mode stays
			// as the user set it, for the session's next run.
			g.mu.Lock()
			g.free = run
			g.mu.Unlock()
		}
		if there != nil {
			return there()
		}
		return nil
	}
	return g.send(ctx, at, agent.Command{Action: action}, deliver)
}

// do hands one command (an edit, a skip) to the session's run paused at
// at, and waits for its answer.
func (s *stepping) do(ctx context.Context, id string, at int64, cmd agent.Command) error {
	g, err := s.gate(ctx, id)
	if err != nil {
		return err
	}
	return g.send(ctx, at, cmd, nil)
}
