package sandbox

import (
	"errors"
	"os"
	"path/filepath"
)

// StateDir is Loupe's state folder: $XDG_STATE_HOME/loupe, else
// ~/.local/state/loupe. Every Loupe process of the user notes there what
// it holds for its commands (holdsDir), so no workspace may be in it and
// no command may see it. It is not made here.
func StateDir() (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil || home == "" || !filepath.IsAbs(home) {
			return "", errors.New("sandbox: no home folder to keep Loupe's state in")
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "loupe"), nil
}
