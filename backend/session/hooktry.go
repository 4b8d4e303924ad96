package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/loupe-dev/loupe/backend/hooks"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/sandbox"
	"github.com/loupe-dev/loupe/backend/store"
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
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("there is no session %q to try the hooks on (it may have been deleted): pick another one", id)
	}
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
	// A run on a machine without the sandbox goes on unconfined (and asks
	// before every command); a try must not: the hooks it runs were never
	// switched on, and "read-only" is what it promises.
	if p := sandbox.Probe(); !p.Sandboxed() {
		return nil, fmt.Errorf("hooks are tried only in the sandbox, so that they cannot change the workspace, and here %s: Settings → Protections says what is missing", p.Summary())
	}
	confined.BestEffort = false
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
