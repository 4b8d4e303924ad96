package session

import (
	"context"
	"fmt"
	"log"

	"github.com/loupe-dev/loupe/backend/permission"
)

func (m *Manager) sessionGrants(id string) []permission.Grant {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]permission.Grant(nil), m.grants[id]...)
}

// keepGrant stores an answer the user gave "for this session" or "for this
// workspace". An answer for the workspace that cannot be saved is kept
// for the session instead, and the error says so (the run records it as a
// notice, where the person who answered sees it).
func (m *Manager) keepGrant(id, dir string, g permission.Grant) error {
	if g.Scope != permission.ScopeSession && g.Scope != permission.ScopeWorkspace {
		return nil
	}
	var err error
	if g.Scope == permission.ScopeWorkspace {
		if err = m.ws.Remember(context.Background(), dir, g); err == nil {
			return nil
		}
		log.Printf("loupe: session %s: an answer for the workspace %s could not be saved: %v", id, dir, err)
	}
	m.mu.Lock()
	m.grants[id] = append(m.grants[id], g)
	m.mu.Unlock()
	if err != nil {
		return fmt.Errorf("saving it for every session in this workspace failed (%v); it holds for this session only, until Loupe closes", err)
	}
	return nil
}
