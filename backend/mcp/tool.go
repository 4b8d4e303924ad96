package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/tools"
)

// Tool is one tool of an MCP server, offered to the model as
// "server.tool". It never counts as read-only: Loupe cannot see what a
// server does, so its calls ask unless a rule says otherwise (a server's
// "read-only" hint is its own word, not Loupe's).
type Tool struct {
	s      *server
	remote string
	spec   llm.ToolSpec
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

func newTool(s *server, t *sdk.Tool) (*Tool, error) {
	schema, err := json.Marshal(t.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("its schema cannot be read: %w", err)
	}
	if string(schema) == "null" || string(schema) == "{}" {
		schema = []byte(`{"type":"object"}`)
	}
	desc := strings.TrimSpace(t.Description)
	if desc == "" {
		desc = t.Title
	}
	name := s.name + Sep + unsafeName.ReplaceAllString(t.Name, "_")
	return &Tool{s: s, remote: t.Name, spec: llm.ToolSpec{Name: name, Description: desc, Parameters: schema}}, nil
}

func (t *Tool) Spec() llm.ToolSpec { return t.spec }
func (t *Tool) ReadOnly() bool     { return false }

// Server is the name of the tool's server; Remote its own name there.
func (t *Tool) Server() string { return t.s.name }
func (t *Tool) Remote() string { return t.remote }

func (t *Tool) Run(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	return t.s.call(ctx, t.remote, args)
}
