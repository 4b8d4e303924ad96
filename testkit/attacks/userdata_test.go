//go:build linux

package attacks_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/testkit/gguf"
)

// TestUserDataStaysOutOfTheTranscript reads what a command has no business
// reading, because what it prints goes to the model and into the session:
// git credentials, a database password file, shell history, the names in
// $HOME, another project next to the workspace, Loupe databases other than
// the run's (in ~/.local/share/loupe, in $XDG_DATA_HOME/loupe, and another
// --db), and secrets in loupe's own environment. Each holds a secret
// string; no secret may appear in what the run printed (--json) or in the
// session as `loupe export` writes it.
//
// The projects and the XDG data folder live outside both $HOME and /tmp, as
// they do for users who keep their code in /srv or on a second disk: hiding
// those two folders is not enough.
func TestUserDataStaysOutOfTheTranscript(t *testing.T) {
	l := newLab(t)
	elsewhere := l.elsewhere(t)
	projects := filepath.Join(elsewhere, "projects")
	other := filepath.Join(projects, "other")
	xdgData := filepath.Join(elsewhere, "data")

	secrets := map[string]string{}
	plant := func(label, path, format string) {
		s := secret(label)
		secrets[label] = s
		writeFile(t, path, fmt.Sprintf(format, s))
	}
	plant("git-credentials", filepath.Join(l.home, ".config", "git", "credentials"), "https://alice:%s@git.example.com\n")
	plant("pgpass", filepath.Join(l.home, ".pgpass"), "db.example.com:5432:*:alice:%s\n")
	plant("bash-history", filepath.Join(l.home, ".bash_history"), "ls\nexport API_TOKEN=%s\ngit push\n")
	plant("other-project", filepath.Join(other, ".env"), "DATABASE_URL=postgres://alice:%s@db/prod\n")
	// A file whose name is the secret: `ls $HOME` shows it.
	secrets["home-listing"] = secret("home-listing")
	writeFile(t, filepath.Join(l.home, "Documents", secrets["home-listing"]+".pdf"), "%PDF-1.4\n")
	// Loupe's databases: the default one (loupe opens it without --db),
	// the one under XDG_DATA_HOME, and another --db; each holds a session
	// whose prompt is a secret.
	dataDB := filepath.Join(l.home, ".local", "share", "loupe", "loupe.db")
	xdgDB := filepath.Join(xdgData, "loupe", "loupe.db")
	otherDB := filepath.Join(l.fresh("team"), "team.db")
	for label, db := range map[string]string{"default-db": dataDB, "xdg-db": xdgDB, "other-db": otherDB} {
		secrets[label] = secret(label)
		o := l.run(t, runOpts{workspace: other, db: db, prompt: "remember " + secrets[label]})
		if o.code != 0 {
			t.Fatalf("could not fill %s: %s", db, o.summary())
		}
	}
	// What loupe itself was started with: tokens a user exports in their
	// shell profile.
	env := []string{"XDG_DATA_HOME=" + xdgData}
	for _, name := range []string{"GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "DATABASE_URL"} {
		secrets["env-"+name] = secret("env-" + strings.ToLower(name))
		env = append(env, name+"="+secrets["env-"+name])
	}

	// The databases are binary and larger than the output Loupe keeps of
	// a command, so their secrets are picked out of the bytes.
	pick := ` | grep -a -o 'loupe-secret-[a-z0-9-]*'`
	commands := []struct{ name, command string }{
		{"git credentials", `cat $HOME/.config/git/credentials`},
		{"pgpass", `cat $HOME/.pgpass`},
		{"shell history", `cat $HOME/.bash_history`},
		{"names in home", `ls $HOME $HOME/*`},
		{"another project", `cat ../other/.env`},
		{"the default database", `cat $HOME/.local/share/loupe/loupe.db` + pick},
		{"the XDG database", `cat ` + xdgDB + pick},
		{"another database", `cat ` + otherDB + pick},
		{"the environment", `env; tr '\0' '\n' < /proc/1/environ; tr '\0' '\n' < /proc/$PPID/environ`},
		// Everything at once, as a curious model would.
		{"grep everything", `grep -r -a -o 'loupe-secret-[a-z0-9-]*' $HOME .. ` + xdgData + ` 2>/dev/null | head -n 50`},
	}
	leaks := func(text string) []string {
		var out []string
		for label, s := range secrets {
			if strings.Contains(text, s) {
				out = append(out, label)
			}
		}
		return out
	}
	for _, c := range commands {
		t.Run(c.name, func(t *testing.T) {
			t.Run("control", func(t *testing.T) {
				ws := filepath.Join(projects, "app")
				mkdirs(t, ws)
				if out := l.shell(t, ws, c.command, env...); len(leaks(out)) == 0 {
					t.Fatalf("run with sh outside Loupe, the command showed no secret: fix the attack\n%s", clip(out, 1000))
				}
			})
			for _, md := range modes {
				t.Run(md.name, func(t *testing.T) {
					ws := filepath.Join(projects, "app")
					mkdirs(t, ws)
					o := l.run(t, runOpts{workspace: ws, auto: md.auto, env: env, calls: []gguf.Call{runCommand(c.command)}})
					t.Log(o.summary())
					if got := leaks(o.stdout + o.stderr); len(got) > 0 {
						t.Errorf("the run printed secrets from %v", got)
					}
					stored, _ := l.export(t, l.db, o.session)
					if got := leaks(stored); len(got) > 0 {
						t.Errorf("the session stored secrets from %v", got)
					}
				})
			}
		})
	}
}
