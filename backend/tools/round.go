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

// End does what the round's calls left for after all of them, and returns
// one sentence per thing it did that the model and the user should know
// (a repository a command made that Loupe renamed). Call it once every
// call of the round has ended. ctx ends a wait for commands of other
// sessions that still run in the workspace (sandbox.Sweep.Run).
func (r *Round) End(ctx context.Context) []string {
	r.mu.Lock()
	sw := r.sweep
	r.sweep = nil
	r.mu.Unlock()
	if sw == nil {
		return nil
	}
	return sw.Run(ctx)
}
