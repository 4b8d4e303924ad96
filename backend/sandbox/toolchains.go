package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// A command sees nothing of the user's home, but the toolchains installed
// there must still run: `cargo` from ~/.cargo/bin, `node` from nvm, `python`
// from pyenv. Toolchains finds them from PATH: each PATH directory under
// the home folder is shown to commands read-only, with the folders its
// tools need to run (rustup's toolchains beside ~/.cargo/bin, pyenv's
// versions). Credentials that sit next to them (~/.cargo/credentials.toml)
// stay out: only the bin directory and the named companions are shown.

// companions are what a toolchain's bin directory needs besides itself,
// relative to the home folder, keyed by that bin directory (also relative).
var companions = map[string][]string{
	".cargo/bin":                            {".rustup"},
	".local/bin":                            {".local/lib", ".local/share/pipx", ".local/share/uv"},
	".pyenv/bin":                            {".pyenv"},
	".pyenv/shims":                          {".pyenv"},
	".pyenv/plugins/pyenv-virtualenv/shims": {".pyenv"},
	".volta/bin":                            {".volta"},
	".bun/bin":                              {".bun"},
	".deno/bin":                             {".deno"},
	".asdf/shims":                           {".asdf"},
	".asdf/bin":                             {".asdf"},
	".sdkman/candidates":                    {".sdkman"},
	"go/bin":                                {},
}

// Toolchains returns the directories under home that commands need to run
// the tools on PATH (see above), skipping the workspace ws and anything
// that does not exist.
func Toolchains(pathEnv, home, ws string) []string {
	if home == "" || home == "/" {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if seen[p] || insideWorkspace(p, ws) {
			return
		}
		if _, err := os.Stat(p); err != nil {
			return
		}
		seen[p] = true
		out = append(out, p)
	}
	for _, dir := range filepath.SplitList(pathEnv) {
		if !filepath.IsAbs(dir) {
			continue
		}
		dir = filepath.Clean(dir)
		rel, ok := within(home, dir)
		if !ok || rel == "." {
			continue
		}
		rel = filepath.ToSlash(rel)
		// nvm: ~/.nvm/versions/node/vX/bin needs its lib beside it.
		if strings.HasPrefix(rel, ".nvm/versions/") {
			add(filepath.Dir(dir))
			continue
		}
		add(dir)
		for _, c := range companions[rel] {
			add(filepath.Join(home, filepath.FromSlash(c)))
		}
	}
	return out
}

var (
	identityOnce sync.Once
	identity     []string
)

// gitIdentity is the user's git name and e-mail as environment variables,
// so that `git commit` works in a command whose home (and ~/.gitconfig) is
// its own. It is read once, from git's global settings.
func gitIdentity() []string {
	identityOnce.Do(func() {
		get := func(key string) string {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			out, err := exec.CommandContext(ctx, "git", "config", "--global", "--get", key).Output()
			if err != nil {
				return ""
			}
			return strings.TrimSpace(string(out))
		}
		if name := get("user.name"); name != "" {
			identity = append(identity, "GIT_AUTHOR_NAME="+name, "GIT_COMMITTER_NAME="+name)
		}
		if email := get("user.email"); email != "" {
			identity = append(identity, "GIT_AUTHOR_EMAIL="+email, "GIT_COMMITTER_EMAIL="+email)
		}
	})
	return identity
}
