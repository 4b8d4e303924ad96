package mcp

import (
	"context"
	"fmt"
	"github.com/loupe-dev/loupe/backend/ollama"
	"net"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStreamableHTTPServer reaches the everything server over streamable
// HTTP, with a header from the configuration.
func TestStreamableHTTPServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	srv := exec.Command("node", npmServer(t, "server-everything"), "streamableHttp")
	srv.Env = append(srv.Environ(), fmt.Sprintf("PORT=%d", port))
	srv.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-srv.Process.Pid, syscall.SIGKILL); _ = srv.Wait() })
	cfg := Servers{"web": {URL: fmt.Sprintf("http://127.0.0.1:%d/mcp", port), Headers: map[string]string{"X-Loupe-Test": "1"}}}
	var p *Pool
	dials := ollama.NewDials()
	deadline := time.Now().Add(20 * time.Second)
	for {
		p = NewPool(cfg, Options{Dir: t.TempDir(), HTTPClient: dials.HTTPClient()})
		if ns := p.Start(context.Background()); len(ns) == 0 {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("the HTTP server did not answer: %+v", ns)
		}
		p.Close()
		time.Sleep(200 * time.Millisecond)
	}
	defer p.Close()
	res := run(t, toolNamed(t, p, "web.echo"), `{"message": "over http"}`)
	if res.IsError || !strings.Contains(res.Content, "over http") {
		t.Fatalf("echo: %+v", res)
	}
	// Every connection to the server went through the counted client, so
	// the window's list of addresses Loupe talked to names it.
	counted := false
	for _, c := range dials.List() {
		if c.Port == fmt.Sprint(port) && c.Count-c.Failed >= 1 && c.Loopback {
			counted = true
		}
	}
	if !counted {
		t.Fatalf("the connections to the MCP server were not counted: %+v", dials.List())
	}
}
