package readiness_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/readiness"
)

// Many MCP tools with long schemas: the check warns past a quarter of
// num_ctx and names the server that costs the most.
func TestSchemasShareWarnsBySource(t *testing.T) {
	_, c := server(t)
	in := input(t, "coder", false)
	rep, err := readiness.Check(context.Background(), c, in)
	if err != nil {
		t.Fatal(err)
	}
	if it := item(t, rep, readiness.CheckSchemas); it.Status != readiness.OK || !strings.Contains(it.Detail, "warns beyond 25%") {
		t.Fatalf("built-ins alone: %+v", it)
	}
	desc := strings.Repeat("Fetches a page of the big catalogue and returns it. ", 40)
	for i := range 12 {
		in.Tools = append(in.Tools, llm.ToolSpec{Name: fmt.Sprintf("catalog.tool%d", i), Description: desc,
			Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)})
	}
	rep, err = readiness.Check(context.Background(), c, in)
	if err != nil {
		t.Fatal(err)
	}
	it := item(t, rep, readiness.CheckSchemas)
	if it.Status != readiness.Warn || !strings.Contains(it.Detail, "By source: catalog about ") || !strings.Contains(it.Detail, "built-in tools about ") || it.Fix == "" {
		t.Fatalf("with catalog: %+v (tools %d of %d)", it, rep.ToolTokens, rep.NumCtx)
	}
	for _, tc := range rep.Tools {
		if strings.HasPrefix(tc.Name, "catalog.") && tc.Server != "catalog" {
			t.Errorf("tool %+v", tc)
		}
	}
}

// Ollama's count decides the warning, not the estimate: a template that
// renders the built-ins' schemas to more than a quarter of num_ctx warns
// though the estimate is small, and the detail says whose count it is.
func TestSchemasShareUsesOllamasCount(t *testing.T) {
	_, c := server(t)
	in := input(t, "coder", false)
	est, err := readiness.Check(context.Background(), c, in)
	if err != nil {
		t.Fatal(err)
	}
	if it := item(t, est, readiness.CheckSchemas); it.Status != readiness.OK || !strings.Contains(it.Detail, "take about ") || est.ToolsMeasured {
		t.Fatalf("estimate: %+v", it)
	}
	in.Measured = readiness.Measured{Tools: map[string]ollama.SchemaCost{}, Total: ollama.SchemaCost{Tokens: est.NumCtx / 2, Measured: true}}
	for _, s := range in.Tools {
		in.Measured.Tools[s.Name] = ollama.SchemaCost{Tokens: est.NumCtx / 2 / len(in.Tools), Measured: true}
	}
	rep, err := readiness.Check(context.Background(), c, in)
	if err != nil {
		t.Fatal(err)
	}
	it := item(t, rep, readiness.CheckSchemas)
	want := fmt.Sprintf("The tool schemas take %d tokens, measured by Ollama, 50%% of num_ctx %d", est.NumCtx/2, est.NumCtx)
	if it.Status != readiness.Warn || !strings.HasPrefix(it.Detail, want) || !strings.Contains(it.Detail, "(measured by Ollama)") || !rep.ToolsMeasured {
		t.Fatalf("measured: %+v, want a warning starting %q", it, want)
	}
	for _, tc := range rep.Tools {
		if !tc.Measured {
			t.Fatalf("tool %+v not measured", tc)
		}
	}
}
