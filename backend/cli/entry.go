package cli

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
)

// Start is what main does with the command line before anything else: a
// first argument that is a word (run, pull, export, help, or a word Loupe
// does not know) is a command, carried out here; anything else (nothing,
// or the window's flags such as --db and --host) opens the window, unless
// there is no display to open it on, which is said in one line. It returns
// the exit code, and window true when main should open the window.
func Start(args []string, stdout, stderr io.Writer) (code int, window bool) {
	if len(args) > 0 && (IsCommand(args) || !strings.HasPrefix(args[0], "-")) {
		return Main(args, stdout, stderr), false
	}
	if msg := NoDisplay(os.Getenv, runtime.GOOS); msg != "" {
		fmt.Fprintln(stderr, msg)
		return ExitFailed, false
	}
	return 0, true
}

// NoDisplay says why the window cannot open on a system goos whose
// environment getenv reads, and what to do instead; "" when it can. On
// Linux and the BSDs the window needs an X11 or Wayland display; without
// one, GTK would end the program with a panic.
func NoDisplay(getenv func(string) string, goos string) string {
	switch goos {
	case "windows", "darwin", "ios", "android":
		return ""
	}
	if getenv("DISPLAY") != "" || getenv("WAYLAND_DISPLAY") != "" {
		return ""
	}
	return `loupe: there is no display to open the window on (neither DISPLAY nor WAYLAND_DISPLAY is set); without a window, run a session with loupe run --model NAME "prompt" (see loupe help)`
}
