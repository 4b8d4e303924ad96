//go:build unix

package realollama

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup puts the server in a process group of its own, so that
// killGroup also ends the model runners it starts.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup SIGKILLs the server's process group: the server and its runners.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		_ = cmd.Process.Kill()
	}
}
