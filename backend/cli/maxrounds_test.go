package cli_test

import (
	"context"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/cli"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/store"
)

// --max-rounds saves the round cap, and the run stops there.
func TestRunMaxRounds(t *testing.T) {
	e := setup(t)
	// Paths in turn, so that the run is not stopped as repeating itself.
	paths := []string{`{"path":"."}`, `{"path":"./"}`}
	n := 0
	e.srv.Respond(func(ollamatest.ChatRequest) ollamatest.Reply {
		n++
		return ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "list_dir", Args: paths[n%2]}}}
	})
	code, out, stderr := e.run("run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db,
		"--max-rounds", "3", "list forever")
	if code != cli.ExitEnded || !strings.Contains(out, "stopped after 3 rounds") {
		t.Fatalf("exit %d, stderr %s\n%s", code, stderr, out)
	}
	if n := len(e.srv.Requests()); n != 3 {
		t.Fatalf("%d model requests, want 3", n)
	}
	st, err := store.Open(e.db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got, err := settings.Load(context.Background(), st)
	if err != nil || got.MaxRounds != 3 {
		t.Fatalf("saved round cap %d (%v), want 3", got.MaxRounds, err)
	}

	if code, _, stderr := e.run("run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db,
		"--max-rounds", "1001", "hi"); code != cli.ExitUsage || !strings.Contains(stderr, "round cap") {
		t.Fatalf("--max-rounds 1001: exit %d, %s", code, stderr)
	}
}
