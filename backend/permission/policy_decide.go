package permission

import (
	"fmt"
	"slices"
	"strings"
)

// This file is the decision order: Decide, and the reasons given when it
// asks.

// Decide says whether c runs, asks or is refused. In order:
//
//  1. Deny wins: a deny rule (or grant) that matches refuses, in every
//     mode; so does a tool set to never, and a path outside the
//     workspace. A deny rule that only might match (the shell expands
//     the words) or that covers a path the command mentions asks.
//  2. Changing a protected path asks, in every mode, every time.
//  3. A remembered allow grant runs.
//  4. An ask rule asks.
//  5. Allow rules run the call when they cover it whole: every path, or
//     every command of a command line that has nothing else to check.
//  6. The tool's setting (always, ask).
//  7. The mode: auto runs; ask_all asks; ask runs reads and asks for
//     the rest.
//
// In auto mode (and for tools set to always) a command that has parts
// Loupe cannot see asks when there are command deny rules to respect.
//
// Paths are judged as given and where they really lead
// (tools.Workspace.Resolve, the resolver the tools open files with).
// DecideGuarded also returns the guard that holds the tool to this
// decision when it opens its file.
func (p Policy) Decide(c Call) Decision {
	d, _ := p.DecideGuarded(c)
	return d
}

// decide decides c on its placed paths ps, with prot the protected list
// (made once for the decision and the guard that holds the tool to it:
// judging some paths walks the workspace).
func (p Policy) decide(c Call, ps paths, prot []protectedPath) Decision {
	rs := p.ruleSet()
	if len(ps.outside) > 0 {
		return Decision{Verdict: Refuse, By: "rule: paths outside the workspace are refused",
			Reasons: []string{fmt.Sprintf("%s is outside the workspace", strings.Join(ps.outside, ", "))}}
	}
	if p.Tools[c.Tool] == ToolNever {
		return Decision{Verdict: Refuse, By: fmt.Sprintf("rule: %s is set to never", c.Tool)}
	}

	var a *analysis
	var mentions, writes []string
	if c.Tool == RunCommand {
		a = p.analyze(c.Command)
		mentions = p.place(a.mentions).all()
		writes = p.place(a.writes).all()
	}

	// 1. Deny.
	var once []string
	denyUnchecked := false
	for _, r := range rs.deny {
		if !r.appliesTo(c.Tool) {
			continue
		}
		switch {
		case r.cmd != nil:
			if a == nil {
				continue
			}
			if a.opaque {
				denyUnchecked = true
			}
			for _, cmd := range a.all {
				switch r.cmd.matchLoose(cmd.words) {
				case yesMatch:
					return Decision{Verdict: Refuse, By: r.by, Reasons: []string{cmd.ran()}}
				case maybeMatch:
					once = appendNew(once, fmt.Sprintf("%s might be refused by %s: its words are only known when it runs", cmd, r.by))
				}
			}
		case r.line != "":
			if a != nil && r.lineMatches(c.Command) {
				return Decision{Verdict: Refuse, By: r.by}
			}
		case r.path != nil:
			for _, q := range ps.all() {
				if r.path.match(q) {
					return Decision{Verdict: Refuse, By: r.by, Reasons: []string{fmt.Sprintf("it touches %s", q)}}
				}
			}
			for _, q := range append(append([]string{}, writes...), mentions...) {
				if r.path.match(q) {
					once = appendNew(once, fmt.Sprintf("it mentions %s, which %s covers", q, r.by))
				}
			}
		default:
			return Decision{Verdict: Refuse, By: r.by}
		}
	}

	// Command ask rules cannot be checked against what Loupe cannot see
	// either.
	denyUnchecked = denyUnchecked || len(unseenRules(rs, c.Tool, a)) > 0

	// 2. Protected paths.
	if !c.ReadOnly {
		for _, q := range ps.all() {
			if pat, ok := protectedBy(prot, q); ok {
				once = appendNew(once, fmt.Sprintf("%s is protected (%s): Loupe asks before every change to it", q, pat))
			}
		}
	}
	// What a command names is judged without the file tools' own
	// protections (git writes HEAD).
	// A copy: the guard that holds the tool to this decision keeps the
	// whole list, the file tools' own protections included.
	prot = slices.DeleteFunc(slices.Clone(prot), func(pr protectedPath) bool { return pr.toolsOnly })
	for _, q := range writes {
		if pat, ok := protectedBy(prot, q); ok {
			once = appendNew(once, fmt.Sprintf("it writes to %s, which is protected (%s)", q, pat))
		}
	}
	for _, q := range mentions {
		if pat, ok := protectedBy(prot, q); ok {
			once = appendNew(once, fmt.Sprintf("it mentions %s, which is protected (%s)", q, pat))
		}
	}
	if len(once) > 0 {
		return Decision{Verdict: Ask, Reasons: append(once, commandReasons(a, nil)...), OnceOnly: true}
	}

	// 3. Remembered grants.
	if by, ok, _ := allowedBy(rs.grants, c, ps, a, denyUnchecked); ok {
		return Decision{Verdict: Run, By: by}
	}

	// 4. Ask rules, and deny or ask rules that could not be read.
	for _, r := range rs.ask {
		if r.appliesTo(c.Tool) && askMatches(r, c, ps, a, mentions, writes) {
			return Decision{Verdict: Ask, By: r.by, Reasons: append([]string{"a rule asks for it (" + strings.TrimPrefix(r.by, "rule: ") + ")"}, commandReasons(a, nil)...)}
		}
	}
	var broken []string
	for _, b := range rs.broken {
		if b.tool == "" || b.tool == c.Tool {
			broken = append(broken, b.why)
		}
	}
	if len(broken) > 0 {
		return Decision{Verdict: Ask, Reasons: append(broken, commandReasons(a, nil)...)}
	}

	// 5. Allow rules.
	by, ok, missing := allowedBy(rs.allow, c, ps, a, denyUnchecked)
	if ok {
		return Decision{Verdict: Run, By: by}
	}

	if denyUnchecked {
		// Whatever the tool's setting and the mode: Loupe cannot see
		// what part of it runs, so the rules could not be checked.
		return Decision{Verdict: Ask, Reasons: append([]string{uncheckedReason(rs, c.Tool, a)}, commandReasons(a, nil)...)}
	}
	// 6. The tool's own setting.
	switch p.Tools[c.Tool] {
	case ToolAlways:
		return Decision{Verdict: Run, By: fmt.Sprintf("rule: %s is set to always", c.Tool)}
	case ToolAsk:
		return Decision{Verdict: Ask, By: fmt.Sprintf("rule: %s is set to ask", c.Tool), Reasons: p.askReasons(c, ps, a, missing)}
	}

	// 7. The mode; an MCP server's tool asks in every mode.
	if _, _, ok := MCPTool(c.Tool); ok {
		return mcpAsk(c.Tool)
	}
	switch p.Mode {
	case ModeAuto:
		return Decision{Verdict: Run, By: "auto mode"}
	case ModeAskAll:
		return Decision{Verdict: Ask, Reasons: append([]string{"Ask every time is on"}, p.askReasons(c, ps, a, missing)...)}
	}
	if c.ReadOnly {
		return Decision{Verdict: Run, By: "rule: reads run without asking"}
	}
	return Decision{Verdict: Ask, Reasons: p.askReasons(c, ps, a, missing)}
}

// askReasons explains an ask that no rule caused.
func (p Policy) askReasons(c Call, ps paths, a *analysis, missing []*command) []string {
	if a != nil {
		out := commandReasons(a, missing)
		if len(a.later) > 0 {
			// An allow rule may cover the words; it does not cover what
			// bash evaluates when it runs, so the question says what.
			out = append([]string{"bash runs text in it as code that Loupe cannot see, which no rule for the command covers: " + strings.Join(a.later, ", ")}, out...)
		}
		return out
	}
	if c.ReadOnly {
		if len(ps.rel) > 0 {
			return []string{"it reads " + strings.Join(ps.rel, ", ")}
		}
		return nil
	}
	if len(ps.rel) > 0 {
		return []string{"it changes " + strings.Join(ps.rel, ", ")}
	}
	return []string{c.Tool + " can change things"}
}

// commandReasons says what about a command needs a person: the
// constructs no word rule vouches for, and the commands no rule allows.
func commandReasons(a *analysis, missing []*command) []string {
	if a == nil {
		return nil
	}
	out := append([]string{}, a.reasons...)
	if len(a.cmds) > 1 && len(missing) > 0 {
		out = append(out, fmt.Sprintf("it runs %d commands; each needs a rule to run without asking", len(a.cmds)))
	}
	if a.background {
		out = append(out, "it runs something in the background (&)")
	}
	const maxListed = 8
	for i, m := range missing {
		if i == maxListed {
			out = append(out, fmt.Sprintf("and %d more commands no rule allows", len(missing)-maxListed))
			break
		}
		out = appendNew(out, fmt.Sprintf("no rule allows %s", wordsText(m.self)))
		out = append(out, writerReasons(m)...)
	}
	return out
}
