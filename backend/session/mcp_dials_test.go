package session_test

import (
	"context"
	"fmt"
	"net"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
)

// A URL MCP server is reached through the Ollama client's counted
// transport, so the window's list of every address Loupe talked to
// (App.Connections) names it, even when it is no MCP server at all.
func TestMCPServersOverHTTPAreCountedConnections(t *testing.T) {
	h := newHarness(t, permission.ModeAsk, nil)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := l.Addr().(*net.TCPAddr).Port
	addServers(t, h, fmt.Sprintf(`{"mcpServers": {"web": {"url": "http://127.0.0.1:%d/mcp"}}}`, port))
	oc := ollama.New(h.srv.URL(), nil)
	m := session.NewManager(h.st, oc, nil, nil)
	t.Cleanup(m.StopAll)
	infos, err := m.MCPServers(context.Background(), h.ws)
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 1 || infos[0].Error == "" {
		t.Fatalf("a server that hangs up is listed as %+v, want its failure", infos)
	}
	for _, c := range oc.Connections() {
		if c.Port == fmt.Sprint(port) && c.Count >= 1 && c.Loopback {
			return
		}
	}
	t.Fatalf("the connection to the MCP server at port %d was not counted: %+v", port, oc.Connections())
}
