package tools

import (
	"context"
	"sync"

	"github.com/loupe-dev/loupe/backend/sandbox"
)

// Round is one round of tool calls (the calls of one answer, which run in
// parallel), for what a tool must leave until every call of the round has
// ended: the check of what commands left in the workspace. Checked as one
// command ends, a parallel command that still runs could change what is
// being checked, or write after the check. The loop gives each round's
// calls a Round (WithRound) and calls End once all of them have ended.
type Round struct {
	mu    sync.Mutex
	sweep *sandbox.Sweep
	// checks are the checks of what other tools' processes left (an MCP
	// server granted paths: sandbox.Process.Check), run after the sweep.
	checks []func(context.Context) []string
}

// NewRound returns a Round with nothing to do yet.
func NewRound() *Round { return &Round{} }

type roundKey struct{}

// WithRound gives the tools run under ctx the round they belong to.
func WithRound(ctx context.Context, r *Round) context.Context {
	return context.WithValue(ctx, roundKey{}, r)
}

// roundOf is the round ctx's call belongs to, or nil outside a loop (a
// tool run on its own checks at once).
func roundOf(ctx context.Context) *Round {
	r, _ := ctx.Value(roundKey{}).(*Round)
	return r
}

// commandSweep is the round's Sweep for its commands.
func (r *Round) commandSweep() *sandbox.Sweep {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sweep == nil {
		r.sweep = sandbox.NewSweep()
	}
	return r.sweep
}

// AfterRound has check (what a tool's process left in the workspace) run
// once every call of ctx's round has ended, with the commands' check, and
// returns nil; outside a round it runs check at once and returns what it
// says.
func AfterRound(ctx context.Context, check func(context.Context) []string) []string {
	r := roundOf(ctx)
	if r == nil {
		return check(ctx)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.checks = append(r.checks, check)
	return nil
}

// End does what the round's calls left for after all of them, and returns
// one sentence per thing it did that the model and the user should know
// (a repository a command made that Loupe renamed). Call it once every
// call of the round has ended. ctx ends a wait for commands of other
// sessions that still run in the workspace (sandbox.Sweep.Run).
func (r *Round) End(ctx context.Context) []string {
	r.mu.Lock()
	sw, checks := r.sweep, r.checks
	r.sweep, r.checks = nil, nil
	r.mu.Unlock()
	var notes []string
	if sw != nil {
		notes = sw.Run(ctx)
	}
	for _, check := range checks {
		notes = append(notes, check(ctx)...)
	}
	return notes
}
