package permission

import (
	"fmt"
	"strings"
)

// This file compiles the policy's rules, settings and grants by effect,
// and checks ask and allow rules against a call.

// ruleSet is the policy's rules compiled, by effect.
type ruleSet struct {
	deny, ask, allow []*compiled
	grants           []*compiled // allow grants alone, checked before ask rules
	broken           []brokenRule
}

type brokenRule struct {
	tool string
	why  string
}

func (p Policy) ruleSet() ruleSet {
	var rs ruleSet
	add := func(r Rule, by string, grant bool, target string) {
		c, err := compileRule(r)
		if err != nil {
			if r.Effect != EffectAllow {
				tool := r.Tool
				if r.Command != "" || r.CommandLine != "" {
					tool = RunCommand
				}
				rs.broken = append(rs.broken, brokenRule{tool: tool, why: fmt.Sprintf("%s (so Loupe asks instead)", err)})
			}
			return
		}
		if by != "" {
			c.by = by
		}
		if c.path != nil && target == TargetFile {
			c.path.file = true
		}
		switch c.Effect {
		case EffectDeny:
			rs.deny = append(rs.deny, c)
		case EffectAsk:
			rs.ask = append(rs.ask, c)
		case EffectAllow:
			rs.allow = append(rs.allow, c)
			if grant {
				rs.grants = append(rs.grants, c)
			}
		}
	}
	for _, r := range p.Rules {
		add(r, "", false, "")
	}
	// A workspace's deny and ask rules only restrict: they count whether
	// or not the user trusted the file (a copy of the workspace, at a new
	// path, is not trusted yet). Its allow rules and commands need trust.
	ws := p.WorkspaceSettings
	from := "rule from " + workspaceSettingsFile + ": "
	for _, r := range ws.Rules {
		if p.Trusted || r.Effect == EffectDeny || r.Effect == EffectAsk {
			add(r, from+r.String(), false, "")
		}
	}
	if p.Trusted {
		for _, cmd := range ws.Commands {
			r := Rule{Effect: EffectAllow, Tool: RunCommand, Command: cmd}
			add(r, from+r.String(), false, "")
		}
	}
	for _, g := range p.Grants {
		if g.Scope == ScopeSession || g.Scope == ScopeWorkspace {
			add(g.Rule, g.Scope.by(), true, GrantTarget(g))
		}
	}
	return rs
}

// askMatches reports whether an ask rule covers c (a might-match counts).
func askMatches(r *compiled, c Call, ps paths, a *analysis, mentions, writes []string) bool {
	switch {
	case r.cmd != nil:
		if a == nil {
			return false
		}
		for _, cmd := range a.all {
			if r.cmd.matchLoose(cmd.words) != noMatch {
				return true
			}
		}
		return false
	case r.line != "":
		return a != nil && r.lineMatches(c.Command)
	case r.path != nil:
		for _, q := range append(append(ps.all(), mentions...), writes...) {
			if r.path.match(q) {
				return true
			}
		}
		return false
	}
	return true
}

// allowedBy reports whether allow rules cover c entirely, and by which. For
// a command it also lists the commands that no rule allows.
func allowedBy(rules []*compiled, c Call, ps paths, a *analysis, denyUnchecked bool) (string, bool, []*command) {
	var bys []string
	for _, r := range rules {
		if r.Tool != "" && toolMatches(r.Tool, c.Tool) && r.cmd == nil && r.line == "" && r.path == nil {
			if a != nil && denyUnchecked {
				continue
			}
			return r.by, true, nil
		}
	}
	if a != nil {
		line := exactLine(c.Command)
		for _, r := range rules {
			if r.line != "" && r.raw == line {
				return r.by, true, nil
			}
		}
		if denyUnchecked {
			// Part of it cannot be seen, so deny rules could not be
			// checked: only a rule for this exact line vouches for it.
			return "", false, nil
		}
		if len(a.later) > 0 {
			// Bash runs text the words of a rule do not show: only a
			// rule for this exact line vouches for it. The question
			// names the commands, as for any command no rule covers.
			return "", false, a.cmds
		}
		var missing []*command
		for _, cmd := range a.cmds {
			missing = allowCommand(rules, cmd, &bys, missing)
		}
		if len(a.cmds) == 0 || len(missing) > 0 || len(a.reasons) > 0 {
			return "", false, missing
		}
		if len(bys) == 0 {
			return "rule: cd, true, false, : and pwd run without asking", true, nil
		}
		return strings.Join(bys, "; "), true, nil
	}
	all := ps.all()
	if len(all) == 0 {
		return "", false, nil
	}
	for _, q := range all {
		found := false
		for _, r := range rules {
			if r.path != nil && r.appliesTo(c.Tool) && r.path.match(q) {
				bys = appendNew(bys, r.by)
				found = true
				break
			}
		}
		if !found {
			return "", false, nil
		}
	}
	return strings.Join(bys, "; "), true, nil
}

// allowCommand checks one command and what it runs; it appends the ones
// no rule allows to missing.
func allowCommand(rules []*compiled, cmd *command, bys *[]string, missing []*command) []*command {
	if cmd.self != nil && !cmd.noRule {
		found := false
		for _, r := range rules {
			if r.cmd != nil && r.cmd.matchStrict(cmd.self) && r.cmd.names(cmd.writers) {
				*bys = appendNew(*bys, r.by)
				found = true
				break
			}
		}
		if !found {
			missing = append(missing, cmd)
		}
	}
	for _, in := range cmd.inner {
		missing = allowCommand(rules, in, bys, missing)
	}
	return missing
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
