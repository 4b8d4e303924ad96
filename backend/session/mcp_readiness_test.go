package session_test

import (
	"context"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/readiness"
	"github.com/loupe-dev/loupe/backend/session"
)

// The readiness check counts the MCP tools' schemas beside the built-ins,
// each under its server, and stops the servers it started to list them.
func TestReadinessCountsMCPSchemas(t *testing.T) {
	bin := faultServer(t)
	h := newHarness(t, permission.ModeAsk, nil)
	addServers(t, h, `{"mcpServers": {"fault": {"command": "`+bin+`"}}}`)
	ctx := context.Background()
	specs, err := h.m.MCPSpecs(ctx, h.ws)
	if err != nil {
		t.Fatal(err)
	}
	oc := ollama.New(h.srv.URL(), nil)
	without, err := session.CheckModel(ctx, h.st, oc, session.ModelCheck{Model: testModel, Workspace: h.ws})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := session.CheckModelWith(ctx, h.st, oc, session.ModelCheck{Model: testModel, Workspace: h.ws}, specs)
	if err != nil {
		t.Fatal(err)
	}
	var echo *readiness.ToolCost
	for i, tc := range rep.Tools {
		if tc.Name == "fault.echo" {
			echo = &rep.Tools[i]
		}
	}
	if echo == nil || echo.Server != "fault" || echo.Tokens < 10 || rep.ToolTokens <= without.ToolTokens {
		t.Fatalf("tools %+v (%d tokens, %d without MCP)", rep.Tools, rep.ToolTokens, without.ToolTokens)
	}
	found := false
	for _, it := range rep.Items {
		found = found || (it.Check == readiness.CheckSchemas && strings.Contains(it.Detail, "num_ctx"))
	}
	if !found {
		t.Fatalf("no schemas item: %+v", rep.Items)
	}
	// A choice that names one MCP tool counts it alone; the others are
	// costed as switched off, for the picker.
	one := []string{"read_file", "fault.echo"}
	chosen, err := session.CheckModelWith(ctx, h.st, oc, session.ModelCheck{Model: testModel, Workspace: h.ws, Tools: &one}, specs)
	if err != nil {
		t.Fatal(err)
	}
	if len(chosen.Tools) != 2 || chosen.Tools[1].Name != "fault.echo" || len(chosen.Off) != len(specs)-1 || chosen.Off[0].Server != "fault" {
		t.Fatalf("chosen %+v off %+v", chosen.Tools, chosen.Off)
	}
	waitFor(t, func() bool { return running(t, bin) == 0 }, "the servers to stop after the check")
}
