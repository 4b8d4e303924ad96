package realscenarios_test

import (
	"testing"

	"github.com/loupe-dev/loupe/testkit/gguf"
	"github.com/loupe-dev/loupe/testkit/realollama"
)

// createModel creates model name on srv from sc, with the tools listed by
// name only (gguf.Script.CompactTools).
//
// A scripted model's vocabulary is mostly byte tokens, so a prompt costs
// about one token per byte, and this tiny model's prompt evaluation on the
// CPU is slow per token at long positions (measured here: 8,018 prompt
// tokens took 39 s cold, on 2 shared cores). Loupe's seven built-in tools
// are about 7 KB of JSON schema: printed into the prompt, as Qwen's template
// does, every scenario would spend most of a minute in prompt evaluation.
// The request still carries the full schemas, which Ollama decodes and
// matches calls against.
func createModel(t testing.TB, srv *realollama.Server, name string, sc gguf.Script) {
	t.Helper()
	sc.CompactTools = true
	srv.CreateModel(t, name, sc)
}
