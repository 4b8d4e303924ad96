package sandbox

import (
	"github.com/loupe-dev/loupe/backend/place"
	"path/filepath"
	"strings"
)

// passThrough names the variables a command inherits; everything else in
// the app's environment is dropped.
var passThrough = map[string]bool{
	"PATH": true, "HOME": true, "LANG": true, "TMPDIR": true, "USER": true, "SHELL": true,
}

// fixed are set for every command: no pagers or editors waiting for a
// terminal that is not there, no credential prompts, and tools behave as in
// CI (no spinners, no interactive questions).
var fixed = []string{
	"TERM=dumb",
	"PAGER=cat",
	"GIT_PAGER=cat",
	"EDITOR=false",
	"VISUAL=false",
	"GIT_TERMINAL_PROMPT=0",
	"CI=1",
}

const defaultPath = "/usr/local/bin:/usr/bin:/bin"

// Environ returns the environment for a command, given the app's own
// (os.Environ()): the allow-listed variables that do not look like secrets,
// then the fixed settings.
func Environ(base []string) []string {
	env := make([]string, 0, len(passThrough)+len(fixed)+4)
	hasPath := false
	for _, kv := range base {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || !allowed(name) || secretLike(name) {
			continue
		}
		if name == "PATH" {
			hasPath = true
		}
		env = append(env, kv)
	}
	if !hasPath {
		env = append(env, "PATH="+defaultPath)
	}
	return append(env, fixed...)
}

func allowed(name string) bool {
	return passThrough[name] || strings.HasPrefix(name, "LC_")
}

// secretLike reports names that must never reach a command even if the
// allow-list would pass them (say, LC_API_KEY).
func secretLike(name string) bool {
	u := strings.ToUpper(name)
	switch {
	case strings.HasSuffix(u, "_TOKEN"), strings.HasSuffix(u, "_KEY"),
		strings.Contains(u, "SECRET"), strings.Contains(u, "PASSWORD"),
		strings.Contains(u, "CREDENTIAL"),
		u == "SSH_AUTH_SOCK", u == "DBUS_SESSION_BUS_ADDRESS":
		return true
	}
	return false
}

// commandEnv is the environment of a confined command: Environ, with PATH
// cleaned (see cleanPath), and home, temp and cache directories of its own.
// Caches of the common toolchains go to cache, which lasts between the
// workspace's commands.
func commandEnv(base []string, ws, home, tmp, cache string) []string {
	env := Environ(base)
	out := env[:0]
	for _, kv := range env {
		name, val, _ := strings.Cut(kv, "=")
		switch name {
		case "TMPDIR", "HOME":
			continue
		case "PATH":
			kv = "PATH=" + cleanPath(val, ws)
		}
		out = append(out, kv)
	}
	if home != "" {
		out = append(out, "HOME="+home)
	}
	return append(out,
		"TMPDIR="+tmp,
		"XDG_CACHE_HOME="+cache,
		"GOCACHE="+filepath.Join(cache, "go-build"),
		"GOMODCACHE="+filepath.Join(cache, "go-mod"),
		"npm_config_cache="+filepath.Join(cache, "npm"),
	)
}

// cleanPath keeps the PATH entries that are absolute directories outside
// the workspace: an empty or relative entry (".", "node_modules/.bin") or
// one inside the workspace would let a file the model wrote run in place
// of `cat` or `go`. When nothing is left, the system's default is used.
func cleanPath(path, ws string) string {
	var keep []string
	seen := map[string]bool{}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		dir = filepath.Clean(dir)
		if insideWorkspace(dir, ws) || seen[dir] {
			continue
		}
		seen[dir] = true
		keep = append(keep, dir)
	}
	if len(keep) == 0 {
		return defaultPath
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

// insideWorkspace says whether dir is the workspace ws or under it,
// judged by place (links, case, bind mounts), not by spelling.
func insideWorkspace(dir, ws string) bool {
	return ws != "" && place.Holds(ws, dir)
}
