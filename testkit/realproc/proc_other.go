//go:build !unix

package realollama

import "os/exec"

func ownProcessGroup(*exec.Cmd) {}

// killGroup kills the server; its runners may outlive it on this platform.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
