package session

import (
	"context"
	"path/filepath"

	"github.com/loupe-dev/loupe/backend/mcp"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/tools"
	"github.com/loupe-dev/loupe/backend/trace"
)

// MCPLogDir is where the MCP servers' stderr is kept: beside the database,
// in Loupe's data folder.
func MCPLogDir(dbPath string) string { return filepath.Join(filepath.Dir(dbPath), "mcp-logs") }

// MCPCallTimeout bounds one MCP tool call (a var so tests can shorten it).
var MCPCallTimeout = mcp.DefaultCallTimeout

// mcpServers are the servers a run in dir uses: the global ones, and the
// workspace's own when it is trusted (a workspace server replaces a global
// one of the same name).
func (m *Manager) mcpServers(ctx context.Context, dir string) (mcp.Servers, []trace.Notice, error) {
	global, err := settings.LoadMCP(ctx, m.store)
	if err != nil {
		return nil, nil, err
	}
	local, notices, err := m.ws.MCPServers(ctx, dir)
	if err != nil {
		return nil, nil, err
	}
	return mcp.Merge(global, local), notices, nil
}

// startMCP starts the MCP servers of a run in dir and returns their pool
// (nil when there are none; Close it when the run ends), their tools and
// the notices of what could not start or be offered.
func (m *Manager) startMCP(ctx context.Context, dir string) (*mcp.Pool, []tools.Tool, []trace.Notice, error) {
	servers, notices, err := m.mcpServers(ctx, dir)
	if err != nil || len(servers) == 0 {
		return nil, nil, notices, err
	}
	pool := mcp.NewPool(servers, mcp.Options{Dir: dir, LogDir: MCPLogDir(m.store.Path()), CallTimeout: MCPCallTimeout})
	notices = append(notices, pool.Start(ctx)...)
	ts, skipped := pool.Tools()
	return pool, ts, append(notices, skipped...), nil
}

// withMCP is the run's registry: the built-in tools the session offers,
// then the MCP servers' tools.
func withMCP(builtins *tools.Registry, extra []tools.Tool) (*tools.Registry, error) {
	if len(extra) == 0 {
		return builtins, nil
	}
	return tools.NewRegistry(append(builtins.Tools(), extra...)...)
}
