package agent

// The user's hooks at the loop's events (see package hooks): each run is a
// hook_run event; at a call's hooks a person call may pause after each
// (after_hook), before what the hook said counts. A hook only ever makes
// a call's decision stricter, or answers a question the policy asks: its
// allow never runs a call the policy refuses, and never answers a question
// that cannot be remembered (a protected path, a possible deny).

import (
	"context"
	"fmt"
	"strings"

	"github.com/loupe-dev/loupe/backend/hooks"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/trace"
)

// CodeHookFailed is the notice of a hook that failed and whose on_failure
// lets the loop go on; CodeHookBlocked the notice of a run_end hook that
// blocked (there is nothing left to block).
const (
	CodeHookFailed  = "hook_failed"
	CodeHookBlocked = "hook_blocked"
)

// hookSaid is what a call's before_tool hooks came to.
type hookSaid struct {
	decision string // trace.Allow, Deny, Ask or ""
	by       string
	reason   string
}

// runHook runs one hook, records its run and, for a person call, pauses
// after it when stepping says so.
func (r *run) runHook(ctx context.Context, h hooks.Hook, in hooks.Input, c *call) (hooks.Outcome, error) {
	in.SessionID, in.Run, in.Round = r.cfg.SessionID, r.num, r.round
	o := r.a.seams.Hooks.Run(ctx, h, in)
	if _, err := r.record(ctx, trace.KindHookRun, o.Record); err != nil {
		return o, err
	}
	if o.Record.Outcome == trace.HookFailedContinued {
		if err := r.notice(ctx, CodeHookFailed, o.Says+"; Loupe went on, as the hook's on_failure says."); err != nil {
			return o, err
		}
	}
	if c != nil && c.person {
		s := &stop{cp: Checkpoint{Point: trace.PointAfterHook, CallID: c.ID, Tool: c.Name}}
		s.show = func(cp *trace.Checkpoint) { cp.Hook = o.Record.Hook }
		if _, err := r.pause(ctx, s); err != nil {
			return o, err
		}
	}
	return o, nil
}

// judged is the policy's verdict on a call with its before_tool hooks
// applied. The hooks run once per call (again when its arguments are
// edited at a pause).
func (r *run) judged(ctx context.Context, c *call) (verdict, error) {
	v := r.judge(c)
	hs := r.a.seams.Hooks.For(hooks.BeforeTool, c.Name)
	if len(hs) == 0 {
		return v, nil
	}
	if c.said == nil {
		said := &hookSaid{}
		for _, h := range hs {
			o, err := r.runHook(ctx, h, hooks.Input{Tool: c.Name, CallID: c.ID, Args: argsObject(c.Args)}, c)
			if err != nil {
				return v, err
			}
			by := "hook " + o.Record.Hook
			d := o.Record.Decision
			if o.Blocks {
				d = trace.Deny
				o.Record.Reason = o.Says
			}
			switch {
			case d == trace.Deny:
				said = &hookSaid{decision: trace.Deny, by: by, reason: o.Record.Reason}
			case d == trace.Ask && said.decision != trace.Ask:
				said = &hookSaid{decision: trace.Ask, by: by, reason: o.Record.Reason}
			case d == trace.Allow && said.decision == "":
				said = &hookSaid{decision: trace.Allow, by: by, reason: o.Record.Reason}
			}
			if said.decision == trace.Deny {
				break
			}
		}
		c.said = said
	}
	return withHook(v, *c.said), nil
}

// withHook applies what the hooks said to the policy's verdict: stricter
// only, or the answer to a question that may be answered.
func withHook(v verdict, s hookSaid) verdict {
	reason := s.by
	if s.reason != "" {
		reason += ": " + s.reason
	}
	switch s.decision {
	case trace.Deny:
		if v.d.Verdict != permission.Refuse {
			v.d = permission.Decision{Verdict: permission.Refuse, By: reason, Reasons: []string{reason}}
		}
	case trace.Ask:
		if v.d.Verdict == permission.Run {
			v.d = permission.Decision{Verdict: permission.Ask, By: s.by, Reasons: []string{reason}}
		} else if v.d.Verdict == permission.Ask {
			v.d.Reasons = append(append([]string{}, v.d.Reasons...), reason)
		}
	case trace.Allow:
		if v.d.Verdict == permission.Ask && !v.d.OnceOnly {
			v.d = permission.Decision{Verdict: permission.Run, By: reason, Reasons: v.d.Reasons}
		}
	}
	return v
}

// afterHooks runs the after_tool hooks of a call that ran, and its
// after_edit hooks when it changed files, and adds what they said to the
// observation: a hook that blocks makes it an error.
func (r *run) afterHooks(ctx context.Context, c *call, res trace.ToolResult) (trace.ToolResult, error) {
	if r.a.seams.Hooks == nil || ctx.Err() != nil {
		return res, nil
	}
	switch res.ErrorKind {
	case trace.ErrCancelled, trace.ErrInterrupted, trace.ErrStopped:
		return res, nil
	}
	var paths []string
	for _, ch := range res.Changes {
		paths = append(paths, ch.Path)
	}
	type at struct {
		event string
		hs    []hooks.Hook
	}
	ats := []at{{hooks.AfterTool, r.a.seams.Hooks.For(hooks.AfterTool, c.Name)}}
	if len(paths) > 0 {
		ats = append(ats, at{hooks.AfterEdit, r.a.seams.Hooks.For(hooks.AfterEdit, c.Name)})
	}
	var notes strings.Builder
	for _, a := range ats {
		for _, h := range a.hs {
			in := hooks.Input{Tool: c.Name, CallID: c.ID, Args: argsObject(c.Args),
				Result: &hooks.Result{Content: res.Content, IsError: res.IsError, ExitCode: res.ExitCode}}
			if a.event == hooks.AfterEdit {
				in.Paths = paths
			}
			o, err := r.runHook(ctx, h, in, c)
			if err != nil {
				return res, err
			}
			if o.Says == "" {
				continue
			}
			what := "said"
			if o.Blocks {
				what, res.IsError = "blocked", true
			}
			fmt.Fprintf(&notes, "\n\n[loupe: hook %s (%s) %s:]\n%s", o.Record.Hook, a.event, what, o.Says)
		}
	}
	if notes.Len() > 0 {
		add := notes.String()
		if len(add) > hooks.OutputCap {
			add = strings.ToValidUTF8(add[:hooks.OutputCap], "") + "\n[loupe: the hooks' output was cut]"
		}
		res.Content += add
		res.Bytes = len(res.Content)
	}
	return res, nil
}

// ranTool runs an allowed call and then its after hooks.
func (r *run) ranTool(ctx context.Context, c *call) (trace.ToolResult, error) {
	return r.afterHooks(ctx, c, r.runTool(ctx, c))
}

// requestHooks runs the before_request hooks; a hook that blocks ends the
// run before the request is sent.
func (r *run) requestHooks(ctx context.Context) (*trace.RunEnd, error) {
	for _, h := range r.a.seams.Hooks.For(hooks.BeforeRequest, "") {
		o, err := r.runHook(ctx, h, hooks.Input{}, nil)
		if err != nil {
			return nil, err
		}
		if o.Blocks {
			return &trace.RunEnd{Reason: trace.EndHookBlocked, Detail: fmt.Sprintf("hook %s stopped the run before request %d: %s", o.Record.Hook, r.round, o.Says), Rounds: r.round, FinalText: r.lastText}, nil
		}
	}
	return nil, nil
}

// endHooks runs the run_end hooks, before the run_end is recorded (their
// runs belong to the run). They cannot block anything: one that would is
// said in a notice. A run that ends because Loupe closes runs none.
func (r *run) endHooks(ctx context.Context, end trace.RunEnd) error {
	if closing(ctx) {
		return nil
	}
	ctx = context.WithoutCancel(ctx)
	for _, h := range r.a.seams.Hooks.For(hooks.RunEnd, "") {
		o, err := r.runHook(ctx, h, hooks.Input{Reason: end.Reason}, nil)
		if err != nil {
			return err
		}
		if o.Blocks {
			if err := r.notice(ctx, CodeHookBlocked, fmt.Sprintf("hook %s at the end of the run: %s", o.Record.Hook, o.Says)); err != nil {
				return err
			}
		}
	}
	return nil
}
