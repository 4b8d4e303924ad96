package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/loupe-dev/loupe/backend/hooks"
	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/tools"
	"github.com/loupe-dev/loupe/backend/trace"
)

// call is one tool call of an answer on its way through the harness:
// checked, decided, run, answered.
type call struct {
	// ToolCall holds the arguments as the call runs (a pause may edit
	// them).
	llm.ToolCall
	tool tools.Tool // nil while the arguments do not fit
	// outcome is set for a call that does not run: invalid, denied,
	// skipped, or interrupted before a restart.
	outcome *trace.ToolResult
	// guard holds an allowed call to its decision: the tool checks the
	// file it opens against it (tools.WithGuard).
	guard tools.Guard
	// person is set for a call that may pause or has to ask: such calls
	// take turns, in call order, so that one person is asked one thing at
	// a time and steps see one call after the other.
	person bool
	// done delivers the call's result once, or is closed without one when
	// the run stopped before the call got that far (the caller backfills).
	done chan trace.ToolResult
	// turnOver is closed once the call's result is recorded and its
	// after_result checkpoint passed: the next person call may begin.
	turnOver chan struct{}
	// answered is set when the log holds the result already (a restored
	// run).
	answered *trace.ToolResult
	// notice is the tool's word for the user about this call (an MCP
	// server that crashed), recorded after its result.
	notice *trace.Notice
	// said is what its before_tool hooks came to, once they ran.
	said *hookSaid
	// into is set for a task call the user stepped into: its sub-agent
	// pauses where this run does.
	into bool
}

// runCalls takes the calls of one complete answer through the harness.
// Each is checked and recorded before anything runs. Then the calls that
// need no one start at once, in call order, each decided as it starts and
// run in parallel (bounded by MaxParallel); the calls that may pause or
// must ask take turns, in call order, each decided when its turn comes;
// and the results are recorded in call order as they become ready. If ctx
// is cancelled it returns early; the caller backfills.
func (r *run) runCalls(ctx context.Context, asked []llm.ToolCall, at *resumeAt) error {
	calls, err := r.takeUp(ctx, asked, at)
	if err != nil {
		return err
	}
	xctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	// What the calls leave for after all of them (the check of what
	// commands left in the workspace) waits for the last one: see
	// afterRound.
	round := tools.NewRound()
	xctx = tools.WithRound(xctx, round)
	slots := make(chan struct{}, r.cfg.maxParallel())

	// Calls that need no one go first, so that the log holds their
	// decisions in call order, and a pause or a question holds none of
	// them up.
	var turns []*call
	for _, c := range calls {
		if !c.person && c.answered == nil {
			r.start(xctx, stop, c, slots)
		}
		if c.person {
			turns = append(turns, c)
		}
	}
	var wg sync.WaitGroup
	var turnsErr error
	wg.Go(func() { turnsErr = r.takeTurns(xctx, stop, turns, slots) })

	var failed error
	fail := func(err error) {
		if failed == nil {
			failed = err
			stop(err)
		}
	}
	var roundNotes []string
	for i, c := range calls {
		var res trace.ToolResult
		ok := true
		last := i == len(calls)-1
		if c.answered != nil {
			res = *c.answered
			if last {
				roundNotes = round.End(ctx)
			}
		} else {
			res, ok = <-c.done
			if last {
				// Every call before this one has delivered its result, and
				// this one too: no tool of the round runs any more. ctx,
				// not xctx: a failed call ends xctx, and the check must
				// still wait for commands of other sessions.
				roundNotes = round.End(ctx)
			}
			if ok && failed == nil {
				if last && len(roundNotes) > 0 {
					res.Content += "\n\n" + roundNote(roundNotes)
					res.Bytes = len(res.Content)
					roundNotes = nil
				}
				if r.repeatNote != "" && last {
					res.Content += "\n\n" + r.repeatNote
					res.Bytes = len(res.Content)
				}
				if _, err := r.record(ctx, trace.KindToolResult, res); err != nil {
					fail(err)
				} else if c.notice != nil {
					if _, err := r.record(ctx, trace.KindNotice, *c.notice); err != nil {
						fail(err)
					}
				}
			}
		}
		if c.person {
			if ok && failed == nil {
				if err := r.afterResult(xctx, c, res); err != nil {
					fail(err)
				}
			}
			close(c.turnOver)
		}
	}
	wg.Wait()
	if len(roundNotes) > 0 && failed == nil {
		// The last result was not the run's to write (a stop, a restored
		// call): the notes are a notice instead, for the user.
		if err := r.notice(ctx, CodeRoundCleanup, roundNote(roundNotes)); err != nil {
			failed = err
		}
	}
	if failed == nil && errors.Is(turnsErr, ErrLeftPaused) {
		// A call's turn ended because Loupe closed while it was paused.
		return turnsErr
	}
	return failed
}

// CodeRoundCleanup is the notice of what Loupe did, after a round's calls
// had all ended, to what its commands left, when no result of the round
// could carry it.
const CodeRoundCleanup = "round_cleanup"

// roundNote is what the model and the user read of what Loupe did after
// the round's calls had all ended (tools.Round.End), at the end of the
// round's last result: results are recorded in call order, as each is
// ready, so the last one is the first written after every call ended.
func roundNote(notes []string) string {
	var b strings.Builder
	for i, n := range notes {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("[loupe, after this round's calls ended: " + n + "]")
	}
	return b.String()
}

// takeUp checks and records every call of the answer (before anything
// runs), or, for calls the log already holds (a restored run), rebuilds
// where each stands. It also finds the calls that may pause.
func (r *run) takeUp(ctx context.Context, asked []llm.ToolCall, at *resumeAt) ([]*call, error) {
	calls := make([]*call, len(asked))
	for i, tc := range asked {
		c := &call{ToolCall: tc, done: make(chan trace.ToolResult, 1), turnOver: make(chan struct{})}
		calls[i] = c
		var l *logged
		if at != nil {
			l = at.calls[tc.ID]
		}
		if l != nil && l.args != nil {
			c.Args = l.args
		}
		r.check(c)
		settled := false
		switch {
		case l == nil || !l.checked:
			ev := trace.ToolCall{CallID: c.ID, Name: c.Name, Args: argsObject(c.Args), Valid: c.tool != nil}
			if rs, ok := r.rescues[c.ID]; ok {
				ev.Rescue = &rs
			}
			if c.tool != nil {
				ev.ReadOnly = c.tool.ReadOnly()
			} else {
				ev.ErrorKind, ev.Problem = c.outcome.ErrorKind, c.outcome.Content
			}
			if _, err := r.record(ctx, trace.KindToolCall, ev); err != nil {
				return nil, err
			}
		case l.result != nil:
			c.answered, settled = l.result, true
		case l.permitted != nil && l.permitted.Decision == trace.Deny:
			c.outcome, settled = deniedResult(c, l.permitted.By), true
		case l.permitted != nil && c.tool != nil && c.tool.ReadOnly():
			// Allowed, and perhaps running, when the log stops (a fork
			// made while it ran, an app that exited): a call that only
			// reads changes nothing, so it runs again, decided anew, and
			// the model gets its result.
		case l.permitted != nil:
			// Allowed, and perhaps running, when the app exited: whatever
			// it did is not known, so it is not run again.
			msg := "interrupted (app exited) before this call finished"
			c.outcome = &trace.ToolResult{CallID: c.ID, Name: c.Name, Content: msg, IsError: true, ErrorKind: trace.ErrInterrupted, Bytes: len(msg)}
			settled = true
		}
		switch {
		case r.restored != nil && r.restored.CallID == c.ID:
			c.person = true
		case !settled:
			c.person = r.mayPause(c)
		}
	}
	return calls, nil
}

// mayPause asks the Pauser whether the call would stop at one of its
// checkpoints.
func (r *run) mayPause(c *call) bool {
	p := r.a.seams.Pauser
	if p == nil {
		return false
	}
	before, _ := p.Stops(Checkpoint{Point: trace.PointBeforeTool, Run: r.num, Round: r.round, CallID: c.ID, Tool: c.Name, Args: argsObject(c.Args)})
	after, _ := p.Stops(Checkpoint{Point: trace.PointAfterResult, Run: r.num, Round: r.round, CallID: c.ID, Tool: c.Name})
	hook := false
	if hs := r.a.seams.Hooks; len(hs.For(hooks.BeforeTool, c.Name))+len(hs.For(hooks.AfterTool, c.Name))+len(hs.For(hooks.AfterEdit, c.Name)) > 0 {
		hook, _ = p.Stops(Checkpoint{Point: trace.PointAfterHook, Run: r.num, Round: r.round, CallID: c.ID, Tool: c.Name})
	}
	return before || after || hook
}

// check validates a call against the registry, without recording.
func (r *run) check(c *call) {
	args := argsObject(c.Args)
	if bad, ok := r.bad[c.ID]; ok {
		// Recovered with arguments that could not be read: the model
		// hears exactly why, with the schema.
		args = json.RawMessage(bad)
	}
	tool, cerr := r.tools.Check(c.Name, args)
	if cerr != nil {
		c.tool = nil
		c.outcome = &trace.ToolResult{CallID: c.ID, Name: c.Name, Content: cerr.Message, IsError: true, ErrorKind: cerr.Kind, Bytes: len(cerr.Message)}
		return
	}
	c.tool, c.outcome = tool, nil
}

// start decides a call that needs no one and starts it. A call the policy
// asks about becomes a person call instead.
func (r *run) start(ctx context.Context, stop context.CancelCauseFunc, c *call, slots chan struct{}) {
	if c.outcome != nil {
		c.done <- *c.outcome
		return
	}
	select {
	case slots <- struct{}{}:
	case <-ctx.Done():
		close(c.done)
		return
	}
	v, err := r.judged(ctx, c)
	if err != nil {
		<-slots
		stop(err)
		close(c.done)
		return
	}
	if v.asks() {
		<-slots
		c.person = true
		return
	}
	if _, err := r.decide(ctx, c, v); err != nil {
		<-slots
		stop(err)
		close(c.done)
		return
	}
	if c.outcome != nil {
		<-slots
		c.done <- *c.outcome
		return
	}
	go func() {
		defer func() { <-slots }()
		res, err := r.ranTool(ctx, c)
		if err != nil {
			stop(err)
			close(c.done)
			return
		}
		c.done <- res
	}()
}

// takeTurns takes the person calls one at a time, in call order: a turn
// begins once the one before is over (its result recorded and checked
// past).
func (r *run) takeTurns(ctx context.Context, stop context.CancelCauseFunc, turns []*call, slots chan struct{}) (first error) {
	for i, c := range turns {
		if i > 0 {
			<-turns[i-1].turnOver
		}
		if c.answered != nil {
			continue
		}
		if ctx.Err() != nil {
			close(c.done)
			continue
		}
		if err := r.turn(ctx, c, slots); err != nil {
			stop(err)
			if first == nil {
				first = err
			}
		}
	}
	return first
}

// turn is one person call's way through its checkpoints: before it (the
// user may edit its arguments or skip it), its decision (asking if the
// policy says so), running. Its result and the checkpoint after it are
// the recorder's.
func (r *run) turn(ctx context.Context, c *call, slots chan struct{}) error {
	ok := false
	defer func() {
		if !ok {
			close(c.done)
		}
	}()
	cmd, err := r.beforeTool(ctx, c)
	if err != nil || ctx.Err() != nil {
		return err
	}
	c.into = cmd.Action == trace.ActionStepInto
	if cmd.Action == trace.ActionSkip {
		text := cmd.Observation
		if text == "" {
			text = "skipped by the user"
		}
		c.outcome = &trace.ToolResult{CallID: c.ID, Name: c.Name, Content: text, ErrorKind: trace.ErrSkipped, Bytes: len(text)}
	}
	if c.outcome == nil {
		v, err := r.judged(ctx, c)
		if err != nil {
			return err
		}
		decided, err := r.decide(ctx, c, v)
		if err != nil || !decided {
			return err
		}
	}
	if c.outcome != nil {
		ok = true
		c.done <- *c.outcome
		return nil
	}
	select {
	case slots <- struct{}{}:
	case <-ctx.Done():
		return nil
	}
	res, err := r.ranTool(ctx, c)
	<-slots
	if err != nil {
		return err
	}
	ok = true
	c.done <- res
	return nil
}

// beforeTool is the checkpoint before a call: its arguments may be edited
// (and are checked again) or the call skipped.
func (r *run) beforeTool(ctx context.Context, c *call) (Command, error) {
	s := &stop{cp: Checkpoint{Point: trace.PointBeforeTool, CallID: c.ID, Tool: c.Name, Args: argsObject(c.Args)}}
	s.edit = func(cmd Command) error {
		if len(cmd.Args) == 0 {
			return ErrNotHere
		}
		args := compactJSON(cmd.Args)
		tool, cerr := r.tools.Check(c.Name, args)
		if cerr != nil {
			return errors.New(cerr.Message)
		}
		p, err := r.recordEdit(ctx, s, editOf(trace.EditArgs, 0, c.ID, argsObject(c.Args), json.RawMessage(args)))
		if err != nil {
			return err
		}
		c.Args, c.tool, c.outcome = p.Args, tool, nil
		c.said = nil // its hooks judge the new arguments
		s.cp.Args = p.Args
		return nil
	}
	return r.pause(ctx, s)
}

// afterResult is the checkpoint after a call's result is recorded; an
// edit changes what the model will see.
func (r *run) afterResult(ctx context.Context, c *call, res trace.ToolResult) error {
	r.mu.Lock()
	if content, ok := r.hist.ResultContent(c.ID); ok {
		res.Content = content
	}
	r.mu.Unlock()
	s := &stop{cp: Checkpoint{Point: trace.PointAfterResult, CallID: c.ID, Tool: c.Name}}
	s.edit = func(cmd Command) error {
		if cmd.Result == nil {
			return ErrNotHere
		}
		if *cmd.Result == res.Content {
			return nil
		}
		p, err := r.recordEdit(ctx, s, editOf(trace.EditResult, 0, c.ID, res.Content, *cmd.Result))
		if err != nil {
			return err
		}
		res.Content = *p.Result
		return nil
	}
	_, err := r.pause(ctx, s)
	return err
}

func deniedResult(c *call, by string) *trace.ToolResult {
	msg := fmt.Sprintf("denied: %s did not run (denied by %s). Ask the user or try another approach.", c.Name, by)
	return &trace.ToolResult{CallID: c.ID, Name: c.Name, Content: msg, IsError: true, ErrorKind: trace.ErrDenied, Bytes: len(msg)}
}

// ErrNotRunning is StopCall's answer for a call that is not running: it
// has finished, has not started, or is not of this run.
var ErrNotRunning = errors.New("that call is not running")

// StopCall stops one running call, as if its tool were cancelled, and the
// run goes on: the call's result says that the user stopped it (with a
// command's output so far), and the model reads that. A call that is not
// running is refused with ErrNotRunning.
func (a *Agent) StopCall(callID string) error {
	a.mu.Lock()
	stop := a.running[callID]
	a.mu.Unlock()
	if stop == nil {
		return fmt.Errorf("%w: call %s has finished, has not started yet, or is not of this run", ErrNotRunning, callID)
	}
	stop(tools.ErrStopped)
	return nil
}

// runTool runs one allowed call and turns what happened into the
// observation the model will read. While it runs, the call can be stopped
// on its own (StopCall), and what it writes is streamed as deltas.
func (r *run) runTool(ctx context.Context, c *call) (res trace.ToolResult) {
	res = trace.ToolResult{CallID: c.ID, Name: c.Name}
	if ctx.Err() != nil {
		res.Content, res.IsError, res.ErrorKind = "cancelled: "+stopper(ctx)+" stopped the run before this call started", true, trace.ErrCancelled
		if closing(ctx) {
			res.Content, res.ErrorKind = "interrupted: Loupe was closed before this call started", trace.ErrInterrupted
		}
		res.Bytes = len(res.Content)
		return res
	}
	// The call's own context: stopping it leaves the run's alone.
	cctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	a := r.a
	a.mu.Lock()
	a.running[c.ID] = stop
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.running, c.ID)
		a.mu.Unlock()
	}()
	if a.streams {
		run, round, session, agent := r.num, r.round, r.cfg.SessionID, r.agent
		cctx = tools.WithOutput(cctx, func(o tools.Output) {
			a.seams.OnDelta(Delta{SessionID: session, Run: run, Round: round, CallID: c.ID, Output: o.Pieces, Omitted: o.Omitted, Agent: agent})
		})
	}
	if c.Name == tools.TaskName {
		// The task tool's sub-agent is this loop's, nested in this run.
		cctx = tools.WithDelegate(cctx, func(ctx context.Context, in tools.TaskInput) (tools.Result, error) {
			return r.delegate(ctx, c, in)
		})
	}

	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			res.Content = fmt.Sprintf("%s failed: internal error: %v", c.Name, p)
			res.IsError, res.ErrorKind = true, trace.ErrFailed
			res.Bytes = len(res.Content)
		}
		res.DurationMs = time.Since(start).Milliseconds()
	}()
	if c.guard != nil {
		cctx = tools.WithGuard(cctx, c.guard)
	}
	out, err := c.tool.Run(cctx, argsObject(c.Args))
	c.notice = out.Notice
	res.Display, res.ExitCode, res.Truncated, res.Changes = out.Display, out.ExitCode, out.Truncated, out.Changes
	stopped := ctx.Err() == nil && errors.Is(context.Cause(cctx), tools.ErrStopped)
	switch {
	case ctx.Err() != nil && (err != nil || out.IsError):
		res.Content, res.ErrorKind = "cancelled: "+stopper(ctx)+" stopped the run while this call was running", trace.ErrCancelled
		if closing(ctx) {
			res.Content, res.ErrorKind = "interrupted: Loupe was closed while this call was running", trace.ErrInterrupted
		}
		if out.Content != "" {
			res.Content += "\npartial output:\n" + out.Content
		}
		res.IsError = true
	case stopped && (err != nil || out.IsError):
		// A tool that knows it was stopped says so with what it has
		// (run_command: the output so far); any other gets a plain line.
		res.Content, res.IsError, res.ErrorKind = out.Content, true, trace.ErrStopped
		if err != nil || out.Content == "" {
			res.Content = fmt.Sprintf("stopped by the user after %.1f s, before %s finished", time.Since(start).Seconds(), c.Name)
		}
	case err != nil:
		res.Content = fmt.Sprintf("%s failed: %v", c.Name, err)
		res.IsError, res.ErrorKind = true, trace.ErrFailed
	default:
		// A command that exits non-zero is an error the model should see,
		// but the tool itself worked: no error kind. (A stop that came
		// as the tool finished changed nothing: its result stands.)
		res.Content, res.IsError = out.Content, out.IsError
	}
	res.Bytes = len(res.Content)
	return res
}

// stopper names who stopped the run: the user, or what StoppedBy says.
func stopper(ctx context.Context) string {
	var by StoppedBy
	if errors.As(context.Cause(ctx), &by) {
		return string(by)
	}
	return "the user"
}
