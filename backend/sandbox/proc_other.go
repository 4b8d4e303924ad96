//go:build !unix

package sandbox

import (
	"os"
	"os/exec"
)

// Without process groups only the shell itself can be killed; its children
// may survive. Loupe's sandbox is built for Unix systems.
func setProcessGroup(*exec.Cmd) {}

func killGroup(p *os.Process) error {
	if p == nil {
		return nil
	}
	err := p.Kill()
	if err == os.ErrProcessDone {
		return nil
	}
	return err
}

func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	return ps.ExitCode()
}

// ownedByMe cannot tell here; the directory's mode is still checked.
func ownedByMe(os.FileInfo) bool { return true }
