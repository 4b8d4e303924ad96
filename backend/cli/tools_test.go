package cli_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/cli"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
)

// --tools offers the model only the tools listed; a name that is no tool
// is refused before anything is stored.
func TestRunTools(t *testing.T) {
	e := setup(t)
	e.srv.Script(ollamatest.Text("Hi."), ollamatest.Text("Hi."))
	code, out, stderr := e.run("run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db,
		"--tools", "list_dir, read_file", "hello")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s\n%s", code, stderr, out)
	}
	reqs := e.srv.Requests()
	var names []string
	for _, tl := range reqs[0].Chat.Tools {
		names = append(names, tl.Function.Name)
	}
	if !slices.Equal(names, []string{"read_file", "list_dir"}) {
		t.Errorf("tools sent %v", names)
	}
	if code, _, _ := e.run("run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "--tools", "none", "hello"); code != 0 {
		t.Fatalf("--tools none: exit %d", code)
	}
	if got := e.srv.Requests(); len(got[len(got)-1].Chat.Tools) != 0 {
		t.Errorf("--tools none sent %d tools", len(got[len(got)-1].Chat.Tools))
	}
	before := len(e.srv.Requests())
	code, _, stderr = e.run("run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "--tools", "none,read_file", "hello")
	if code != cli.ExitUsage || !strings.Contains(stderr, `"none" offers no tool`) || len(e.srv.Requests()) != before {
		t.Errorf("--tools none,read_file: exit %d, %s", code, stderr)
	}
	code, _, stderr = e.run("run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "--tools", "read_file,rm", "hello")
	if code == 0 || code == cli.ExitEnded || !strings.Contains(stderr, `no tool is named "rm"`) {
		t.Errorf("unknown tool: exit %d, %s", code, stderr)
	}
}
