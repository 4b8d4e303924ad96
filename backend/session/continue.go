package session

import (
	"context"
	"fmt"

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/trace"
)

// This file is a run no one steps: loupe run --continue taking up a run
// where it waits at a pause (a fork at its fork point).

// unattended is the Pauser of a run no one steps: it stops at no
// checkpoint, and the one pause a restored run waits at first is answered
// with Continue.
type unattended struct{ cmds chan agent.Command }

func newUnattended() unattended {
	u := unattended{cmds: make(chan agent.Command, 1)}
	u.cmds <- agent.Command{Action: trace.ActionContinue}
	return u
}

func (unattended) Stops(agent.Checkpoint) (bool, bool) { return false, false }
func (unattended) Waiting(int, int64)                  {}
func (u unattended) Commands() <-chan agent.Command    { return u.cmds }

// GoOn takes up the run of session id where it waits at a pause (a fork
// waits at its fork point) and runs it to its end with no one stepping
// it: what loupe run --continue does first. A session whose run is not
// waiting at a pause is refused with where it stands.
func (m *Manager) GoOn(ctx context.Context, id string, opt RunOptions) (trace.RunEnd, error) {
	s, err := m.store.GetSession(ctx, id)
	if err != nil {
		return trace.RunEnd{}, err
	}
	if s.OpenRun == 0 {
		return trace.RunEnd{}, fmt.Errorf("“%s” has no run waiting at a pause: send it a message to go on", s.Title)
	}
	if err := m.store.HeldElsewhere(ctx, id); err != nil {
		return trace.RunEnd{}, err
	}
	evs, err := m.store.RunEvents(ctx, id, s.OpenRun)
	if err != nil {
		return trace.RunEnd{}, err
	}
	if trace.StateOf(evs).Paused == nil {
		return trace.RunEnd{}, fmt.Errorf("the run of “%s” is open but waits at no pause (a Loupe that is gone left it): open it in the window, which closes it, then send a message", s.Title)
	}
	opt.Unattended = true
	p, err := m.setUp(ctx, id, "", true, opt)
	if err != nil {
		return trace.RunEnd{}, err
	}
	return p.run()
}
