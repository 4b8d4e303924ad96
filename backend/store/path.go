package store

import (
	"os"
	"path/filepath"
	"runtime"
)

// EnvDB names the environment variable that chooses the database file.
const EnvDB = "LOUPE_DB"

// ResolvePath picks the database file: the --db flag if given, else
// $LOUPE_DB, else DefaultPath().
func ResolvePath(flag string) string {
	if flag != "" {
		return flag
	}
	if env := os.Getenv(EnvDB); env != "" {
		return env
	}
	return DefaultPath()
}

// DefaultPath is where Loupe keeps its database when nothing else is said:
// $XDG_DATA_HOME/loupe/loupe.db (else ~/.local/share/loupe/loupe.db) on
// Linux and other Unix systems, and loupe/loupe.db in the user config folder
// on macOS (~/Library/Application Support) and Windows (%AppData%). With no
// home folder at all it is loupe.db in the current folder.
func DefaultPath() string {
	const dir, file = "loupe", "loupe.db"
	switch runtime.GOOS {
	case "windows", "darwin", "ios", "plan9":
		if cfg, err := os.UserConfigDir(); err == nil {
			return filepath.Join(cfg, dir, file)
		}
	default:
		// The XDG spec says to ignore a relative XDG_DATA_HOME.
		if x := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(x) {
			return filepath.Join(x, dir, file)
		}
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, ".local", "share", dir, file)
		}
	}
	return file
}
