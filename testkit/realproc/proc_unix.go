//go:build unix

package realproc

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup puts the program in a process group of its own, so that
// killGroup also ends the programs it starts (Ollama's model runners).
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup SIGKILLs the program's process group: it and what it started.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		_ = cmd.Process.Kill()
	}
}
