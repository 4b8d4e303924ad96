package session

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/loupe-dev/loupe/backend/mcp"
	"github.com/loupe-dev/loupe/backend/tools"
)

// Which tools a session offers its model. Each tool's schema goes with
// every request, so a small model with a small context can be offered
// fewer; a call of a tool not offered is an unknown tool, as for any name
// the model makes up.

// offeredTools checks a choice of tools and returns it in the registry's
// order without repeats, the MCP tools (server.tool, or server.* for all
// of a server's) after the built-ins in the order given; nil (every tool)
// stays nil. An MCP name is not checked against the servers, which may
// not be running: a name no server offers offers nothing.
func offeredTools(choice *[]string) (*[]string, error) {
	if choice == nil {
		return nil, nil
	}
	// The task tool is offered when Settings turns sub-agents on.
	known := append(tools.BuiltinNames(), tools.TaskName)
	var unknown, remote []string
	for _, n := range *choice {
		switch {
		case slices.Contains(known, n):
		case mcpName(n):
			if !slices.Contains(remote, n) {
				remote = append(remote, n)
			}
		default:
			unknown = append(unknown, fmt.Sprintf("%q", n))
		}
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("no tool is named %s: choose among %s, or an MCP server's tool as server.tool", strings.Join(unknown, ", "), strings.Join(known, ", "))
	}
	out := []string{}
	for _, n := range known {
		if slices.Contains(*choice, n) {
			out = append(out, n)
		}
	}
	out = append(out, remote...)
	return &out, nil
}

// mcpName is a name server.tool or server.*.
func mcpName(n string) bool {
	server, tool, ok := strings.Cut(n, mcp.Sep)
	return ok && mcp.ValidName(server) && tool != "" && !strings.ContainsAny(tool, " \t\n")
}

// mcpChosen says whether a choice offers the MCP tool name: every MCP
// tool when the choice names none (a choice of built-ins alone), else
// those it names, one by one or by server.*.
func mcpChosen(choice *[]string, name string) bool {
	if choice == nil {
		return true
	}
	named := false
	server, _, _ := strings.Cut(name, mcp.Sep)
	for _, n := range *choice {
		if !mcpName(n) {
			continue
		}
		named = true
		if n == name || n == server+mcp.Sep+"*" {
			return true
		}
	}
	return !named
}

// setTools chooses the tools the session offers its model from its next
// run on (nil: every built-in tool). A run going on keeps what it offers.
func (m *Manager) setTools(ctx context.Context, id string, choice *[]string) (Summary, error) {
	names, err := offeredTools(choice)
	if err != nil {
		return Summary{}, err
	}
	s, err := m.store.SetSessionTools(ctx, id, names)
	if err != nil {
		return Summary{}, err
	}
	return m.summary(ctx, s)
}

// offering narrows a session's registry to the tools it offers.
func offering(reg *tools.Registry, choice *[]string) *tools.Registry {
	if choice == nil {
		return reg
	}
	return reg.Subset(*choice...)
}

// offeredMCP narrows the MCP servers' tools to those a choice offers.
func offeredMCP(ts []tools.Tool, choice *[]string) []tools.Tool {
	return slices.DeleteFunc(slices.Clone(ts), func(t tools.Tool) bool { return !mcpChosen(choice, t.Spec().Name) })
}
