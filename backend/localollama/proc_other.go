//go:build !unix

package localollama

import "os/exec"

func ownProcessGroup(*exec.Cmd) {}

// terminate kills the server: there is no gentler signal on this platform.
func terminate(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

// killGroup kills the server; its runners may outlive it on this platform.
func killGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
