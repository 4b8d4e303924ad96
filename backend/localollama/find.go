// Package localollama is the Ollama server on this machine as Loupe sees
// it without a terminal: whether the `ollama` program is installed and
// which version, how to get it when it is not, and `ollama serve` started
// (and, when Loupe exits, stopped) for a user who has no terminal open. It
// stops only a server it started itself.
package localollama

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sync"
	"time"
)

// usualPlaces are where Ollama's installers put the program, for a Loupe
// started from a desktop menu, whose PATH often lacks them.
func usualPlaces() []string {
	home, _ := os.UserHomeDir()
	switch runtime.GOOS {
	case "windows":
		local := os.Getenv("LOCALAPPDATA")
		if local == "" && home != "" {
			local = filepath.Join(home, "AppData", "Local")
		}
		return []string{filepath.Join(local, "Programs", "Ollama", "ollama.exe")}
	case "darwin":
		return []string{
			"/Applications/Ollama.app/Contents/Resources/ollama",
			"/usr/local/bin/ollama",
			"/opt/homebrew/bin/ollama",
			filepath.Join(home, "Applications", "Ollama.app", "Contents", "Resources", "ollama"),
		}
	}
	return []string{
		"/usr/local/bin/ollama", // install.sh
		"/usr/bin/ollama",       // distribution packages
		"/snap/bin/ollama",
		"/home/linuxbrew/.linuxbrew/bin/ollama",
		filepath.Join(home, ".local", "bin", "ollama"),
		filepath.Join(home, "bin", "ollama"),
	}
}

// Finder says where the `ollama` program is: on PATH first, then in the
// places its installers use.
type Finder struct {
	// Path is the PATH to search ("" reads $PATH).
	Path string
	// Places are checked after PATH; nil means the installers' usual
	// places on this system.
	Places []string
}

// Find returns the program's path, or "" when it is not installed.
func (f Finder) Find() string {
	path := f.Path
	if path == "" {
		path = os.Getenv("PATH")
	}
	name := "ollama"
	if runtime.GOOS == "windows" {
		name = "ollama.exe"
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		if p := filepath.Join(dir, name); isProgram(p) {
			return p
		}
	}
	places := f.Places
	if places == nil {
		places = usualPlaces()
	}
	for _, p := range places {
		if isProgram(p) {
			return p
		}
	}
	return ""
}

func isProgram(p string) bool {
	fi, err := os.Stat(p)
	if err != nil || fi.IsDir() {
		return false
	}
	return runtime.GOOS == "windows" || fi.Mode()&0o111 != 0
}

// InstallHint says in one sentence how to get Ollama on this system, and
// the page to get it from.
func InstallHint() (message, url string) {
	const page = "https://ollama.com/download"
	if runtime.GOOS == "linux" {
		return "Ollama is not installed. Install it with `curl -fsSL https://ollama.com/install.sh | sh` or from " + page + ", then start it here.", page
	}
	return "Ollama is not installed. Download it from " + page + ", install it, then start it here.", page
}

// versionWords is how `ollama --version` names its own version: "ollama
// version is 0.17.4" when a server answers, "client version is 0.17.4"
// (a warning) when none does or its version differs.
var versionWords = regexp.MustCompile(`(?:client version is|ollama version is) v?([0-9][0-9A-Za-z.\-+]*)`)

// versions remembers each program's version, by path, size and time, so
// that a status check every few seconds does not run it again.
var versions sync.Map // versionKey → string

type versionKey struct {
	path string
	size int64
	mod  time.Time
}

// Version is the version of the ollama program at bin, "" when it cannot
// be told. It runs `bin --version` pointed at a port where nothing
// listens, so that the program reports its own version, not a server's.
func Version(bin string) string {
	fi, err := os.Stat(bin)
	if err != nil {
		return ""
	}
	key := versionKey{bin, fi.Size(), fi.ModTime()}
	if v, ok := versions.Load(key); ok {
		return v.(string)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Env = append(withoutOllamaHost(os.Environ()), "OLLAMA_HOST=127.0.0.1:1")
	// A program that hangs may leave children holding its output open.
	cmd.WaitDelay = time.Second
	out, _ := cmd.CombinedOutput() // it exits 0 or not depending on the version
	m := versionWords.FindAllSubmatch(out, -1)
	v := ""
	if len(m) > 0 {
		v = string(bytes.TrimSpace(m[len(m)-1][1]))
	}
	versions.Store(key, v)
	return v
}

func withoutOllamaHost(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if len(kv) >= len("OLLAMA_HOST=") && kv[:len("OLLAMA_HOST=")] == "OLLAMA_HOST=" {
			continue
		}
		out = append(out, kv)
	}
	return out
}
