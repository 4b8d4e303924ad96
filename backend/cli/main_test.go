package cli_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/loupe-dev/loupe/backend/cli"
	"github.com/loupe-dev/loupe/backend/sandbox"
)

// asLoupe, set to 1 in a child's environment, makes this test binary run as
// the loupe command line (os.Args[1:] are its arguments), the way main.go
// does for a command: tests that need a real process, to send it signals,
// start this binary so (see startLoupe), or the binary that $LOUPE_BIN
// names.
const asLoupe = "LOUPE_CLI_TEST_AS_LOUPE"

// windowWouldOpen and windowCode are what this test binary, run as loupe,
// says and exits with where the real loupe would open its window.
const (
	windowWouldOpen = "the window would open here"
	windowCode      = 97
)

// TestMain lets this test binary serve as the sandbox helper: confined
// commands re-run the current executable, as the app re-runs loupe. It
// also serves as loupe itself (asLoupe), and as a process that only
// recovers a database, as a window does when it opens (asRecoverer).
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	if os.Getenv(asLoupe) == "1" {
		// As main.go does; this binary has no window to open, so it says
		// that it would have opened one (see windowWouldOpen).
		code, window := cli.Start(os.Args[1:], os.Stdout, os.Stderr)
		if window {
			fmt.Fprintln(os.Stderr, windowWouldOpen)
			os.Exit(windowCode)
		}
		os.Exit(code)
	}
	if db := os.Getenv(asRecoverer); db != "" {
		os.Exit(recoverer(db, os.Getenv(recoverGo)))
	}
	os.Exit(m.Run())
}
