package main

import (
	"github.com/loupe-dev/loupe/backend/hooks"
	"github.com/loupe-dev/loupe/backend/session"
)

// TryHooks runs hooks as Settings holds them while they are edited (saved
// or not) against every recorded call of a stored session, and says what
// each would have decided (session.Manager.TryHooks: in the sandbox, the
// workspace read-only, the session unchanged).
func (a *App) TryHooks(sessionID string, hs []hooks.Hook) ([]hooks.Tried, error) {
	return withManager(a, func(m *session.Manager) ([]hooks.Tried, error) { return m.TryHooks(a.ctx, sessionID, hs) })
}
