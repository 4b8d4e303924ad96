package session_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/sandbox"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/settings"
)

// Stdio MCP servers run in the sandbox commands run in, with the
// workspace read-only and no network unless their entry grants it. Each
// test needs that sandbox; without it (a kernel without user namespaces
// or Landlock) it says which protection is missing.

func needsSandbox(t *testing.T) {
	t.Helper()
	if p := sandbox.Probe(); !p.Sandboxed() {
		t.Skipf("the sandbox MCP servers run in is not available here: %s", p.Summary())
	}
}

// mcpServersDir is testkit/mcpservers, where scripts/deps.sh installs the
// npm servers the tests run (with node, offline).
func mcpServersDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "testkit", "mcpservers"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js")); err != nil {
		t.Fatalf("server-filesystem is not installed: run scripts/deps.sh (it installs testkit/mcpservers): %v", err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node is needed to run the MCP servers: %v", err)
	}
	return dir
}

func allowTools(pattern string) func(*settings.Settings) {
	return func(s *settings.Settings) {
		s.Rules = append(s.Rules, permission.Rule{Effect: permission.EffectAllow, Tool: pattern})
	}
}

// fsConfig is the filesystem server over the workspace, granted loupe.
func fsConfig(t *testing.T, ws, loupe string) string {
	dir := mcpServersDir(t)
	script := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js")
	args, _ := json.Marshal([]string{script, ws})
	read, _ := json.Marshal(dir)
	return `{"mcpServers": {"fs": {"command": "node", "args": ` + string(args) + `, "loupe": {"read": [` + string(read) + `]` + loupe + `}}}}`
}

// The real filesystem server, allowed the whole workspace by its own
// arguments, still cannot write there: the sandbox mounts the workspace
// read-only for it. A folder its entry grants it is writable. (Run
// unconfined, the first write succeeds.)
func TestMCPServerWritesOnlyGrantedPaths(t *testing.T) {
	needsSandbox(t)
	h := newHarness(t, permission.ModeAsk, allowTools("fs.*"))
	writeIn(t, h.ws, "out/.keep", "")
	addServers(t, h, fsConfig(t, h.ws, ""))
	denied := filepath.Join(h.ws, "notes.txt")
	h.srv.Script(
		calls(call("c1", "fs.write_file", `{"path": "`+denied+`", "content": "overwritten by the server"}`)),
		ollamatest.Text("done"),
	)
	h.run("write it")
	rs := results(t, h.events())
	if len(rs) != 1 || !rs[0].IsError {
		t.Fatalf("a write to the workspace passed: %+v", rs)
	}
	if b, _ := os.ReadFile(denied); string(b) != "alpha\nbeta\n" {
		t.Fatalf("the server changed notes.txt: %q", b)
	}

	// Granted out/: the server starts afresh with the new entry.
	addServers(t, h, fsConfig(t, h.ws, `, "paths": ["out"]`))
	granted := filepath.Join(h.ws, "out", "result.txt")
	h.srv.Script(
		calls(call("c2", "fs.write_file", `{"path": "`+granted+`", "content": "written by the server"}`),
			call("c3", "fs.write_file", `{"path": "`+denied+`", "content": "overwritten by the server"}`)),
		ollamatest.Text("done"),
	)
	h.run("write again")
	rs = results(t, h.events())[1:]
	if len(rs) != 2 || rs[0].IsError || !rs[1].IsError {
		t.Fatalf("granted out/: results %+v", rs)
	}
	if b, err := os.ReadFile(granted); err != nil || string(b) != "written by the server" {
		t.Fatalf("the granted write did not land: %q, %v", b, err)
	}
	if b, _ := os.ReadFile(denied); string(b) != "alpha\nbeta\n" {
		t.Fatalf("the server changed notes.txt: %q", b)
	}
}

// probeServer is a tiny MCP server (node, no dependencies): dial connects
// to a TCP port on 127.0.0.1, spawn starts a detached process (its own
// session) that runs until killed, with marker in its arguments.
const probeServer = `
const net = require('net');
const { spawn } = require('child_process');
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
const text = (id, t) => send({jsonrpc: "2.0", id, result: {content: [{type: "text", text: t}]}});
require('readline').createInterface({input: process.stdin}).on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  if (m.method === 'initialize') {
    send({jsonrpc: "2.0", id: m.id, result: {protocolVersion: m.params.protocolVersion, capabilities: {tools: {}}, serverInfo: {name: "probe", version: "1"}}});
  } else if (m.method === 'tools/list') {
    const obj = (props, req) => ({type: "object", properties: props, required: req});
    send({jsonrpc: "2.0", id: m.id, result: {tools: [
      {name: "dial", description: "Connect to a TCP port.", inputSchema: obj({port: {type: "number"}}, ["port"])},
      {name: "spawn", description: "Start a detached process.", inputSchema: obj({marker: {type: "string"}}, ["marker"])},
    ]}});
  } else if (m.method === 'tools/call' && m.params.name === 'dial') {
    const s = net.connect(m.params.arguments.port, '127.0.0.1');
    const done = (t) => { s.destroy(); text(m.id, t); };
    s.setTimeout(3000, () => done('failed: timeout'));
    s.on('connect', () => done('connected'));
    s.on('error', (e) => done('failed: ' + e.code));
  } else if (m.method === 'tools/call' && m.params.name === 'spawn') {
    const c = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', m.params.arguments.marker], {detached: true, stdio: 'ignore'});
    c.unref();
    text(m.id, 'started');
  } else {
    send({jsonrpc: "2.0", id: m.id, error: {code: -32601, message: "no such method"}});
  }
});
`

func probeConfig(t *testing.T, loupe string) string {
	mcpServersDir(t) // node
	dir := t.TempDir()
	script := filepath.Join(dir, "probe.cjs")
	if err := os.WriteFile(script, []byte(probeServer), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _ := json.Marshal(script)
	return `{"mcpServers": {"probe": {"command": "node", "args": [` + string(s) + `], "loupe": {"read": [` + string(s) + `]` + loupe + `}}}}`
}

// A server reaches no network, not even a listener on the machine's own
// loopback, unless its entry grants it. (Run unconfined, it connects.)
func TestMCPServerHasNoNetworkUnlessGranted(t *testing.T) {
	needsSandbox(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan struct{}, 4)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
			accepted <- struct{}{}
		}
	}()
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	h := newHarness(t, permission.ModeAsk, allowTools("probe.*"))
	addServers(t, h, probeConfig(t, ""))
	h.srv.Script(calls(call("c1", "probe.dial", `{"port": `+port+`}`)), ollamatest.Text("done"))
	h.run("dial")
	rs := results(t, h.events())
	if len(rs) != 1 || !strings.HasPrefix(rs[0].Content, "failed") {
		t.Fatalf("the server reached the network it was not granted: %+v", rs)
	}
	select {
	case <-accepted:
		t.Fatal("the listener on the loopback got a connection from the server")
	default:
	}

	addServers(t, h, probeConfig(t, `, "network": true`))
	h.srv.Script(calls(call("c2", "probe.dial", `{"port": `+port+`}`)), ollamatest.Text("done"))
	h.run("dial again")
	rs = results(t, h.events())[1:]
	if len(rs) != 1 || rs[0].Content != "connected" {
		t.Fatalf("granted the network, the server did not connect: %+v", rs)
	}
}

// A session's server runs as long as the session, yet an undo need not
// wait for it: Loupe changes the workspace at once while it runs. Ending
// the session kills it and what it started, detached or not.
func TestMCPServerNeitherBlocksUndoNorOutlivesItsSession(t *testing.T) {
	needsSandbox(t)
	h := newHarness(t, permission.ModeAsk, allowTools("probe.*"))
	addServers(t, h, probeConfig(t, ""))
	marker := "loupe-test-detached-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	h.srv.Script(calls(call("c1", "probe.spawn", `{"marker": "`+marker+`"}`)), ollamatest.Text("done"))
	h.run("spawn")
	if rs := results(t, h.events()); len(rs) != 1 || rs[0].Content != "started" {
		t.Fatalf("results %+v", rs)
	}
	pid := h.m.MCPPIDs(h.id)["probe"]
	if pid == 0 || !alive(pid) {
		t.Fatalf("the session's server is not running: pids %v", h.m.MCPPIDs(h.id))
	}
	waitFor(t, func() bool { return len(withMarker(t, marker)) == 1 }, "the detached process to run")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	release, err := sandbox.Quiet(ctx, h.ws)
	if err != nil {
		t.Fatalf("the running server keeps Loupe from changing the workspace: %v", err)
	}
	release()
	if d := time.Since(start); d > time.Second {
		t.Fatalf("Quiet waited %v for the server", d)
	}

	if _, err := h.m.Do(context.Background(), session.Delete{Session: h.id}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return !alive(pid) }, "the server to be gone once its session is")
	waitFor(t, func() bool { return len(withMarker(t, marker)) == 0 }, "the detached process it started to be gone")
}

// A server that cannot be confined never runs, and the reason says so
// (not merely that the server exited).
func TestMCPServerThatCannotBeConfinedSaysWhy(t *testing.T) {
	needsSandbox(t)
	h := newHarness(t, permission.ModeAsk, nil)
	addServers(t, h, `{"mcpServers": {"probe": {"command": "node", "loupe": {"paths": ["no-such-folder"]}}}}`)
	infos, err := h.m.MCPServers(context.Background(), h.ws)
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 1 || !strings.Contains(infos[0].Error, "no-such-folder") || !strings.Contains(infos[0].Error, "sandbox") {
		t.Fatalf("infos %+v", infos)
	}
}

// alive says whether pid is a process that has not exited.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || len(b) <= i+2 || b[i+2] != 'Z'
}

// withMarker lists the live processes whose arguments hold marker.
func withMarker(t *testing.T, marker string) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(b, []byte(marker)) && alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// Protections says what each server was granted, none started to say it.
func TestMCPReachSaysWhatEachServerWasGranted(t *testing.T) {
	needsSandbox(t)
	h := newHarness(t, permission.ModeAsk, nil)
	addServers(t, h, `{"mcpServers": {
		"fs": {"command": "node", "loupe": {"network": true, "paths": ["out"]}},
		"plain": {"command": "node"},
		"remote": {"url": "https://mcp.example.com/mcp"}}}`)
	reach, err := h.m.MCPReach(context.Background(), h.ws)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"fs":     "sandboxed as commands are; reads the workspace, writes out; reaches the network",
		"plain":  "sandboxed as commands are; reads the workspace, writes nothing of the workspace; no network",
		"remote": "runs at https://mcp.example.com/mcp, not on this machine",
	}
	if len(reach) != 3 {
		t.Fatalf("reach %+v", reach)
	}
	for _, r := range reach {
		if !strings.HasPrefix(r.Detail, want[r.Name]) || r.Confined != (r.Name != "remote") {
			t.Errorf("%s: %+v, want %q", r.Name, r, want[r.Name])
		}
	}
}
