package session_test

import (
	"context"
	"slices"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
)

// A session's tool choice reaches the MCP tools by their server.tool
// names: a choice of built-ins alone keeps every MCP tool; one that names
// MCP tools offers those alone (server.* all of a server's), and the next
// request's tool list shows the change.
func TestSessionChoosesMCPTools(t *testing.T) {
	bin := faultServer(t)
	h := newHarness(t, permission.ModeAsk, nil)
	addServers(t, h, `{"mcpServers": {"fault": {"command": "`+bin+`"}}}`)
	ctx := context.Background()
	set := func(choice ...string) {
		t.Helper()
		if _, err := h.m.Do(ctx, session.SetTools{Session: h.id, Tools: &choice}); err != nil {
			t.Fatal(err)
		}
	}
	sent := func() []string {
		t.Helper()
		h.srv.Script(ollamatest.Text("ok"))
		h.run("hello")
		reqs := h.srv.Requests()
		return toolNamesSent(t, reqs[len(reqs)-1])
	}
	set("read_file")
	if got := sent(); !slices.Contains(got, "read_file") || slices.Contains(got, "list_dir") || !slices.Contains(got, "fault.echo") || !slices.Contains(got, "fault.hang") {
		t.Fatalf("built-ins chosen: sent %v", got)
	}
	set("read_file", "fault.echo")
	if got := sent(); !slices.Equal(got, []string{"read_file", "fault.echo"}) {
		t.Fatalf("one MCP tool chosen: sent %v", got)
	}
	set("fault.*")
	if got := sent(); slices.Contains(got, "read_file") || !slices.Contains(got, "fault.echo") || !slices.Contains(got, "fault.crash") {
		t.Fatalf("a whole server chosen: sent %v", got)
	}
	if _, err := h.m.Do(ctx, session.SetTools{Session: h.id, Tools: &[]string{"fault echo"}}); err == nil {
		t.Fatal("a name that is neither a built-in nor server.tool was taken")
	}
	h.m.Close()
	waitFor(t, func() bool { return running(t, bin) == 0 }, "the MCP server to stop")
}
