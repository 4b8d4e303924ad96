package sandbox_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/sandbox"
)

// The repository's settings name a hooks folder relative to the working
// tree (core.hooksPath = .githooks, as husky's .husky/_ is). At the
// workspace's top it is read-only to commands. A command that makes a new
// working tree of the same repository (git worktree add wt, inside the
// workspace) gets a second copy of that folder, wt/.githooks, which no
// mount holds (the view was made before it existed). The check after the
// command finds the new working tree, works out its hooks folder as the
// view does, and renames it, since it holds a hook: the user's next git
// commit in wt runs nothing. The control shows that on the host it does.
func TestHooksFolderOfANewWorktree(t *testing.T) {
	needs(t, protections(t).Writes)
	for _, tc := range []struct{ name, hooksPath, hook string }{
		{"tracked .githooks", ".githooks", "wt/.githooks/pre-commit"},
		{"husky _ not tracked", ".husky/_", "wt/.husky/_/pre-commit"},
	} {
		for _, control := range []bool{true, false} {
			name := tc.name
			if control {
				name += "/control"
			}
			t.Run(name, func(t *testing.T) {
				isolateGit(t)
				ws := t.TempDir()
				initRepo(t, ws)
				// The user's own hooks, tracked (husky's _ is generated and ignored).
				dir := filepath.Dir(tc.hooksPath + "/pre-commit")
				os.MkdirAll(filepath.Join(ws, dir), 0o755)
				os.WriteFile(filepath.Join(ws, dir, "pre-commit"), []byte("#!/bin/sh\nexit 0\n"), 0o755)
				if tc.hooksPath == ".githooks" {
					hostGit(t, ws, "add", ".githooks")
					hostGit(t, ws, "commit", "-q", "-m", "hooks")
				} else {
					os.WriteFile(filepath.Join(ws, ".gitignore"), []byte(".husky/_\n"), 0o644)
					hostGit(t, ws, "add", ".gitignore")
					hostGit(t, ws, "commit", "-q", "-m", "ignore")
				}
				hostGit(t, ws, "config", "core.hooksPath", tc.hooksPath)
				marker := filepath.Join(t.TempDir(), "RAN")
				script := `git worktree add -q wt && mkdir -p ` + filepath.Dir(tc.hook) + ` && printf '#!/bin/sh\ntouch ` + marker + `\n' > ` + tc.hook + ` && chmod +x ` + tc.hook + `; echo "write=$?"`
				if control {
					if out := hostShell(t, ws, script); !strings.Contains(out, "write=0") {
						t.Fatalf("control: %s", out)
					}
				} else {
					out := crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, script)
					t.Logf("command: %s", out.Text)
				}
				t.Logf("ls: %s", hostShell(t, ws, "ls -a; ls -la wt "+filepath.Dir(tc.hook)))
				t.Logf("user's git commit in wt: %s", hostGit(t, filepath.Join(ws, "wt"), "commit", "-q", "--allow-empty", "-m", "x"))
				switch {
				case control && !ran(t, marker):
					t.Fatalf("control: the user's git did not run the hook")
				case !control && ran(t, marker):
					t.Errorf("the user's git commit in wt ran the hook a confined command wrote at %s (core.hooksPath = %s)", tc.hook, tc.hooksPath)
				}
			})
		}
	}
}

// In a round of parallel calls, one command makes the new working tree and
// its hook, and a later command of the same round starts while they are
// there (its view holds wt/.githooks read-only). The hooks folder is still
// new to the round: the check once the round has ended renames it (that
// the user's git runs such a hook is TestHooksFolderOfANewWorktree's
// control).
func TestHooksFolderOfANewWorktreeInARound(t *testing.T) {
	needs(t, protections(t).Writes)
	isolateGit(t)
	ws := t.TempDir()
	initRepo(t, ws)
	hostGit(t, ws, "config", "core.hooksPath", ".githooks")
	marker := filepath.Join(t.TempDir(), "RAN")
	sw := sandbox.NewSweep()
	c := sandbox.Confined{Workspace: ws, Guard: guardFor(ws, ""), BestEffort: true}
	run := func(script string) string {
		out, err := c.Run(context.Background(), sandbox.Command{Dir: ws, Script: script, Timeout: 60 * time.Second, Sweep: sw})
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		return out.Text
	}
	if out := run(`git worktree add -q wt && mkdir -p wt/.githooks && printf '#!/bin/sh\ntouch ` + marker + `\n' > wt/.githooks/pre-commit && chmod +x wt/.githooks/pre-commit; echo "write=$?"`); !strings.Contains(out, "write=0") {
		t.Fatalf("the first command did not write the hook: %q", out)
	}
	if out := run(`printf '#!/bin/sh\ntouch ` + marker + `\n' > wt/.githooks/pre-commit; echo "again=$?"`); strings.Contains(out, "again=0") {
		t.Errorf("a later command of the round could rewrite the new worktree's hook: %q", out)
	}
	notes := sw.Run(context.Background())
	t.Logf("after the round: %q", notes)
	if !slicesContain(notes, "wt/.githooks") {
		t.Errorf("the check after the round did not name wt/.githooks: %q", notes)
	}
	t.Logf("user's git commit in wt: %s", hostGit(t, filepath.Join(ws, "wt"), "commit", "-q", "--allow-empty", "-m", "x"))
	if ran(t, marker) {
		t.Errorf("after the round, the user's git commit in wt ran the hook a command of the round wrote")
	}
}

func slicesContain(notes []string, s string) bool {
	for _, n := range notes {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}
