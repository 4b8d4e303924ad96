package readiness_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/llm"
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
