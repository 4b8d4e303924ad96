package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/cli"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
)

// A prompt over the model's context (4096 here, from /api/show) is refused,
// not cut: loupe run stops with that reason, what needed room, and a
// non-zero exit.
func TestRunStopsWhenThePromptDoesNotFit(t *testing.T) {
	e := setup(t)
	var b strings.Builder
	for b.Len() < 20_000 {
		b.WriteString("a line of a long log file, one of many\n")
	}
	e.write(t, "big.log", b.String())
	e.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"big.log"}`}}},
		ollamatest.Text("never sent"),
	)
	code, out, stderr := e.run("run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "--auto", "What is in big.log?")
	if code != cli.ExitEnded {
		t.Fatalf("exit %d, want %d; stderr %s\n%s", code, cli.ExitEnded, stderr, out)
	}
	for _, want := range []string{"run ended: does_not_fit", "num_ctx is 4096", "Biggest parts: latest observations ~", "the result of read_file"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if reqs := e.srv.Requests(); len(reqs) != 2 || !reqs[1].TooLong {
		t.Fatalf("%d requests; the second refused: %v", len(reqs), len(reqs) == 2 && reqs[1].TooLong)
	}
}

func (e env) write(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(e.ws, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
