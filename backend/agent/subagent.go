package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/loupe-dev/loupe/backend/tools"
	"github.com/loupe-dev/loupe/backend/trace"
)

// A sub-agent is the same loop run again for one task call, nested in the
// run that made the call: a fresh history (SubAgents.System and the
// call's prompt), a trimmed tool set, its own round cap, and the parent's
// permissions (the same policy, grants and approver, shared: an answer
// given in one holds in the other), sandbox and model. Its events go to
// the same log, each marked with its sub-run (trace.Event.Agent); its
// final answer is the task call's result.

// SubAgents is how a run's task calls run.
type SubAgents struct {
	// System is a sub-agent's system prompt ("": SubAgentSystem).
	System string
	// MaxRounds caps each sub-agent's model requests (0:
	// tools.SubAgentRounds).
	MaxRounds int
	// MaxParallel bounds the task calls of one run that run at once; the
	// others wait for a place (0: 2).
	MaxParallel int
	// MaxDepth is how deep sub-agents nest: 1 (the default) gives a
	// sub-agent no task tool, 2 lets it start one that has none, and so on.
	MaxDepth int
}

// SubAgentSystem is the system prompt of a sub-agent unless the session
// gives another.
const SubAgentSystem = `You are a sub-agent of a coding agent, working in the same folder with a few of its tools.
You are given one goal. Use the tools to reach it, then answer in plain text without calling any tool: your answer is all the agent that asked will read, so make it complete and short (the facts found, with paths and line numbers).
You cannot see or change files yourself: use the tools. Paths are relative to the folder.`

func (s SubAgents) system() string {
	if s.System == "" {
		return SubAgentSystem
	}
	return s.System
}

func (s SubAgents) maxRounds() int {
	if s.MaxRounds <= 0 {
		return tools.SubAgentRounds
	}
	return s.MaxRounds
}

func (s SubAgents) maxParallel() int {
	if s.MaxParallel <= 0 {
		return 2
	}
	return s.MaxParallel
}

func (s SubAgents) maxDepth() int {
	if s.MaxDepth <= 0 {
		return 1
	}
	return s.MaxDepth
}

// CodeSubAgent is the notice at the start of a sub-agent's run that says
// what it was given.
const CodeSubAgent = "sub_agent"

// subTools is the registry a sub-agent of this run gets for the names
// asked (none: tools.SubAgentTools): only tools this run has, never one
// this run was denied, and no task tool at the depth cap. A name it cannot
// have is an error the model reads.
func (r *run) subTools(asked []string) (*tools.Registry, error) {
	have := r.tools
	if have == nil {
		return nil, errors.New("no tools are offered in this session, so a sub-agent could do nothing")
	}
	names := asked
	if len(names) == 0 {
		names = tools.SubAgentTools
	}
	var missing, refused []string
	var keep []string
	for _, n := range names {
		switch {
		case n == tools.TaskName && trace.Depth(r.agent)+1 >= r.cfg.SubAgents.maxDepth():
			refused = append(refused, n+" (sub-agents nest at most "+fmt.Sprint(r.cfg.SubAgents.maxDepth())+" deep)")
		case r.perm.deniedTool(n) != "":
			refused = append(refused, n+" ("+r.perm.deniedTool(n)+")")
		case !slices.Contains(have.Names(), n):
			if len(asked) > 0 {
				missing = append(missing, n)
			}
		default:
			keep = append(keep, n)
		}
	}
	if len(missing) > 0 || len(refused) > 0 && len(asked) > 0 {
		var why []string
		if len(missing) > 0 {
			why = append(why, "it cannot have "+strings.Join(missing, ", ")+": a sub-agent only gets tools you have ("+strings.Join(have.Names(), ", ")+")")
		}
		if len(refused) > 0 {
			why = append(why, "it cannot have "+strings.Join(refused, ", "))
		}
		return nil, errors.New("no sub-agent was started: " + strings.Join(why, "; "))
	}
	if len(keep) == 0 {
		return nil, errors.New("no sub-agent was started: none of the tools it would get is offered here")
	}
	return have.Subset(keep...), nil
}

// delegate runs the sub-agent of task call c and turns how it ended into
// the call's result: its final answer (capped), or an error that says why
// it stopped without one. It waits for a place among the run's task calls
// first. A nil error with an error result is what the model reads; an
// error is the log's (the run cannot go on).
func (r *run) delegate(ctx context.Context, c *call, in tools.TaskInput) (tools.Result, error) {
	reg, err := r.subTools(in.Tools)
	if err != nil {
		return tools.Result{Content: err.Error(), IsError: true}, nil
	}
	select {
	case r.tasks <- struct{}{}:
	case <-ctx.Done():
		return tools.Result{Content: "the sub-agent did not start: the call was stopped while it waited for a place", IsError: true}, nil
	}
	defer func() { <-r.tasks }()

	sub := r.cfg.SubAgents
	cfg := r.cfg
	cfg.System, cfg.Instructions, cfg.MaxRounds, cfg.StartNotices = sub.system(), nil, sub.maxRounds(), nil
	cfg.Compaction = Compaction{}
	cfg.ToolSet = 0
	if cfg.ToolSets != nil {
		if cfg.ToolSet, err = cfg.ToolSets(ctx, reg.Specs()); err != nil {
			return tools.Result{}, errStore{fmt.Errorf("store the sub-agent's tools: %w", err)}
		}
	}
	seams := r.a.seams
	seams.Tools = reg
	if !c.into {
		// Stepped over (or not stepping): it runs to its end as one step.
		seams.Pauser = nil
	}
	a := &Agent{cfg: cfg, seams: seams, streams: r.a.streams, running: map[string]context.CancelCauseFunc{}}
	sr, err := a.begin()
	if err != nil {
		return tools.Result{}, err
	}
	sr.num, sr.agent, sr.perm, sr.rate = r.num, trace.SubAgent(r.agent, c.ID), r.perm, r.rate
	if _, err := sr.record(ctx, trace.KindUserMessage, trace.UserMessage{Text: in.Prompt}); err != nil {
		return tools.Result{}, err
	}
	if err := sr.notice(ctx, CodeSubAgent, fmt.Sprintf("a sub-agent for call %s of %s, with %s, at most %d rounds", c.ID, parentName(r.agent), strings.Join(reg.Names(), ", "), cfg.maxRounds())); err != nil {
		return tools.Result{}, err
	}
	end, err := sr.loop(ctx, nil)
	if errors.Is(err, ErrLeftPaused) {
		// Loupe closes while the sub-agent waits at a pause: it is not
		// taken up again after a restart, so it ends here, as interrupted.
		end, err = sr.cancelled(ctx)
	}
	if err != nil {
		return tools.Result{}, err
	}
	if _, err := sr.record(ctx, trace.KindRunEnd, end); err != nil {
		return tools.Result{}, err
	}
	return subResult(end), nil
}

func parentName(agent string) string {
	if agent == "" {
		return "the session's agent"
	}
	return "sub-agent " + agent
}

// subResult is what the parent reads of a sub-agent's end.
func subResult(end trace.RunEnd) tools.Result {
	if end.Reason == trace.EndAnswered {
		text, cut := tools.CapAnswer(end.FinalText)
		return tools.Result{Content: text, Truncated: cut}
	}
	msg := fmt.Sprintf("the sub-agent stopped without an answer after %d round%s (%s)", end.Rounds, plural(end.Rounds), end.Reason)
	if end.Detail != "" {
		msg += ": " + end.Detail
	}
	if strings.TrimSpace(end.FinalText) != "" {
		text, _ := tools.CapAnswer(end.FinalText)
		msg += "\nits last words:\n" + text
	}
	return tools.Result{Content: msg, IsError: true}
}

// recoverSubAgents closes the sub-agents' runs the app left open when it
// exited, the deepest first: every call of theirs that was started or
// asked for gets an "interrupted (app exited)" result, and each run its
// run_end, as Recover does for the session's own.
func (a *Agent) recoverSubAgents(ctx context.Context) error {
	subs := trace.SubAgents(a.all)
	for i := len(subs) - 1; i >= 0; i-- {
		id := subs[i]
		own := trace.Own(a.all, id)
		st := trace.StateOf(own)
		if !st.Open {
			continue
		}
		sa := &Agent{cfg: a.cfg, seams: a.seams, log: own, all: own, running: map[string]context.CancelCauseFunc{}}
		r, err := sa.begin()
		if err != nil {
			return err
		}
		r.num, r.round, r.agent = st.Run, st.Round, id
		if err := r.backfill(ctx, trace.ErrInterrupted, "interrupted (app exited) before this call finished"); err != nil {
			return err
		}
		end := trace.RunEnd{Reason: trace.EndInterrupted, Detail: "Loupe exited while this sub-agent was going", Rounds: r.round, FinalText: r.lastText}
		if _, err := r.record(ctx, trace.KindRunEnd, end); err != nil {
			return err
		}
	}
	return nil
}
