package sandbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/sandbox"
)

// A workspace that is a folder of a bigger repository (a package of a
// monorepo, husky's core.hooksPath = frontend/.husky/_): the hooks folder
// that repository's settings name inside the workspace is held for the
// workspace's commands (made empty and read-only when it is not there yet,
// read-only when it is) and the file tools ask before writing in it.
//
// Two sessions of one Loupe process: one on a repository /p whose
// core.hooksPath (sub/hooks) is not there yet, one on its folder /p/sub.
// The first's command makes the empty read-only placeholder sub/hooks; the
// second's command, started meanwhile, finds it there and has it mounted
// read-only. When the first command ends, its placeholder must stay until
// the second's has ended too: removed, the kernel would take the mount away
// in the second command's namespace, and it could make sub/hooks and a hook
// in it, which the user's next git commit in /p would run. "alone" checks
// the second workspace on its own (the folder not there yet, and there).
func TestHooksFolderOfTheRepositoryAboveTheWorkspace(t *testing.T) {
	needs(t, protections(t).Writes)
	for _, c := range []struct{ alone, existing bool }{{true, false}, {false, false}, {true, true}} {
		alone := c.alone
		name := "with a command of the outer workspace ending meanwhile"
		if alone {
			name = "alone"
		}
		if c.existing {
			name += "/hooks folder already there"
		}
		t.Run(name, func(t *testing.T) {
			isolateGit(t)
			p := t.TempDir()
			initRepo(t, p)
			sub := filepath.Join(p, "sub")
			os.MkdirAll(sub, 0o755)
			os.WriteFile(filepath.Join(sub, "keep"), []byte("x\n"), 0o644)
			if c.existing {
				os.MkdirAll(filepath.Join(sub, "hooks"), 0o755)
			}
			hostGit(t, p, "config", "core.hooksPath", "sub/hooks")
			marker := filepath.Join(t.TempDir(), "RAN")
			done := make(chan sandbox.Output, 1)
			if !alone {
				go func() {
					done <- crun(t, sandbox.Confined{Workspace: p, Guard: guardFor(p, "")}, "sleep 2")
				}()
				time.Sleep(700 * time.Millisecond)
			}
			script := `for i in $(seq 60); do mkdir -p hooks 2>/dev/null; if printf '#!/bin/sh\ntouch ` + marker + `\n' > hooks/pre-commit 2>/dev/null; then chmod +x hooks/pre-commit; echo write=0 at=$i; break; fi; sleep 0.1; done`
			out := crun(t, sandbox.Confined{Workspace: sub, Guard: guardFor(sub, "")}, script)
			t.Logf("inner command: %s", out.Text)
			if !alone {
				<-done
			}
			pol := permission.Policy{Mode: permission.ModeAuto, Workspace: sub}
			if d := pol.Decide(permission.Call{Tool: "write_file", Paths: []string{"hooks/pre-commit"}}); d.Verdict == permission.Run {
				t.Errorf("write_file hooks/pre-commit in %s runs in auto mode too", sub)
			}
			t.Logf("user's git commit: %s", hostGit(t, p, "commit", "-q", "--allow-empty", "-m", "x"))
			if strings.Contains(out.Text, "write=0") || ran(t, marker) {
				t.Errorf("a confined command of %s made the hooks folder of %s (core.hooksPath = sub/hooks); hook ran: %v", sub, p, ran(t, marker))
			}
		})
	}
}
