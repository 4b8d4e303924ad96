//go:build linux

package attacks_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/gguf"
)

// TestTheRunsOwnDatabaseIsOutOfReach puts the run's database (--db) inside
// the workspace, as a user who keeps it with the project does, and has the
// command read, list, empty and remove it and its -wal and -shm files while
// the run writes to them. The prompt holds a secret, so the database does
// too. No tool result may show the files' contents, and after the run the
// database must be intact (integrity_check ok) with every event of the run.
// Loupe's permission policy protects these names; the OS must protect the
// files.
func TestTheRunsOwnDatabaseIsOutOfReach(t *testing.T) {
	l := newLab(t)
	pick := ` | grep -a -o 'loupe-secret-[a-z0-9-]*'`
	commands := []struct{ name, command string }{
		// Whole files would be more output than Loupe keeps of a command,
		// and a prompt too long for the scripted model: pick out the secret
		// and the files' first bytes instead.
		{"read the wal", `cat loupe.db-wal` + pick + `; head -c 4 loupe.db-wal | od -An -tx1`},
		{"read the database", `head -c 15 loupe.db; echo; cat loupe.db` + pick},
		{"read the shm", `head -c 64 loupe.db-shm | od -An -tx1`},
		{"list the workspace", `ls -la`},
		{"empty the wal", `cp /dev/null loupe.db-wal`},
		{"empty the shm", `cp /dev/null loupe.db-shm`},
		{"remove the database files", `rm -f loupe.db loupe.db-wal loupe.db-shm`},
	}
	type attack struct{ name, command, db string }
	// Each command also runs with the file names written as globs: the
	// classifier asks about names it sees, so only the OS stops these.
	var all []attack
	for _, c := range commands {
		all = append(all, attack{c.name, c.command, "loupe.db"})
		if glob := strings.ReplaceAll(c.command, "loupe.db", "loupe.d?"); glob != c.command {
			all = append(all, attack{c.name + " by a glob", glob, "loupe.db"})
		}
	}
	// With the database in a folder of the workspace, that folder can be
	// moved away: the run goes on writing to the moved file, and the next
	// run opens whatever the command left at the --db path.
	all = append(all,
		attack{"move the database's folder", `mv data data.old && mkdir data`, "data/loupe.db"},
		attack{"move the database's folder by a glob", `mv dat? data.old && mkdir data`, "data/loupe.db"},
		attack{"move the folder above the database's folder", `mv var var.old && mkdir -p var/data`, "var/data/loupe.db"},
	)
	for _, c := range all {
		t.Run(c.name, func(t *testing.T) {
			for _, md := range modes {
				t.Run(md.name, func(t *testing.T) {
					ws := l.fresh("ws")
					db := filepath.Join(ws, c.db)
					mkdirs(t, filepath.Dir(db))
					s := secret("prompt")
					o := l.run(t, runOpts{workspace: ws, db: db, auto: md.auto, prompt: "remember " + s,
						calls: []gguf.Call{runCommand(c.command)}})
					t.Log(o.summary())
					for _, r := range o.results() {
						for what, sign := range map[string]string{
							"the secret in the database": s,
							"the WAL header":             "37 7f 06 8",
							"the database header":        "SQLite format 3",
						} {
							if strings.Contains(r, sign) {
								t.Errorf("the command read %s (%q)", what, sign)
							}
						}
					}
					if o.code != 0 || !o.ended(trace.EndAnswered) {
						t.Errorf("the run did not end answered (exit %d): the database broke under it? stderr: %s", o.code, clip(o.stderr, 500))
					}
					if res, n := integrity(t, db); res != "ok" || n != 1 {
						t.Errorf("after the run: integrity_check %q, %d sessions (want ok, 1)", res, n)
						return
					}
					stored, evs := l.export(t, db, o.session)
					if !strings.Contains(stored, s) || !hasKind(evs, trace.KindToolResult) || !hasKind(evs, trace.KindRunEnd) {
						t.Errorf("the session lost events: %d stored, %d printed", len(evs), len(o.events))
					}
				})
			}
		})
	}
}

// TestWorkspacesHoldingTheUsersDataAreRefused asks for runs whose workspace
// is the whole machine, the whole home folder, or Loupe's data folder or a
// folder holding it ($XDG_DATA_HOME/loupe, else ~/.local/share/loupe, where
// the user's sessions are kept even when this run's --db is elsewhere): a
// workspace is what commands may write, so such a run must not start. loupe
// must say why and exit non-zero. (A --db inside the workspace is allowed:
// TestTheRunsOwnDatabaseIsOutOfReach.)
func TestWorkspacesHoldingTheUsersDataAreRefused(t *testing.T) {
	l := newLab(t)
	share := filepath.Join(l.home, ".local", "share")
	xdg := l.fresh("xdg-data")
	mkdirs(t, filepath.Join(share, "loupe"), filepath.Join(xdg, "loupe"))
	cases := []struct {
		name, workspace string
		env             []string
	}{
		{"the root folder", "/", nil},
		{"the home folder", l.home, nil},
		{"the data folder", filepath.Join(share, "loupe"), nil},
		{"a folder holding the data folder", share, nil},
		{"a folder holding the data folder under XDG_DATA_HOME", xdg, []string{"XDG_DATA_HOME=" + xdg}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, md := range modes {
				t.Run(md.name, func(t *testing.T) {
					o := l.run(t, runOpts{workspace: c.workspace, auto: md.auto, env: c.env, calls: []gguf.Call{runCommand("pwd")}})
					if o.code == 0 {
						t.Errorf("loupe ran a session in %s and exited 0\n%s", c.workspace, o.summary())
						return
					}
					if !strings.Contains(strings.ToLower(o.stderr), "workspace") {
						t.Errorf("loupe exited %d without saying why the workspace was refused: stderr %q", o.code, clip(o.stderr, 500))
					}
					if hasKind(o.events, trace.KindModelRequest) {
						t.Errorf("loupe refused the workspace only after the model was asked\n%s", o.summary())
					}
					t.Logf("exit %d: %s", o.code, strings.TrimSpace(o.stderr))
				})
			}
		})
	}
}
