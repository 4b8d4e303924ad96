package session_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/trace"
)

var (
	faultOnce sync.Once
	faultPath string
	faultErr  error
)

// faultServer builds the in-repo MCP server that misbehaves on request
// (testkit/cmd/mcpfault).
func faultServer(t testing.TB) string {
	t.Helper()
	faultOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mcpfault")
		if err != nil {
			faultErr = err
			return
		}
		faultPath = filepath.Join(dir, "mcpfault")
		out, err := exec.Command("go", "build", "-o", faultPath, "github.com/loupe-dev/loupe/testkit/cmd/mcpfault").CombinedOutput()
		if err != nil {
			faultErr = err
			t.Logf("%s", out)
		}
	})
	if faultErr != nil {
		t.Fatalf("building mcpfault: %v", faultErr)
	}
	return faultPath
}

// running counts the processes running the program at path.
func running(t testing.TB, path string) int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err == nil && exe == path {
			n++
		}
	}
	return n
}

func addServers(t testing.TB, h *harness, pasted string) {
	t.Helper()
	if _, err := settings.AddMCP(context.Background(), h.st, []byte(pasted)); err != nil {
		t.Fatal(err)
	}
}

// The model calls an MCP tool: the policy asks (naming the server and the
// tool), the user allows, the server answers and the result goes back to
// the model; when the run ends the server is stopped.
func TestMCPToolInARun(t *testing.T) {
	bin := faultServer(t)
	h := newHarness(t, permission.ModeAsk, nil)
	addServers(t, h, `{"mcpServers": {"fault": {"command": "`+bin+`", "env": {"MCPFAULT_SECRET": "hunter2"}}}}`)
	h.srv.Script(
		calls(call("c1", "fault.echo", `{"text":"hello through MCP"}`)),
		ollamatest.Text("done"),
	)
	var asked []trace.Permission
	go func() {
		for a := range h.asks {
			asked = append(asked, a)
			if err := h.answer(a.CallID, true); err != nil {
				t.Error(err)
			}
		}
	}()
	end := h.run("say hello")
	if end.Reason != trace.EndAnswered {
		t.Fatalf("run ended %+v", end)
	}
	if len(asked) != 1 || asked[0].Tool != "fault.echo" || !strings.Contains(strings.Join(asked[0].Reasons, " "), "tool echo of MCP server fault") {
		t.Fatalf("asked %+v", asked)
	}
	rs := results(t, h.events())
	if len(rs) != 1 || rs[0].IsError || rs[0].Content != "hello through MCP" {
		t.Fatalf("results %+v", rs)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if !strings.Contains(string(reqs[0].Body), `"name":"fault.echo"`) || !strings.Contains(string(reqs[0].Body), `"name":"read_file"`) {
		t.Fatalf("the first request does not offer the MCP tool beside the built-ins: %.400s", reqs[0].Body)
	}
	if !strings.Contains(string(reqs[1].Body), "hello through MCP") {
		t.Fatalf("the result did not go back to the model: %.400s", reqs[1].Body)
	}
	// No secret in the log.
	for _, e := range h.events() {
		if strings.Contains(string(e.Payload), "hunter2") {
			t.Fatalf("the server's secret is in event %d: %s", e.Seq, e.Payload)
		}
	}
	h.m.Close()
	waitFor(t, func() bool { return running(t, bin) == 0 }, "the MCP server to stop when Loupe closes")
}

// A server that dies mid-call: the call is answered with an error the
// model reads, a notice holds the log's tail, nothing is left running.
func TestMCPServerDiesMidRun(t *testing.T) {
	bin := faultServer(t)
	h := newHarness(t, permission.ModeAsk, func(s *settings.Settings) {
		s.Rules = append(s.Rules, permission.Rule{Effect: permission.EffectAllow, Tool: "fault.*"})
	})
	addServers(t, h, `{"mcpServers": {"fault": {"command": "`+bin+`"}}}`)
	h.srv.Script(
		calls(call("c1", "fault.crash", `{}`)),
		calls(call("c2", "fault.echo", `{"text":"it is back"}`)),
		ollamatest.Text("done"),
	)
	h.run("crash it")
	evs := h.events()
	rs := results(t, evs)
	if len(rs) != 2 || !rs[0].IsError || !strings.Contains(rs[0].Content, "stopped while running fault.crash") {
		t.Fatalf("results %+v", rs)
	}
	if rs[1].IsError || rs[1].Content != "it is back" {
		t.Fatalf("the server was not started again: %+v", rs[1])
	}
	if notices(evs, "mcp_server_crashed") != 1 {
		t.Fatal("no crash notice")
	}
	for _, e := range evs {
		if e.Kind == trace.KindNotice {
			if p, _ := trace.Decode[trace.Notice](e); p.Code == "mcp_server_crashed" && !strings.Contains(p.Message, "mcpfault: crashing now") {
				t.Fatalf("the notice lacks the log's tail: %s", p.Message)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(session.MCPLogDir(h.st.Path()), "fault.log")); err != nil {
		t.Fatalf("no log: %v", err)
	}
	h.m.Close()
	waitFor(t, func() bool { return running(t, bin) == 0 }, "no MCP server left running")
}

// Settings → MCP servers: each server's state, its tools and their schema
// cost, the env's keys and never its values.
func TestMCPServersListed(t *testing.T) {
	bin := faultServer(t)
	h := newHarness(t, permission.ModeAsk, nil)
	addServers(t, h, `{"mcpServers": {"fault": {"command": "`+bin+`", "env": {"MCPFAULT_SECRET": "hunter2"}}, "off": {"command": "x", "disabled": true}}}`)
	infos, err := h.m.MCPServers(context.Background(), h.ws)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(infos)
	if strings.Contains(string(b), "hunter2") || !strings.Contains(string(b), "MCPFAULT_SECRET") {
		t.Fatalf("infos: %s", b)
	}
	if len(infos) != 2 || infos[0].Name != "fault" || infos[0].State != "running" || infos[1].State != "disabled" {
		t.Fatalf("infos: %s", b)
	}
	sum := 0
	var echo, bad bool
	for _, ti := range infos[0].Tools {
		sum += ti.Tokens
		switch ti.Name {
		case "fault.echo":
			echo = ti.Offered && ti.Tokens > 10
		case "fault.bad_schema":
			bad = !ti.Offered && ti.Why != ""
		}
	}
	if !echo || !bad || sum != infos[0].Tokens || sum == 0 {
		t.Fatalf("tools: %s", b)
	}
	// No model is loaded: the costs are the estimate, said to be one.
	if infos[0].Measured || infos[0].Tools[0].Measured || len(h.srv.Requests()) != 0 {
		t.Fatalf("measured with no model loaded (%d chat requests): %s", len(h.srv.Requests()), b)
	}
	if !strings.Contains(h.m.MCPLog("fault"), "mcpfault: started") || h.m.MCPLog("../x") != "" {
		t.Fatal("the log is not shown, or a path outside the log folder is read")
	}
	waitFor(t, func() bool { return running(t, bin) == 0 }, "the servers to stop after the listing")

	// Once Ollama holds a model, it counts the schemas.
	h.srv.Respond(func(ollamatest.ChatRequest) ollamatest.Reply { return ollamatest.Reply{} })
	oc := ollama.New(h.srv.URL(), nil)
	if _, err := oc.Chat(context.Background(), llm.Request{Model: testModel, Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}, Options: llm.Options{NumCtx: 8192}}, nil); err != nil {
		t.Fatal(err)
	}
	infos, err = h.m.MCPServers(context.Background(), h.ws)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(infos)
	if !infos[0].Measured || infos[0].Tokens <= 0 {
		t.Fatalf("not measured with %s loaded: %s", testModel, b)
	}
	for _, ti := range infos[0].Tools {
		if ti.Offered && !ti.Measured {
			t.Fatalf("tool %s not measured: %s", ti.Name, b)
		}
	}
	waitFor(t, func() bool { return running(t, bin) == 0 }, "the servers to stop after the listing")
}
