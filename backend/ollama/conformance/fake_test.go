package conformance_test

import (
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/conformance"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
)

// TestFake runs the suite against the fake server, scripting the answer
// each scenario needs.
func TestFake(t *testing.T) {
	srv := ollamatest.New(t)
	srv.AddModel(ollamatest.ModelSpec{Name: "tiny:latest", Family: "qwen3", ContextLength: 40960,
		Capabilities: []string{"completion", "tools", "thinking"}})
	srv.AddModel(ollamatest.ModelSpec{Name: "other:1b", Family: "llama", ContextLength: 8192,
		ModifiedAt: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)})
	// Every pull fails as without a network.
	srv.SetOffline(true)
	conformance.Run(t, conformance.Setup{
		Client:          ollama.New(srv.URL(), nil),
		Model:           "tiny",
		ToolCalls:       true,
		UnreachablePull: "qwen3:8b",
		Before: func(t *testing.T, scenario string) {
			switch scenario {
			case conformance.ScenarioText:
				srv.Script(ollamatest.Reply{Chunks: []ollamatest.Chunk{
					{Thinking: "Five words."}, {Content: "Hello "}, {Content: "there, "}, {Content: "how are you?"},
				}})
			case conformance.ScenarioCancel:
				// No delay between deltas: the whole answer may already be
				// buffered when the cancel happens.
				srv.Script(ollamatest.Text("1\n", "2\n", "3\n", "4\n", "5\n", "6\n"))
			case conformance.ScenarioToolCall:
				srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "get_time", Args: `{"zone":"UTC"}`}}})
			case conformance.ScenarioTooLong:
				// The first request is refused before a reply is taken;
				// the second (truncate unset) is cut and answered.
				if reqs := srv.Requests(); len(reqs) > 0 && reqs[len(reqs)-1].TooLong {
					srv.Script(ollamatest.Text("Dull."))
				}
			default:
				t.Fatalf("no script for scenario %q", scenario)
			}
		},
	})
	if n := srv.Pending(); n != 0 {
		t.Errorf("%d scripted replies were never requested", n)
	}
}
