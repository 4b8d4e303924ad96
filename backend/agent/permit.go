package agent

import (
	"context"
	"strings"
	"sync"

	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/tools"
	"github.com/loupe-dev/loupe/backend/trace"
)

// permits is how a run decides its calls: the policy, and a person through
// the Approver when the policy asks. Answers "for this session" or "for
// this workspace" become grants for the rest of the run.
type permits struct {
	mu        sync.Mutex
	policy    permission.Policy
	approver  Approver
	onGrant   func(permission.Grant) error
	sessionID string
	// denied are the tools a person refused a call of in this session,
	// with who: a sub-agent never gets them (subTools) nor runs them
	// (judge), since the permits are shared with the run's sub-agents.
	denied map[string]string
}

// personDenials are the tools a person refused a call of in log.
func personDenials(log []trace.Event) map[string]string {
	out := map[string]string{}
	for _, e := range log {
		if e.Kind != trace.KindPermission {
			continue
		}
		if p, err := trace.Decode[trace.Permission](e); err == nil && p.Decision == trace.Deny && byPerson(p.By) {
			out[p.Tool] = p.By
		}
	}
	return out
}

// byPerson reports whether a decision's By names the user (permission.Answer).
func byPerson(by string) bool { return by == "you" || strings.HasPrefix(by, "you ") }

// refusal reports whether the run refuses the tool name whatever its
// calls ask: it is set to never (by ""), or the user denied a call of it
// in this session (by says who). Such a tool is not given to a sub-agent,
// nor switched on at a pause.
func (p *permits) refusal(name string) (refused bool, by string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.policy.Tools[name] == permission.ToolNever {
		return true, ""
	}
	by, ok := p.denied[name]
	return ok, by
}

// deniedTool says why a sub-agent may not have the tool name ("": it may).
func (p *permits) deniedTool(name string) string {
	switch refused, by := p.refusal(name); {
	case !refused:
		return ""
	case by == "":
		return name + " is set to never"
	default:
		return "denied to its parent by " + by + " in this session"
	}
}

// withheld says why a pause may not switch the tool name on ("": it may).
func (p *permits) withheld(name string) string {
	switch refused, by := p.refusal(name); {
	case !refused:
		return ""
	case by == "":
		return "set to never"
	default:
		return "denied by " + by + " in this session"
	}
}

// judge is the policy's verdict on a call of this run; a sub-agent's call
// of a tool its parent was denied is refused.
func (r *run) judge(c *call) verdict {
	if r.agent != "" {
		if why := r.perm.deniedTool(c.Name); why != "" {
			return verdict{d: permission.Decision{Verdict: permission.Refuse, By: "rule: a sub-agent cannot use a tool its parent was denied (" + why + ")"}}
		}
	}
	return r.perm.judge(c)
}

// verdict is what the policy says of a call, asking no one.
type verdict struct {
	call  permission.Call
	d     permission.Decision
	guard *permission.CallGuard
}

func (v verdict) asks() bool { return v.d.Verdict == permission.Ask }

// judge asks the policy about a valid call, now: the decision is taken on
// where its paths lead at this moment, and the guard holds the tool to it.
// What the policy sees comes from the tool's own arguments only: nothing
// else the model sends can widen it.
func (p *permits) judge(c *call) verdict {
	pc, err := permission.CallFor(c.Name, argsObject(c.Args), c.tool.ReadOnly())
	p.mu.Lock()
	d, g := p.policy.DecideGuarded(pc)
	p.mu.Unlock()
	if err != nil {
		d = permission.Decision{Verdict: permission.Refuse, By: "rule: the call's arguments could not be read (" + err.Error() + ")"}
	}
	return verdict{call: pc, d: d, guard: g}
}

// CodeGrantNotKept is the notice that an answer given "for this session"
// or "for this workspace" could not be kept beyond this run; its message
// says why and how long it holds.
const CodeGrantNotKept = "grant_not_kept"

// grant keeps an answer given for longer than this call: for the rest of
// the run here, and beyond it through onGrant, whose error it returns.
func (p *permits) grant(g permission.Grant) error {
	p.mu.Lock()
	p.policy.Grants = append(p.policy.Grants, g)
	p.mu.Unlock()
	if p.onGrant != nil {
		return p.onGrant(g)
	}
	return nil
}

// decide settles a call on the policy's verdict, asking a person when it
// says so, and records the decision: an allowed call gets its guard, a
// refused one its "denied" outcome. A question is an event too, recorded
// before it is asked. It reports false when the run was stopped while
// asking (nothing is decided; the caller backfills).
func (r *run) decide(ctx context.Context, c *call, v verdict) (bool, error) {
	allow, by := v.d.Verdict == permission.Run, v.d.By
	var guard tools.Guard = v.guard
	if v.asks() {
		args := argsObject(c.Args)
		req := permission.Request{SessionID: r.cfg.SessionID, Agent: r.agent, CallID: c.ID, Tool: c.Name, Args: args,
			Call: &v.call, Reasons: v.d.Reasons, OnceOnly: v.d.OnceOnly}
		if pv, ok := c.tool.(tools.Previewer); ok {
			if disp, err := pv.Preview(ctx, args); err == nil {
				req.Display = disp
			} else {
				req.Summary = "preview unavailable: " + err.Error()
			}
		}
		if req.Summary == "" {
			req.Summary = summarize(c.Name, args)
		}
		q := trace.Permission{CallID: c.ID, Tool: c.Name, Decision: trace.Ask, By: v.d.By, Reasons: v.d.Reasons, Summary: req.Summary, OnceOnly: v.d.OnceOnly,
			Command: v.call.Command, Paths: v.call.Paths}
		if req.Display != (trace.Display{}) {
			disp := req.Display
			q.Display = &disp
		}
		var recorded bool
		var recordErr error
		asked := func() error {
			if !recorded {
				recorded = true
				_, recordErr = r.record(ctx, trace.KindPermission, q)
			}
			return recordErr
		}
		ans, err := r.perm.approver.Approve(ctx, req, asked)
		if err := asked(); err != nil {
			return false, err
		}
		switch {
		case err != nil && ctx.Err() != nil:
			return false, nil
		case err != nil:
			by = "rule: could not ask (" + err.Error() + ")"
		default:
			allow, by = ans.Allow, ans.By
			guard = v.guard.ApprovedByPerson()
			if ans.Grant != nil {
				if err := r.perm.grant(*ans.Grant); err != nil {
					// The person's answer must not be forgotten without a
					// word: they would be asked again, or trust a grant
					// that is not there.
					if err := r.notice(ctx, CodeGrantNotKept, "Your answer could not be kept as given: "+err.Error()+"."); err != nil {
						return false, err
					}
				}
			}
		}
	}
	decision := trace.Allow
	if allow {
		c.guard = guard
	} else {
		decision = trace.Deny
		c.outcome = deniedResult(c, by)
		if v.asks() && byPerson(by) {
			r.perm.mu.Lock()
			r.perm.denied[c.Name] = by
			r.perm.mu.Unlock()
		}
	}
	if _, err := r.record(ctx, trace.KindPermission, trace.Permission{CallID: c.ID, Tool: c.Name, Decision: decision, By: by, Reasons: v.d.Reasons}); err != nil {
		return false, err
	}
	return true, nil
}

func summarize(name string, args []byte) string {
	s := strings.TrimSpace(string(args))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return name + " " + s
}
