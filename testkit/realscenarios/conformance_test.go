package realscenarios_test

import (
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/conformance"
	"github.com/loupe-dev/loupe/testkit/gguf"
)

// conformanceScripts are the answers the suite's chat scenarios need, as
// scripted models. Each asks with one user message, so step 0 answers.
var conformanceScripts = map[string]gguf.Script{
	// Thinking then content, as the fake streams it.
	conformance.ScenarioText: {Thinking: true, Steps: []gguf.Step{
		{Think: "Five words.", Answer: "Hello there, how are you?"},
	}},
	// Goes on until cancelled (or num_predict).
	conformance.ScenarioCancel: {Thinking: true, Steps: []gguf.Step{
		{Answer: "Counting:", Repeat: " and on"},
	}},
	// Refused (truncate false), or cut and answered.
	conformance.ScenarioTooLong: {Steps: []gguf.Step{{Answer: "Dull."}}},
	conformance.ScenarioToolCall: {Thinking: true, Steps: []gguf.Step{
		{Call: []gguf.Call{{Name: "get_time", Args: `{"zone": "UTC"}`}}},
	}},
}

// TestConformance runs backend/ollama's conformance suite — the one
// backend/ollama/conformance/fake_test.go runs over the fake — over the real
// server. Before each chat scenario the model is created again from that
// scenario's script, so the real server answers what the fake is scripted
// to.
func TestConformance(t *testing.T) {
	srv := startServer(t, conformanceScripts[conformance.ScenarioText])
	conformance.Run(t, conformance.Setup{
		Client:    ollama.New(srv.URL(), nil),
		Model:     modelName,
		ToolCalls: true,
		// A registry on a loopback port where nothing listens: the
		// manifest's request fails to connect, as without a network.
		UnreachablePull: "127.0.0.1:1/library/nothing",
		Before: func(t *testing.T, scenario string) {
			sc, ok := conformanceScripts[scenario]
			if !ok {
				t.Fatalf("no script for scenario %q", scenario)
			}
			createModel(t, srv, modelName, sc)
		},
	})
}
