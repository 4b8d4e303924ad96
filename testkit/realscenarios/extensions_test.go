package realscenarios_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/gguf"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

// The extensions on real Ollama: the scripted model calls a tool of a real
// MCP server from npm (server-everything, run with node in the sandbox),
// then hands a goal to a sub-agent, whose own requests (told apart by its
// system prompt) read a file and answer; the session's model then answers
// with what the sub-agent found. Every call came from Ollama's own parser.
func TestMCPToolAndSubAgentOnRealOllama(t *testing.T) {
	if !strings.HasPrefix(agent.SubAgentSystem, gguf.SubAgentMark) {
		t.Fatalf("the scripted model tells a sub-agent's requests apart by %q, which the sub-agent's system prompt no longer starts with", gguf.SubAgentMark)
	}
	srv := startServer(t, gguf.Script{
		// server-everything's schemas are long: the tool list names the tools.
		CompactTools: true,
		Steps: []gguf.Step{
			{Call: []gguf.Call{{Name: "everything.echo", Args: `{"message": "hello through MCP"}`}}},
			{Call: []gguf.Call{{Name: "task", Args: `{"prompt": "What does README.md say?"}`}}},
			{Answer: "The sub-agent read that the README says hello from the workspace."},
		},
		SubAgent: []gguf.Step{
			{Call: []gguf.Call{{Name: "read_file", Args: `{"path": "README.md"}`}}},
			{Answer: "README.md says: hello from the workspace."},
		},
	})
	r := newRig(t, srv)
	ctx := context.Background()
	servers, err := filepath.Abs(filepath.Join("..", "mcpservers"))
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(servers, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("server-everything is not installed: run scripts/deps.sh (it installs testkit/mcpservers): %v", err)
	}
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": "node", "args": []string{script}, "loupe": map[string]any{"read": []string{servers}}},
	}})
	if _, err := settings.AddMCP(ctx, r.st, cfg); err != nil {
		t.Fatal(err)
	}
	s, err := settings.Load(ctx, r.st)
	if err != nil {
		t.Fatal(err)
	}
	s.SubAgents = true
	s.Rules = append(s.Rules, permission.Rule{Effect: permission.EffectAllow, Tool: "everything.*"})
	if err := settings.Save(ctx, r.st, s); err != nil {
		t.Fatal(err)
	}

	end := r.run("Echo something, then ask a sub-agent what the README says.")
	if end.Reason != trace.EndAnswered || end.FinalText != "The sub-agent read that the README says hello from the workspace." {
		t.Fatalf("end = %+v", end)
	}
	evs := r.events()
	invariants.Check(t, evs)
	var own, sub []trace.ToolResult
	for _, e := range evs {
		if e.Kind != trace.KindToolResult {
			continue
		}
		res := decode[trace.ToolResult](t, e)
		if e.Agent == "" {
			own = append(own, res)
		} else {
			sub = append(sub, res)
		}
	}
	if len(own) != 2 || own[0].Name != "everything.echo" || own[0].IsError || !strings.Contains(own[0].Content, "hello through MCP") {
		t.Fatalf("the session's results: %+v", own)
	}
	if own[1].Name != "task" || own[1].IsError || !strings.Contains(own[1].Content, "README.md says: hello from the workspace.") {
		t.Fatalf("the task call's result: %+v", own[1])
	}
	if len(sub) != 1 || sub[0].Name != "read_file" || !strings.Contains(sub[0].Content, "hello from the workspace") {
		t.Fatalf("the sub-agent's results: %+v", sub)
	}
	// The sub-agent's requests went to real Ollama with its own system
	// prompt and read-only tools; the session's offered the MCP tool.
	for _, e := range evs {
		if e.Kind != trace.KindModelRequest {
			continue
		}
		mr := decode[trace.ModelRequest](t, e)
		names := strings.Join(mr.ToolNames, ",")
		if e.Agent != "" {
			if !strings.HasPrefix(mr.System, gguf.SubAgentMark) || strings.Contains(names, "task") || strings.Contains(names, "everything.") {
				t.Fatalf("a sub-agent request: system %.40q, tools %s", mr.System, names)
			}
		} else if !strings.Contains(names, "everything.echo") || !strings.Contains(names, "task") {
			t.Fatalf("a session request offers %s", names)
		}
	}
}
