package session_test

import (
	"context"
	"strings"
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

// Settings → MCP servers and the readiness check read a session's running
// servers of the same configuration rather than start them a second
// time beside them (a server started afresh writes "started" in its log).
func TestSettingsAndReadinessReadTheRunningServers(t *testing.T) {
	bin := faultServer(t)
	h := newHarness(t, permission.ModeAsk, nil)
	addServers(t, h, `{"mcpServers": {"fault": {"command": "`+bin+`"}}}`)
	ctx := context.Background()
	h.srv.Script(ollamatest.Text("one"))
	h.run("first")
	starts := func() int { return strings.Count(h.m.MCPLog("fault"), "mcpfault: started") }
	before := starts()
	if before == 0 || h.m.MCPPIDs(h.id)["fault"] == 0 {
		t.Fatalf("the session's server is not running: %d starts, pids %v", before, h.m.MCPPIDs(h.id))
	}
	infos, err := h.m.MCPServers(ctx, h.ws)
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 1 || infos[0].State != "running" || len(infos[0].Tools) == 0 {
		t.Fatalf("listed %+v", infos)
	}
	specs, err := h.m.MCPSpecs(ctx, h.ws)
	if err != nil || len(specs) == 0 {
		t.Fatalf("specs %v, %v", specs, err)
	}
	if n := starts(); n != before {
		t.Fatalf("the listing and the check started the server %d more times beside the session's", n-before)
	}
	if h.m.MCPPIDs(h.id)["fault"] == 0 || running(t, bin) != 1 {
		t.Fatalf("after the listing: pids %v, %d running", h.m.MCPPIDs(h.id), running(t, bin))
	}
	// With no session's servers running, the listing starts its own.
	h.m.StopMCP()
	waitFor(t, func() bool { return running(t, bin) == 0 }, "the servers to stop")
	if _, err := h.m.MCPServers(ctx, h.ws); err != nil {
		t.Fatal(err)
	}
	if n := starts(); n != before+1 {
		t.Fatalf("with no server running the listing started %d, want 1", n-before)
	}
}
