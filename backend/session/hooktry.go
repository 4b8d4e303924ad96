package session

import (
	"context"
	"errors"

	"github.com/loupe-dev/loupe/backend/hooks"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/sandbox"
	"github.com/loupe-dev/loupe/backend/workspace"
)

// TryHooks shows what hooks would have decided at each call of a stored
// session, before they are switched on: each runs against every recorded
// call's input, in the session's workspace, in the sandbox with the whole
// workspace read-only. Nothing is written to the session.
func (m *Manager) TryHooks(ctx context.Context, id string, hs []hooks.Hook) ([]hooks.Tried, error) {
	if err := hooks.Validate("the hooks to try", hs); err != nil {
		return nil, err
	}
	s, err := m.store.GetSession(ctx, id)
	if err != nil {
		return nil, err
	}
	_, runner, _, err := m.ws.Assemble(ctx, s.Workspace, workspace.Run{Mode: permission.ModeAsk})
	if err != nil {
		return nil, err
	}
	confined, ok := runner.(sandbox.Confined)
	if !ok {
		return nil, errors.New("hooks can only be tried in the sandbox")
	}
	// Read-only at its root too: a tried hook leaves the workspace as it
	// is, and makes no file or folder in it. What the policy hides stays
	// hidden.
	confined.ReadOnlyWorkspace = true
	evs, err := m.store.Events(ctx, id)
	if err != nil {
		return nil, err
	}
	out := hooks.TryOn(ctx, &hooks.Set{Hooks: hs, Runner: confined, Dir: s.Workspace}, id, evs)
	if out == nil {
		out = []hooks.Tried{}
	}
	return out, nil
}
