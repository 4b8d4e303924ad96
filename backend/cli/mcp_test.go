package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
)

// loupe mcp adds a pasted configuration, lists the servers with their
// tools and schema cost (never an env value), and loupe run offers their
// tools; without a rule its calls are denied, as asks are in loupe run.
func TestMCPServersFromTheCommandLine(t *testing.T) {
	e := setup(t)
	bin := filepath.Join(t.TempDir(), "mcpfault")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/loupe-dev/loupe/testkit/cmd/mcpfault").CombinedOutput(); err != nil {
		t.Fatalf("building mcpfault: %v\n%s", err, out)
	}
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	os.WriteFile(cfg, []byte(`{"mcpServers": {"fault": {"command": "`+bin+`", "env": {"MCPFAULT_SECRET": "hunter2"}}}}`), 0o644)
	if code, out, stderr := e.run("mcp", "add", cfg, "--db", e.db); code != 0 || out != "added fault\n" {
		t.Fatalf("add: exit %d, %q %q", code, out, stderr)
	}
	code, out, stderr := e.run("mcp", "list", "--db", e.db)
	for _, want := range []string{"fault (stdio: " + bin + "): running", "fault.echo", "tokens", "MCPFAULT_SECRET (values hidden)", "fault.bad_schema                 not offered"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("list: exit %d, lacks %q: %s %s", code, want, out, stderr)
		}
	}
	if strings.Contains(out, "hunter2") {
		t.Fatalf("list printed a secret: %s", out)
	}
	e.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{ID: "c1", Name: "fault.echo", Args: `{"text":"hi"}`}}},
		ollamatest.Text("ok"),
	)
	e.run("run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "say hi")
	reqs := e.srv.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[0].Body), `"name":"fault.echo"`) || !strings.Contains(string(reqs[1].Body), "denied") {
		t.Fatalf("requests: %d", len(reqs))
	}
	if code, out, _ := e.run("mcp", "remove", "fault", "--db", e.db); code != 0 || out != "removed fault\n" {
		t.Fatalf("remove: %d %q", code, out)
	}
}
