package session

import (
	"context"
	"fmt"
	"log"
	"sync"

	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/workspace"
)

// grants are the answers the user gave "for this session" (kept in
// memory, per session, until Loupe closes or the session is deleted) or
// "always for this workspace" (saved with the workspace).
type grants struct {
	ws *workspace.Workspaces

	mu        sync.Mutex
	bySession map[string][]permission.Grant
}

func newGrants(ws *workspace.Workspaces) *grants {
	return &grants{ws: ws, bySession: map[string][]permission.Grant{}}
}

// of are the answers given for the session.
func (g *grants) of(id string) []permission.Grant {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]permission.Grant(nil), g.bySession[id]...)
}

// keep stores an answer given for the session or for the workspace dir;
// an answer for one call only is not kept. An answer for the workspace
// that cannot be saved is kept for the session instead, and the error
// says so (the run records it as a notice, where the person who answered
// sees it; the process log has why).
func (g *grants) keep(id, dir string, gr permission.Grant) error {
	if gr.Scope != permission.ScopeSession && gr.Scope != permission.ScopeWorkspace {
		return nil
	}
	var err error
	if gr.Scope == permission.ScopeWorkspace {
		if err = g.ws.Remember(context.Background(), dir, gr); err == nil {
			return nil
		}
		log.Printf("loupe: session %s: an answer for the workspace %s could not be saved: %v", id, dir, err)
	}
	g.mu.Lock()
	g.bySession[id] = append(g.bySession[id], gr)
	g.mu.Unlock()
	if err != nil {
		return fmt.Errorf("saving it for every session in this workspace failed (%v); it holds for this session only, until Loupe closes", err)
	}
	return nil
}

// forget drops the answers of a session that is gone.
func (g *grants) forget(id string) {
	g.mu.Lock()
	delete(g.bySession, id)
	g.mu.Unlock()
}
