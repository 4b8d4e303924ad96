package main

import (
	"os"
	"testing"

	"github.com/loupe-dev/loupe/backend/sandbox"
)

// TestMain lets this test binary serve as the sandbox helper, as the app
// serves as its own (main.go): hooks tried from the window run in it.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	os.Exit(m.Run())
}
