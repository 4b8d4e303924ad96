//go:build unix

package localollama

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup puts the server in a process group of its own, so that
// killGroup also ends the model runners it starts, and a Ctrl-C in the
// terminal that started Loupe does not reach it before Loupe stops it.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// terminate asks the server to stop as Ctrl-C would: Ollama stops its model
// runners and exits.
func terminate(cmd *exec.Cmd) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
}

// killGroup SIGKILLs the server's process group: the server and its runners.
func killGroup(cmd *exec.Cmd) {
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		_ = cmd.Process.Kill()
	}
}
