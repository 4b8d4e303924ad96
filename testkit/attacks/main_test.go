//go:build linux

package attacks_test

import (
	"os"
	"testing"
)

// TestMain removes the loupe binary the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}
