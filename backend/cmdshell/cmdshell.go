// Package cmdshell names the shell the agent's commands run in and the
// language it reads. The sandbox starts that shell and the permission
// classifier parses commands in that language: both read Commands, so that
// what the classifier sees is what runs.
//
// Bash, where the system has it: models write bash ([[ … ]], $'…', <(…),
// arrays, brace expansion), and on Debian and Ubuntu /bin/sh is dash, which
// reads some of that differently. Without bash, /bin/sh, read as POSIX sh;
// which shell /bin/sh is (dash, busybox ash, bash) is not known then.
package cmdshell

import (
	"os"
	"sync"
)

// Dialect is a shell language the classifier can parse.
type Dialect uint8

const (
	// Bash is GNU bash's language.
	Bash Dialect = iota
	// POSIX is the POSIX shell language (dash, ash, and bash as sh
	// accept it).
	POSIX
)

func (d Dialect) String() string {
	if d == POSIX {
		return "sh"
	}
	return "bash"
}

// Other is the dialect d is compared with: what another shell running the
// same text would read.
func (d Dialect) Other() Dialect {
	if d == POSIX {
		return Bash
	}
	return POSIX
}

// Shell is a shell commands run in, as `Path -c SCRIPT`.
type Shell struct {
	Path    string
	Dialect Dialect
	// Known says Path is the shell Dialect names. /bin/sh is not: it is
	// whichever shell the system links there, so what differs between
	// the dialects cannot be ruled out.
	Known bool
}

// bashPaths are where systems put bash, in the directories the sandbox
// shows commands read-only.
var bashPaths = []string{"/bin/bash", "/usr/bin/bash"}

var commands = sync.OnceValue(func() Shell {
	for _, p := range bashPaths {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return Shell{Path: p, Dialect: Bash, Known: true}
		}
	}
	return Shell{Path: "/bin/sh", Dialect: POSIX}
})

// Commands is the shell the agent's commands run in: bash where the system
// has it, /bin/sh otherwise. It is found once per process.
func Commands() Shell { return commands() }
