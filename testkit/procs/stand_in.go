package procs

import (
	"os/exec"
	"testing"
)

// Live starts a process that does nothing until the test ends (then it is
// killed and reaped) and returns its pid: a stand-in for another program,
// such as a second Loupe holding a session's lease.
func Live(t testing.TB) int {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd.Process.Pid
}

// Exited returns the pid of a process that has exited and been reaped:
// one that is gone, as a crashed owner is.
func Exited(t testing.TB) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}
