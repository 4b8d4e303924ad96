package workspace_test

import (
	"os"
	"testing"

	"github.com/loupe-dev/loupe/backend/sandbox"
)

// TestMain lets this test binary serve as the sandbox helper: confined
// commands re-run the current executable, as the app re-runs loupe.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	os.Exit(m.Run())
}
