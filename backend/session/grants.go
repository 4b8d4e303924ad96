package session

import (
	"context"

	"github.com/loupe-dev/loupe/backend/permission"
)

func (m *Manager) sessionGrants(id string) []permission.Grant {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]permission.Grant(nil), m.grants[id]...)
}

// keepGrant stores an answer the user gave "for this session" or "for this
// workspace".
func (m *Manager) keepGrant(id, dir string, g permission.Grant) {
	switch g.Scope {
	case permission.ScopeSession:
		m.mu.Lock()
		m.grants[id] = append(m.grants[id], g)
		m.mu.Unlock()
	case permission.ScopeWorkspace:
		_ = m.ws.Remember(context.Background(), dir, g)
	}
}
