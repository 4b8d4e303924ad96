package workspace

import (
	"context"
	"fmt"

	"github.com/loupe-dev/loupe/backend/mcp"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/trace"
)

// MCPServers are the MCP servers dir's .loupe/settings.json adds
// ("mcpServers"), when the user trusts the file as it is now: each is a
// program that would run, so an untrusted file's are not started (a
// notice says so).
func (w *Workspaces) MCPServers(ctx context.Context, dir string) (mcp.Servers, []trace.Notice, error) {
	ws, err := permission.LoadWorkspaceSettings(dir)
	if err != nil || len(ws.MCPServers) == 0 {
		// An unreadable file is the notice Assemble gives.
		return nil, nil, nil
	}
	st, err := w.state(ctx, dir)
	if err != nil {
		return nil, nil, err
	}
	if st.TrustedDigest == "" || st.TrustedDigest != ws.Digest {
		return nil, []trace.Notice{{Code: "workspace_mcp_untrusted",
			Message: "this workspace's .loupe/settings.json adds MCP servers; they are not started until you trust the workspace (Settings → Workspace)"}}, nil
	}
	servers, err := mcp.Parse(ws.MCPServers)
	if err != nil {
		return nil, []trace.Notice{{Code: "workspace_mcp", Message: fmt.Sprintf("the MCP servers of .loupe/settings.json are not started: %v", err)}}, nil
	}
	return servers, nil, nil
}
