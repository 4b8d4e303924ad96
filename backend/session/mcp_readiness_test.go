package session_test

import (
	"context"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
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
	rep, err := session.CheckModelWith(ctx, h.st, oc, session.ModelCheck{Model: testModel, Workspace: h.ws}, specs, nil)
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
	chosen, err := session.CheckModelWith(ctx, h.st, oc, session.ModelCheck{Model: testModel, Workspace: h.ws, Tools: &one}, specs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(chosen.Tools) != 2 || chosen.Tools[1].Name != "fault.echo" || len(chosen.Off) != len(specs)-1 || chosen.Off[0].Server != "fault" {
		t.Fatalf("chosen %+v off %+v", chosen.Tools, chosen.Off)
	}
	waitFor(t, func() bool { return running(t, bin) == 0 }, "the servers to stop after the check")
}

// The check counts the schemas with Ollama once it holds the model, and
// says so; before, the estimate stands in, said to be one, and the check
// loads nothing.
func TestReadinessMeasuresSchemasOfALoadedModel(t *testing.T) {
	h := newHarness(t, permission.ModeAsk, nil)
	ctx := context.Background()
	oc := ollama.New(h.srv.URL(), nil)
	check := func() readiness.Report {
		t.Helper()
		rep, err := session.CheckModelWith(ctx, h.st, oc, session.ModelCheck{Model: testModel, Workspace: h.ws}, nil, h.m.SchemaCosts())
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	schemasDetail := func(rep readiness.Report) string {
		for _, it := range rep.Items {
			if it.Check == readiness.CheckSchemas {
				return it.Detail
			}
		}
		t.Fatalf("no schemas item: %+v", rep.Items)
		return ""
	}

	cold := check()
	if cold.ToolsMeasured || cold.Tools[0].Measured || !strings.Contains(schemasDetail(cold), "take about") {
		t.Fatalf("model not loaded: measured %v, tools %+v, %q; want the estimate, said to be one", cold.ToolsMeasured, cold.Tools, schemasDetail(cold))
	}
	if n := len(h.srv.Requests()); n != 0 {
		t.Fatalf("%d chat requests to a model not loaded, want none", n)
	}

	// A session's request loads the model.
	h.srv.Respond(func(ollamatest.ChatRequest) ollamatest.Reply { return ollamatest.Reply{} })
	if _, err := oc.Chat(ctx, llm.Request{Model: testModel, Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}, Options: llm.Options{NumCtx: cold.NumCtx}}, nil); err != nil {
		t.Fatal(err)
	}
	warm := check()
	if !warm.ToolsMeasured || !strings.Contains(schemasDetail(warm), "measured by Ollama") {
		t.Fatalf("model loaded: measured %v, %q; want Ollama's count, said to be one", warm.ToolsMeasured, schemasDetail(warm))
	}
	for _, tc := range warm.Tools {
		if !tc.Measured || tc.Tokens <= 0 {
			t.Fatalf("tool %+v not measured", tc)
		}
	}
}
