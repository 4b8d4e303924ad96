package settings

import (
	"context"
	"fmt"
	"maps"

	"github.com/loupe-dev/loupe/backend/mcp"
	"github.com/loupe-dev/loupe/backend/store"
)

// The global MCP servers are kept apart from Settings: their env and
// headers hold secrets, which never go to the window (it gets them
// redacted, mcp.Servers.Redacted) nor into an export.
const mcpKey = "mcp_servers"

// LoadMCP returns the global MCP servers, with their secrets.
func LoadMCP(ctx context.Context, st *store.Store) (mcp.Servers, error) {
	s := mcp.Servers{}
	if _, err := st.GetSetting(ctx, mcpKey, &s); err != nil {
		return nil, err
	}
	return s, nil
}

// SaveMCP validates and stores the global MCP servers. A value that is
// mcp.Hidden (the window sends back what it was shown) keeps the value
// stored under that key.
func SaveMCP(ctx context.Context, st *store.Store, servers mcp.Servers) error {
	old, err := LoadMCP(ctx, st)
	if err != nil {
		return err
	}
	servers = keepHidden(servers, old)
	if err := servers.Validate(); err != nil {
		return err
	}
	return st.PutSetting(ctx, mcpKey, servers)
}

// AddMCP adds (or replaces) the servers of a pasted configuration in the
// mcpServers shape and returns their names.
func AddMCP(ctx context.Context, st *store.Store, pasted []byte) ([]string, error) {
	add, err := mcp.Parse(pasted)
	if err != nil {
		return nil, err
	}
	cur, err := LoadMCP(ctx, st)
	if err != nil {
		return nil, err
	}
	return add.Names(), SaveMCP(ctx, st, mcp.Merge(cur, keepHidden(add, cur)))
}

// RemoveMCP removes a global server.
func RemoveMCP(ctx context.Context, st *store.Store, name string) error {
	cur, err := LoadMCP(ctx, st)
	if err != nil {
		return err
	}
	if _, ok := cur[name]; !ok {
		return fmt.Errorf("no MCP server is named %q", name)
	}
	delete(cur, name)
	return st.PutSetting(ctx, mcpKey, cur)
}

func keepHidden(servers, old mcp.Servers) mcp.Servers {
	out := mcp.Servers{}
	for name, s := range servers {
		prev := old[name]
		s.Env = keepValues(s.Env, prev.Env)
		s.Headers = keepValues(s.Headers, prev.Headers)
		out[name] = s
	}
	return out
}

func keepValues(m, prev map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := maps.Clone(m)
	for k, v := range out {
		if v == mcp.Hidden {
			if pv, ok := prev[k]; ok {
				out[k] = pv
			}
		}
	}
	return out
}
