package session_test

import (
	"context"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
)

// A session's MCP servers start with its first run and serve its later
// runs (the same process), start afresh when their configuration
// changes, and stop when the session is deleted; another session's stop
// when Loupe closes. No process is left behind.
func TestMCPServersLiveForTheSession(t *testing.T) {
	bin := faultServer(t)
	h := newHarness(t, permission.ModeAsk, nil)
	addServers(t, h, `{"mcpServers": {"fault": {"command": "`+bin+`"}}}`)
	ctx := context.Background()
	h.srv.Script(ollamatest.Text("one"), ollamatest.Text("two"))
	h.run("first")
	first := h.m.MCPPIDs(h.id)["fault"]
	if first == 0 || running(t, bin) != 1 {
		t.Fatalf("after the first run: pids %v, %d running", h.m.MCPPIDs(h.id), running(t, bin))
	}
	h.run("second")
	if got := h.m.MCPPIDs(h.id)["fault"]; got != first || running(t, bin) != 1 {
		t.Fatalf("the second run did not use the session's server: pid %d, was %d; %d running", got, first, running(t, bin))
	}
	// A changed configuration: the old server stops, a new one starts.
	addServers(t, h, `{"mcpServers": {"fault": {"command": "`+bin+`", "env": {"MCPFAULT_SECRET": "x"}}}}`)
	h.srv.Script(ollamatest.Text("three"))
	h.run("third")
	if got := h.m.MCPPIDs(h.id)["fault"]; got == first || got == 0 || running(t, bin) != 1 {
		t.Fatalf("after the change: pid %d (was %d), %d running", got, first, running(t, bin))
	}
	// Another session has its own server.
	other, err := h.m.Create(ctx, h.ws, testModel)
	if err != nil {
		t.Fatal(err)
	}
	h.srv.Script(ollamatest.Text("four"))
	if _, err := h.m.Run(ctx, other.ID, "hello", session.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if running(t, bin) != 2 {
		t.Fatalf("%d servers running for two sessions", running(t, bin))
	}
	if _, err := h.m.Do(ctx, session.Delete{Session: h.id}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return running(t, bin) == 1 }, "the deleted session's server to stop")
	if h.m.MCPPIDs(other.ID)["fault"] == 0 {
		t.Fatal("the other session's server stopped with the deleted one")
	}
	h.m.Close()
	waitFor(t, func() bool { return running(t, bin) == 0 }, "every server to stop when Loupe closes")
}
