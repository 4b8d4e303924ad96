package session

import (
	"context"
	"errors"
)

var errNotYet = errors.New("step-through is not available yet")

// SetStepping turns step-through on or off for a session.
func (m *Manager) SetStepping(ctx context.Context, id string, on bool) error { return errNotYet }

// SetBreakpoints sets where a session pauses when not stepping.
func (m *Manager) SetBreakpoints(ctx context.Context, id string, bp Breakpoints) error {
	return errNotYet
}

// Resume ends a pause with an action (step or continue).
func (m *Manager) Resume(id, action string) error { return errNotYet }

// EditRequest changes the pending request at a before_request pause.
func (m *Manager) EditRequest(ctx context.Context, id string, e RequestEdit) error { return errNotYet }

// EditArgs changes the pending call's arguments at a before_tool pause.
func (m *Manager) EditArgs(ctx context.Context, id, args string) error { return errNotYet }

// SkipCall answers the pending call with the user's observation.
func (m *Manager) SkipCall(ctx context.Context, id, observation string) error { return errNotYet }

// EditResult changes the result at an after_result pause.
func (m *Manager) EditResult(ctx context.Context, id, content string) error { return errNotYet }
