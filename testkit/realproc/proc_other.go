//go:build !unix

package realproc

import "os/exec"

func ownProcessGroup(*exec.Cmd) {}

// killGroup kills the program; what it started may outlive it on this
// platform.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
