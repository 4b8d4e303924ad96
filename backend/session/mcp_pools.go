package session

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/loupe-dev/loupe/backend/mcp"
	"github.com/loupe-dev/loupe/backend/sandbox"
	"github.com/loupe-dev/loupe/backend/tools"
	"github.com/loupe-dev/loupe/backend/trace"
)

// A session's MCP servers live as long as the session is open in Loupe:
// they start when its first run starts, its later runs use them (a
// crashed server starts again at its next call), and they stop when the
// session is deleted or Loupe closes. A change of the servers'
// configuration (or the workspace's trust) starts them afresh at the
// next run.

type sessionPool struct {
	key  string
	pool *mcp.Pool
}

type mcpPools struct {
	mu sync.Mutex
	by map[string]*sessionPool
}

// sessionMCP returns the session's pool for a run in dir, its stdio
// servers confined by the run's runner (see mcpOptions), started when it
// has none or its servers' configuration (or what the runner exposes)
// changed; the notices are those of a start (none when the pool was
// running).
func (m *Manager) sessionMCP(ctx context.Context, id, dir string, runner sandbox.Runner) (*mcp.Pool, []tools.Tool, []trace.Notice, error) {
	servers, notices, err := m.mcpServers(ctx, dir)
	if err != nil {
		return nil, nil, notices, err
	}
	key := poolKey(dir, servers)
	if c, ok := runner.(sandbox.Confined); ok {
		e, _ := json.Marshal(c.Expose)
		key += "\x00" + string(e)
		// And the folder judged: servers started in a folder the user
		// has since replaced (deleted and cloned again) would serve
		// the one that is gone.
		if c.Checked != nil {
			key += "\x00" + sandbox.FolderID(c.Checked)
		}
	}
	m.pools.mu.Lock()
	defer m.pools.mu.Unlock()
	if m.pools.by == nil {
		m.pools.by = map[string]*sessionPool{}
	}
	if sp := m.pools.by[id]; sp != nil {
		if sp.key == key {
			ts, skipped := sp.pool.Tools()
			return sp.pool, ts, skipped, nil
		}
		sp.pool.Close()
		delete(m.pools.by, id)
	}
	if len(servers) == 0 {
		return nil, nil, notices, nil
	}
	pool := mcp.NewPool(servers, m.mcpOptions(dir, runner))
	notices = append(notices, pool.Start(ctx)...)
	m.pools.by[id] = &sessionPool{key: key, pool: pool}
	ts, skipped := pool.Tools()
	return pool, ts, append(notices, skipped...), nil
}

// poolKey names the servers of a run in dir as a pool was started with
// them (sessionMCP adds what its runner exposes).
func poolKey(dir string, servers mcp.Servers) string {
	b, _ := json.Marshal(servers)
	return dir + "\x00" + string(b)
}

// runningPool is a session's running pool of exactly these servers for a
// run in dir, or nil: what Settings and the readiness check read rather
// than start the same servers a second time beside it.
func (m *Manager) runningPool(dir string, servers mcp.Servers) *mcp.Pool {
	key := poolKey(dir, servers)
	m.pools.mu.Lock()
	defer m.pools.mu.Unlock()
	for _, id := range slices.Sorted(maps.Keys(m.pools.by)) {
		sp := m.pools.by[id]
		if sp.key == key || strings.HasPrefix(sp.key, key+"\x00") {
			return sp.pool
		}
	}
	return nil
}

// closeMCP stops a session's servers (id "" : every session's).
func (m *Manager) closeMCP(id string) {
	m.pools.mu.Lock()
	var closing []*mcp.Pool
	for sid, sp := range m.pools.by {
		if id == "" || sid == id {
			closing = append(closing, sp.pool)
			delete(m.pools.by, sid)
		}
	}
	m.pools.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range closing {
		wg.Go(p.Close)
	}
	wg.Wait()
}

// MCPPIDs are the process ids of a session's running stdio servers.
func (m *Manager) MCPPIDs(id string) map[string]int {
	m.pools.mu.Lock()
	defer m.pools.mu.Unlock()
	if sp := m.pools.by[id]; sp != nil {
		return sp.pool.PIDs()
	}
	return nil
}

// StopMCP stops every session's MCP servers: for a process that ends
// without Close (loupe run).
func (m *Manager) StopMCP() { m.closeMCP("") }
