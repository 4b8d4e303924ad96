package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/tools"
	"github.com/loupe-dev/loupe/backend/trace"
)

// pendingCall is one call of a message on its way through check,
// permission and execution. A call with an outcome already (invalid,
// denied, skipped) does not run.
type pendingCall struct {
	call    llm.ToolCall
	tool    tools.Tool
	outcome *trace.ToolResult
	// What the log already holds for it (a restored run).
	permitted *trace.Permission
	result    *trace.ToolResult
	// guard holds an allowed call to its decision: the tool checks the
	// file it opens against it (tools.WithGuard).
	guard tools.Guard
}

// runCalls takes the calls of one complete message through the harness:
// check each (recording it before anything runs), then either — when a
// person may step through — one call at a time with its checkpoints, or
// permission in call order and the allowed calls concurrently, results
// recorded in call order. If ctx is cancelled it returns early; the caller
// backfills.
func (a *Agent) runCalls(ctx context.Context, calls []llm.ToolCall) error {
	pending, err := a.takeUp(ctx, calls)
	if err != nil {
		return err
	}
	if a.gate != nil && (a.gate.Active() || a.resumeAt != nil) {
		for i := range pending {
			if err := a.stepCall(ctx, &pending[i]); err != nil || ctx.Err() != nil {
				return err
			}
		}
		return nil
	}
	for i := range pending {
		if pending[i].outcome != nil {
			continue
		}
		if err := a.permit(ctx, &pending[i]); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return nil
		}
	}
	return a.execute(ctx, pending)
}

// takeUp checks and records every call, or, for calls the log already
// holds (a restored run), rebuilds where each stands.
func (a *Agent) takeUp(ctx context.Context, calls []llm.ToolCall) ([]pendingCall, error) {
	type known struct {
		checked   bool
		args      json.RawMessage
		permitted *trace.Permission
		result    *trace.ToolResult
	}
	seen := map[string]*known{}
	for _, c := range calls {
		seen[c.ID] = &known{}
	}
	for _, e := range a.events {
		switch e.Kind {
		case trace.KindToolCall:
			if p, err := trace.Decode[trace.ToolCall](e); err == nil && seen[p.CallID] != nil {
				seen[p.CallID].checked = true
			}
		case trace.KindEdit:
			if p, err := trace.Decode[trace.Edit](e); err == nil && p.Target == trace.EditArgs && seen[p.CallID] != nil {
				seen[p.CallID].args = p.After
			}
		case trace.KindPermission:
			if p, err := trace.Decode[trace.Permission](e); err == nil && seen[p.CallID] != nil {
				seen[p.CallID].permitted = &p
			}
		case trace.KindToolResult:
			if p, err := trace.Decode[trace.ToolResult](e); err == nil && seen[p.CallID] != nil {
				seen[p.CallID].result = &p
			}
		}
	}
	pending := make([]pendingCall, len(calls))
	for i, c := range calls {
		k := seen[c.ID]
		if !k.checked {
			p, err := a.check(ctx, c)
			if err != nil {
				return nil, err
			}
			pending[i] = p
			continue
		}
		if k.args != nil {
			c.Args = k.args
		}
		pending[i] = a.validate(c)
		pending[i].permitted, pending[i].result = k.permitted, k.result
	}
	return pending, nil
}

// validate checks a call against the registry, without recording.
func (a *Agent) validate(c llm.ToolCall) pendingCall {
	p := pendingCall{call: c}
	tool, cerr := a.tools.Check(c.Name, argsObject(c.Args))
	if cerr != nil {
		p.outcome = &trace.ToolResult{CallID: c.ID, Name: c.Name, Content: cerr.Message, IsError: true, ErrorKind: cerr.Kind, Bytes: len(cerr.Message)}
	} else {
		p.tool = tool
	}
	return p
}

func (a *Agent) check(ctx context.Context, c llm.ToolCall) (pendingCall, error) {
	p := a.validate(c)
	ev := trace.ToolCall{CallID: c.ID, Name: c.Name, Args: argsObject(c.Args), Valid: p.tool != nil}
	if p.tool != nil {
		ev.ReadOnly = p.tool.ReadOnly()
	} else {
		ev.ErrorKind, ev.Problem = p.outcome.ErrorKind, p.outcome.Content
	}
	if _, err := a.record(ctx, trace.KindToolCall, ev); err != nil {
		return p, errStore{err}
	}
	return p, nil
}

// stepCall takes one call through its checkpoints: before it (the user may
// edit its arguments or skip it), permission, running, and after its
// result (the user may edit what goes back).
func (a *Agent) stepCall(ctx context.Context, p *pendingCall) error {
	if p.result == nil {
		if p.permitted == nil {
			skip, err := a.beforeTool(ctx, p)
			if err != nil || ctx.Err() != nil {
				return err
			}
			if !skip && p.outcome == nil {
				if err := a.permit(ctx, p); err != nil || ctx.Err() != nil {
					return err
				}
			}
		} else if p.permitted.Decision == trace.Deny {
			p.outcome = deniedResult(p.call, p.permitted.By)
		} else if p.outcome == nil {
			p.guard = a.restoredGuard(p)
		}
		var res trace.ToolResult
		if p.outcome != nil {
			res = *p.outcome
		} else {
			res = runOne(ctx, *p)
		}
		if _, err := a.record(ctx, trace.KindToolResult, res); err != nil {
			return errStore{err}
		}
		p.result = &res
	}
	return a.afterResult(ctx, p)
}

// beforeTool pauses before a call. It reports whether the user skipped it
// (p.outcome then holds their observation).
func (a *Agent) beforeTool(ctx context.Context, p *pendingCall) (bool, error) {
	pp := &pause{cp: Checkpoint{Point: trace.PointBeforeTool, CallID: p.call.ID, Tool: p.call.Name, Args: argsObject(p.call.Args)}}
	pp.edit = func(cmd Command) error {
		if len(cmd.Args) == 0 {
			return ErrNotHere
		}
		args := compactJSON(cmd.Args)
		tool, cerr := a.tools.Check(p.call.Name, args)
		if cerr != nil {
			return errors.New(cerr.Message)
		}
		if err := a.recordEdit(ctx, trace.EditArgs, 0, p.call.ID, argsObject(p.call.Args), json.RawMessage(args)); err != nil {
			return err
		}
		p.call.Args, p.tool, p.outcome = args, tool, nil
		pp.cp.Args = args
		return nil
	}
	cmd, err := a.checkpoint(ctx, pp)
	if err != nil || ctx.Err() != nil {
		return false, err
	}
	if cmd.Action == trace.ActionSkip {
		text := cmd.Observation
		if text == "" {
			text = "skipped by the user"
		}
		p.outcome = &trace.ToolResult{CallID: p.call.ID, Name: p.call.Name, Content: text, ErrorKind: trace.ErrSkipped, Bytes: len(text)}
		return true, nil
	}
	return false, nil
}

// afterResult pauses after a call's result is recorded; an edit changes
// what the model will see.
func (a *Agent) afterResult(ctx context.Context, p *pendingCall) error {
	res := *p.result
	for _, e := range a.events {
		if e.Kind == trace.KindEdit {
			if ed, err := trace.Decode[trace.Edit](e); err == nil && ed.Target == trace.EditResult && ed.CallID == res.CallID {
				_ = json.Unmarshal(ed.After, &res.Content)
			}
		}
	}
	pp := &pause{cp: Checkpoint{Point: trace.PointAfterResult, CallID: p.call.ID, Tool: p.call.Name, Result: &res}}
	pp.edit = func(cmd Command) error {
		if cmd.Result == nil {
			return ErrNotHere
		}
		if *cmd.Result == res.Content {
			return nil
		}
		if err := a.recordEdit(ctx, trace.EditResult, 0, p.call.ID, res.Content, *cmd.Result); err != nil {
			return err
		}
		res.Content = *cmd.Result
		return nil
	}
	_, err := a.checkpoint(ctx, pp)
	return err
}

func deniedResult(c llm.ToolCall, by string) *trace.ToolResult {
	msg := fmt.Sprintf("denied: %s did not run (denied by %s). Ask the user or try another approach.", c.Name, by)
	return &trace.ToolResult{CallID: c.ID, Name: c.Name, Content: msg, IsError: true, ErrorKind: trace.ErrDenied, Bytes: len(msg)}
}

// permit decides whether one valid call may run, asking when the policy
// says so, and records the decision. What the policy sees comes from the
// tool's own arguments only: nothing else the model sends can widen it.
func (a *Agent) permit(ctx context.Context, p *pendingCall) error {
	args := argsObject(p.call.Args)
	allow, by := false, ""
	call, err := permission.CallFor(p.call.Name, args, p.tool.ReadOnly())
	d, guard := a.cfg.Policy.DecideGuarded(call)
	if err != nil {
		d = permission.Decision{Verdict: permission.Refuse, By: "rule: the call's arguments could not be read (" + err.Error() + ")"}
	}
	switch d.Verdict {
	case permission.Run:
		allow, by = true, d.By
	case permission.Refuse:
		by = d.By
	case permission.Ask:
		req := permission.Request{SessionID: a.cfg.SessionID, CallID: p.call.ID, Tool: p.call.Name, Args: args,
			Call: &call, Reasons: d.Reasons, OnceOnly: d.OnceOnly}
		if pv, ok := p.tool.(tools.Previewer); ok {
			if disp, err := pv.Preview(ctx, args); err == nil {
				req.Display = disp
			} else {
				req.Summary = "preview unavailable: " + err.Error()
			}
		}
		if req.Summary == "" {
			req.Summary = summarize(p.call.Name, args)
		}
		ans, err := a.approver.Approve(ctx, req)
		switch {
		case err != nil && ctx.Err() != nil:
			return nil // the run was stopped while waiting; the caller backfills
		case err != nil:
			by = "rule: could not ask (" + err.Error() + ")"
		default:
			allow, by = ans.Allow, ans.By
			guard = guard.ApprovedByPerson()
			if ans.Grant != nil {
				a.cfg.Policy.Grants = append(a.cfg.Policy.Grants, *ans.Grant)
				if a.cfg.OnGrant != nil {
					a.cfg.OnGrant(*ans.Grant)
				}
			}
		}
	}
	decision := trace.Allow
	if allow {
		p.guard = guard
	} else {
		decision = trace.Deny
		p.outcome = deniedResult(p.call, by)
	}
	if _, err := a.record(ctx, trace.KindPermission, trace.Permission{CallID: p.call.ID, Tool: p.call.Name, Decision: decision, By: by, Reasons: d.Reasons}); err != nil {
		return errStore{err}
	}
	return nil
}

// restoredGuard rebuilds the guard of a call that the log says was allowed
// before the app exited: the decision is taken again on where its paths
// lead now. When that decision asks, the allow in the log came from a
// person.
func (a *Agent) restoredGuard(p *pendingCall) tools.Guard {
	call, err := permission.CallFor(p.call.Name, argsObject(p.call.Args), p.tool.ReadOnly())
	if err != nil {
		return refuseAll{err}
	}
	d, g := a.cfg.Policy.DecideGuarded(call)
	if d.Verdict == permission.Ask {
		g = g.ApprovedByPerson()
	}
	return g
}

// refuseAll is the guard of a call whose arguments the policy could not
// read.
type refuseAll struct{ err error }

func (r refuseAll) Check(string) error { return fmt.Errorf("refused: %v", r.err) }

// execute runs the allowed calls concurrently (bounded) and records each
// result as soon as it and every result before it are ready, so the log
// holds results in call order.
func (a *Agent) execute(ctx context.Context, pending []pendingCall) error {
	done := make([]chan trace.ToolResult, len(pending))
	slots := make(chan struct{}, a.cfg.maxParallel())
	for i := range pending {
		done[i] = make(chan trace.ToolResult, 1)
		if pending[i].outcome != nil {
			done[i] <- *pending[i].outcome
			continue
		}
		go func(p pendingCall, out chan<- trace.ToolResult) {
			slots <- struct{}{}
			defer func() { <-slots }()
			out <- runOne(ctx, p)
		}(pending[i], done[i])
	}
	for i := range pending {
		res := <-done[i]
		if _, err := a.record(ctx, trace.KindToolResult, res); err != nil {
			// Drain the rest so no goroutine is left blocked.
			for j := i + 1; j < len(pending); j++ {
				<-done[j]
			}
			return errStore{err}
		}
	}
	return nil
}

// runOne runs one tool and turns what happened into the observation the
// model will read.
func runOne(ctx context.Context, p pendingCall) (res trace.ToolResult) {
	res = trace.ToolResult{CallID: p.call.ID, Name: p.call.Name}
	if ctx.Err() != nil {
		res.Content, res.IsError, res.ErrorKind = "cancelled: the user stopped the run before this call started", true, trace.ErrCancelled
		res.Bytes = len(res.Content)
		return res
	}
	start := time.Now()
	defer func() {
		if r := recover(); r != nil {
			res.Content = fmt.Sprintf("%s failed: internal error: %v", p.call.Name, r)
			res.IsError, res.ErrorKind = true, trace.ErrFailed
			res.Bytes = len(res.Content)
		}
		res.DurationMs = time.Since(start).Milliseconds()
	}()
	if p.guard != nil {
		ctx = tools.WithGuard(ctx, p.guard)
	}
	out, err := p.tool.Run(ctx, argsObject(p.call.Args))
	res.Display, res.ExitCode, res.Truncated, res.Changes = out.Display, out.ExitCode, out.Truncated, out.Changes
	switch {
	case ctx.Err() != nil && (err != nil || out.IsError):
		res.Content = "cancelled: the user stopped the run while this call was running"
		if out.Content != "" {
			res.Content += "\npartial output:\n" + out.Content
		}
		res.IsError, res.ErrorKind = true, trace.ErrCancelled
	case err != nil:
		res.Content = fmt.Sprintf("%s failed: %v", p.call.Name, err)
		res.IsError, res.ErrorKind = true, trace.ErrFailed
	default:
		// A command that exits non-zero is an error the model should see,
		// but the tool itself worked: no error kind.
		res.Content, res.IsError = out.Content, out.IsError
	}
	res.Bytes = len(res.Content)
	return res
}
