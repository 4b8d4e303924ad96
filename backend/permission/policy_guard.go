package permission

import (
	"fmt"
	"slices"
	"strings"
)

// This file holds a call to its decision while it runs: the tool checks
// the file it has opened against what the policy decided on.

// CallGuard is what a decision allowed, for the tool to check when it opens
// its file (it implements tools.Guard). Permission is decided before the
// call runs; a command running in parallel may meanwhile turn the path
// into a symlink to .git/config or Loupe's database. The guard refuses any
// file other than the ones the decision was taken on, and, as a second
// line, any file a deny rule covers and any protected file nobody was
// asked about.
type CallGuard struct {
	tool     string
	readOnly bool
	// targets are the call's paths as the decision placed them: lexical,
	// and where they led then (tools.Resolution.Real).
	targets   []string
	deny      []*compiled
	protected []protectedPath
	// person is set when a person said yes to this call, having been
	// shown it: a protected target then needs no other approval.
	person bool
}

// DecideGuarded decides c like Decide and also returns the guard that
// holds the tool to that decision when it runs. Pass the guard to the
// tool (tools.WithGuard) only if the call is allowed; after a person
// allowed it, pass ApprovedByPerson().
func (p Policy) DecideGuarded(c Call) (Decision, *CallGuard) {
	ps := p.place(c.Paths)
	prot := p.protectedPaths()
	d := p.decide(c, ps, prot)
	if c.Tool == RunCommand && p.Unconfined != "" && d.Verdict == Run {
		// Without OS confinement nothing but the user stands between a
		// command and the machine: ask every time, whatever allowed it.
		d = Decision{Verdict: Ask, OnceOnly: true, Reasons: append(d.Reasons, "commands are not sandboxed here: "+p.Unconfined)}
	}
	g := &CallGuard{tool: c.Tool, readOnly: c.ReadOnly, targets: ps.all(), protected: prot}
	for _, r := range p.ruleSet().deny {
		if r.path != nil && r.appliesTo(c.Tool) {
			g.deny = append(g.deny, r)
		}
	}
	return d, g
}

// ApprovedByPerson returns the guard for a call a person allowed.
func (g *CallGuard) ApprovedByPerson() *CallGuard {
	c := *g
	c.person = true
	return &c
}

// Check refuses rel, the file the tool opened, unless the decision was
// taken on it.
func (g *CallGuard) Check(rel string) error {
	if !slices.Contains(g.targets, rel) {
		was := strings.Join(g.targets, ", ")
		if was == "" {
			was = "no file"
		}
		return fmt.Errorf("refused: the path now leads to %s, but permission was given for %s; it changed after the decision (a symlink or directory on the way was replaced). Nothing was %s. Check the path and call again", rel, was, g.done())
	}
	for _, r := range g.deny {
		if r.path.match(rel) {
			return fmt.Errorf("refused: %s is covered by %s. Nothing was %s", rel, r.by, g.done())
		}
	}
	if !g.readOnly && !g.person {
		if pat, ok := protectedBy(g.protected, rel); ok {
			return fmt.Errorf("refused: %s is protected (%s) and nobody was asked about changing it. Nothing was %s", rel, pat, g.done())
		}
	}
	return nil
}

func (g *CallGuard) done() string {
	if g.readOnly {
		return "read"
	}
	return "written"
}
