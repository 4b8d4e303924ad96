//go:build linux

package attacks_test

import (
	"os"
	"testing"

	"github.com/loupe-dev/loupe/testkit/hostipc"
)

// ipcProbeArg makes this test binary the program a command runs against
// the user's kernel objects (hostipc.Attack).
const ipcProbeArg = "__loupe-ipc-probe"

// TestMain removes the loupe binary the tests built.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == ipcProbeArg {
		os.Exit(hostipc.Attack(os.Args[2:]))
	}
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}
