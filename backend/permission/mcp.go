package permission

import (
	"fmt"
	"strings"
)

// An MCP server's tool is named "server.tool" (no built-in tool has a dot
// in its name). Loupe cannot see what such a tool does, so its calls ask
// in every mode unless a rule or the tool's setting says otherwise; a rule
// names one tool ("everything.echo") or every tool of a server
// ("everything.*").

// MCPTool splits an MCP tool's name into its server's and its own; ok is
// false for a built-in tool.
func MCPTool(name string) (server, tool string, ok bool) {
	server, tool, ok = strings.Cut(name, ".")
	return server, tool, ok && server != "" && tool != ""
}

// toolMatches reports whether a rule's tool (a name, or "server.*")
// names tool.
func toolMatches(pattern, tool string) bool {
	if pattern == tool {
		return true
	}
	server, ok := strings.CutSuffix(pattern, ".*")
	if !ok {
		return false
	}
	s, _, isMCP := MCPTool(tool)
	return isMCP && s == server
}

// mcpAsk is the ask of an MCP tool's call that no rule decided.
func mcpAsk(tool string) Decision {
	server, name, _ := MCPTool(tool)
	return Decision{Verdict: Ask, Reasons: []string{fmt.Sprintf(
		"%s is tool %s of MCP server %s: Loupe cannot see what it does, so it asks (a rule \"allow %s.*\" runs the server's tools without asking)",
		tool, name, server, server)}}
}
