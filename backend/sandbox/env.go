package sandbox

import "strings"

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
