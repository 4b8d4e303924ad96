package agent

import (
	"context"
	"fmt"
	"time"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/tools"
	"github.com/loupe-dev/loupe/backend/trace"
)

// pendingCall is one call of a message on its way through check,
// permission and execution. A call with an outcome already (invalid,
// denied) does not run.
type pendingCall struct {
	call    llm.ToolCall
	tool    tools.Tool
	outcome *trace.ToolResult
}

// runCalls takes the calls of one complete message through the harness:
// check each (recording it before anything runs), ask permission in call
// order, run the allowed ones concurrently, and record the results in call
// order. If ctx is cancelled it returns early; the caller backfills.
func (a *Agent) runCalls(ctx context.Context, calls []llm.ToolCall) error {
	pending := make([]pendingCall, len(calls))
	for i, c := range calls {
		p, err := a.check(ctx, c)
		if err != nil {
			return err
		}
		pending[i] = p
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

func (a *Agent) check(ctx context.Context, c llm.ToolCall) (pendingCall, error) {
	p := pendingCall{call: c}
	args := argsObject(c.Args)
	ev := trace.ToolCall{CallID: c.ID, Name: c.Name, Args: args}
	tool, cerr := a.tools.Check(c.Name, args)
	if cerr != nil {
		ev.ErrorKind, ev.Problem = cerr.Kind, cerr.Message
		p.outcome = &trace.ToolResult{CallID: c.ID, Name: c.Name, Content: cerr.Message, IsError: true, ErrorKind: cerr.Kind, Bytes: len(cerr.Message)}
	} else {
		ev.Valid, ev.ReadOnly = true, tool.ReadOnly()
		p.tool = tool
	}
	if _, err := a.record(ctx, trace.KindToolCall, ev); err != nil {
		return p, errStore{err}
	}
	return p, nil
}

// permit decides whether one valid call may run, asking when the policy
// says so, and records the decision.
func (a *Agent) permit(ctx context.Context, p *pendingCall) error {
	verdict, by := permission.Decide(a.cfg.Mode, p.tool.ReadOnly())
	allow := true
	if verdict == permission.Ask {
		req := permission.Request{SessionID: a.cfg.SessionID, CallID: p.call.ID, Tool: p.call.Name, Args: argsObject(p.call.Args)}
		if pv, ok := p.tool.(tools.Previewer); ok {
			if d, err := pv.Preview(ctx, req.Args); err == nil {
				req.Display = d
			} else {
				req.Summary = "preview unavailable: " + err.Error()
			}
		}
		if req.Summary == "" {
			req.Summary = summarize(p.call.Name, req.Args)
		}
		ans, err := a.approver.Approve(ctx, req)
		switch {
		case err != nil && ctx.Err() != nil:
			return nil // the run was stopped while waiting; the caller backfills
		case err != nil:
			allow, by = false, "rule: could not ask ("+err.Error()+")"
		default:
			allow, by = ans.Allow, ans.By
		}
	}
	decision := trace.Allow
	if !allow {
		decision = trace.Deny
		msg := fmt.Sprintf("denied: %s did not run (denied by %s). Ask the user or try another approach.", p.call.Name, by)
		p.outcome = &trace.ToolResult{CallID: p.call.ID, Name: p.call.Name, Content: msg, IsError: true, ErrorKind: trace.ErrDenied, Bytes: len(msg)}
	}
	if _, err := a.record(ctx, trace.KindPermission, trace.Permission{CallID: p.call.ID, Tool: p.call.Name, Decision: decision, By: by}); err != nil {
		return errStore{err}
	}
	return nil
}

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
	out, err := p.tool.Run(ctx, argsObject(p.call.Args))
	res.Display, res.ExitCode, res.Truncated = out.Display, out.ExitCode, out.Truncated
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
