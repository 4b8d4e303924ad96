package cli_test

import (
	"os"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/cli"
)

// A word Loupe does not know is said to be one, with the usage, and exits
// 2; it never opens the window.
func TestUnknownCommandSaysSoWithTheUsage(t *testing.T) {
	code, out, stderr := runLoupe(t, []string{"DISPLAY=:99"}, "frobnicate", "--model", "x")
	if code != cli.ExitUsage {
		t.Errorf("exit %d, want %d", code, cli.ExitUsage)
	}
	if !strings.HasPrefix(stderr, `loupe: unknown command "frobnicate"`) || !strings.Contains(stderr, "loupe pull NAME") || !strings.Contains(stderr, "loupe run --model NAME") {
		t.Errorf("stderr:\n%s", stderr)
	}
	if out != "" || strings.Contains(stderr, windowWouldOpen) {
		t.Errorf("an unknown command went on: stdout %q, stderr %q", out, stderr)
	}
}

// Without a display (no DISPLAY, no WAYLAND_DISPLAY), opening the window
// says so in one line and how to work without one, and exits non-zero
// instead of GTK's panic; the window's flags do not change that.
func TestNoDisplaySaysHowToRunWithoutAWindow(t *testing.T) {
	for _, args := range [][]string{nil, {"--db", t.TempDir() + "/l.db"}, {"--host", "localhost:11434"}} {
		code, out, stderr := runLoupe(t, nil, args...)
		if code != cli.ExitFailed {
			t.Errorf("loupe %v: exit %d, want %d", args, code, cli.ExitFailed)
		}
		line := strings.TrimSpace(stderr)
		if strings.Contains(line, "\n") || !strings.Contains(line, "no display") || !strings.Contains(line, "loupe run --model NAME") {
			t.Errorf("loupe %v: stderr is not the one line:\n%s", args, stderr)
		}
		if strings.Contains(stderr, "panic") || out != "" {
			t.Errorf("loupe %v: stdout %q, stderr %q", args, out, stderr)
		}
	}
}

// With a display the window opens; this test binary only says it would
// (the built loupe would open it for real, so this runs without
// $LOUPE_BIN only).
func TestWithADisplayTheWindowOpens(t *testing.T) {
	if os.Getenv("LOUPE_BIN") != "" {
		t.Skip("the built loupe would open a real window; this checks the test binary's choice only")
	}
	for _, env := range []string{"DISPLAY=:99", "WAYLAND_DISPLAY=wayland-0"} {
		code, _, stderr := runLoupe(t, []string{env}, "--db", t.TempDir()+"/l.db")
		if code != windowCode || !strings.Contains(stderr, windowWouldOpen) {
			t.Errorf("%s: exit %d: %s", env, code, stderr)
		}
	}
}

func TestNoDisplayElsewhere(t *testing.T) {
	none := func(string) string { return "" }
	for _, goos := range []string{"windows", "darwin"} {
		if msg := cli.NoDisplay(none, goos); msg != "" {
			t.Errorf("%s needs no DISPLAY, got %q", goos, msg)
		}
	}
	if cli.NoDisplay(none, "freebsd") == "" {
		t.Error("FreeBSD without a display opens a window")
	}
}
