package session_test

import (
	"os"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/agent"

	"github.com/loupe-dev/loupe/backend/sandbox"
)

// TestMain lets this test binary serve as the sandbox helper: confined
// commands re-run the current executable, as the app re-runs loupe.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	if os.Getenv(benchFakeEnv) != "" {
		// BenchmarkRounds' fake Ollama, in a process of its own.
		serveBenchFake()
		return
	}
	os.Exit(m.Run())
}

func init() {
	// Retries wait seconds in the app; tests need not.
	agent.RetryDelays = []time.Duration{10 * time.Millisecond, 10 * time.Millisecond}
}
