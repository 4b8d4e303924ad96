package main

import (
	"github.com/loupe-dev/loupe/backend/mcp"
	"github.com/loupe-dev/loupe/backend/settings"
)

// MCPServers starts the MCP servers a run in dir would use (dir "" for the
// global ones), and lists each with its state, its tools and their schema
// cost, then stops them. Env and header values are never in it.
func (a *App) MCPServers(dir string) ([]mcp.ServerInfo, error) {
	if err := a.ready(); err != nil {
		return nil, err
	}
	return a.mgr.MCPServers(a.ctx, dir)
}

// MCPReach says what each MCP server a run in dir would use (dir "" for
// the global ones) can do on this machine, for Protections; none is
// started.
func (a *App) MCPReach(dir string) ([]mcp.Reach, error) {
	if err := a.ready(); err != nil {
		return nil, err
	}
	return a.mgr.MCPReach(a.ctx, dir)
}

// AddMCPServers adds the servers of a pasted configuration in the
// mcpServers shape to the global settings and returns their names.
func (a *App) AddMCPServers(pasted string) ([]string, error) {
	if err := a.ready(); err != nil {
		return nil, err
	}
	return settings.AddMCP(a.ctx, a.store, []byte(pasted))
}

// RemoveMCPServer removes a global MCP server.
func (a *App) RemoveMCPServer(name string) error {
	if err := a.ready(); err != nil {
		return err
	}
	return settings.RemoveMCP(a.ctx, a.store, name)
}

// MCPLog is the end of a server's log (its stderr).
func (a *App) MCPLog(name string) string { return a.mgr.MCPLog(name) }
