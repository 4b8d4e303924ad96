package cli_test

import (
	"fmt"
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

// A prompt Ollama refuses in a run of several rounds: with compaction on
// (the default) loupe run compacts the older rounds, sends it again and
// the model answers; with --compact off it stops with does_not_fit.
func TestRunCompactsWhenThePromptDoesNotFit(t *testing.T) {
	for _, on := range []bool{true, false} {
		t.Run(fmt.Sprintf("compact=%v", on), func(t *testing.T) {
			e := setup(t)
			// A tokenizer of three bytes a token: Loupe's estimate
			// undercounts, so only Ollama's refusal tells.
			e.srv.AddModel(ollamatest.ModelSpec{Name: "scripted", ContextLength: 4096, BytesPerToken: 3})
			var b strings.Builder
			for b.Len() < 1500 {
				b.WriteString("a line of a note, one of many\n")
			}
			for i := 1; i <= 5; i++ {
				e.write(t, fmt.Sprintf("%d.txt", i), b.String())
			}
			round := 0
			e.srv.Respond(func(req ollamatest.ChatRequest) ollamatest.Reply {
				if len(req.Tools) == 0 {
					return ollamatest.Text("The user asked about the notes; some were read.")
				}
				if round++; round > 5 {
					return ollamatest.Text("The notes are lines.")
				}
				return ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: fmt.Sprintf(`{"path":"%d.txt"}`, round)}}}
			})
			flag := "on"
			if !on {
				flag = "off"
			}
			code, out, stderr := e.run("run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "--auto", "--compact", flag, "What do the notes say?")
			if !on {
				if code != cli.ExitEnded || !strings.Contains(out, "run ended: does_not_fit") || strings.Contains(out, "compaction (") {
					t.Fatalf("off: exit %d; stderr %s\n%s", code, stderr, out)
				}
				return
			}
			if code != cli.ExitAnswered {
				t.Fatalf("exit %d; stderr %s\n%s", code, stderr, out)
			}
			for _, want := range []string{"compacting the older turns and sending it again", "request to scripted for a summary", "compaction (does_not_fit)", "The notes are lines."} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
		})
	}
}
