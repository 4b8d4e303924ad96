package store

import (
	"path/filepath"
	"runtime"
	"testing"
)

func TestResolvePath(t *testing.T) {
	t.Setenv(EnvDB, "")
	if got, want := ResolvePath(""), DefaultPath(); got != want {
		t.Errorf("no flag, no env: %q, want %q", got, want)
	}
	t.Setenv(EnvDB, "/from/env.db")
	if got := ResolvePath(""); got != "/from/env.db" {
		t.Errorf("env: %q", got)
	}
	if got := ResolvePath("/from/flag.db"); got != "/from/flag.db" {
		t.Errorf("flag beats env: %q", got)
	}
}

func TestDefaultPathXDG(t *testing.T) {
	switch runtime.GOOS {
	case "windows", "darwin", "ios", "plan9":
		t.Skip("XDG_DATA_HOME applies only on Linux and other Unix systems")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	data := filepath.Join(t.TempDir(), "data")
	for _, c := range []struct{ xdg, want string }{
		{data, filepath.Join(data, "loupe", "loupe.db")},
		{"", filepath.Join(home, ".local", "share", "loupe", "loupe.db")},
		{"relative/dir", filepath.Join(home, ".local", "share", "loupe", "loupe.db")}, // ignored, per the XDG spec
	} {
		t.Setenv("XDG_DATA_HOME", c.xdg)
		if got := DefaultPath(); got != c.want {
			t.Errorf("XDG_DATA_HOME=%q: %q, want %q", c.xdg, got, c.want)
		}
	}
}
