package sandbox_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/sandbox"
)

// Two Loupe processes on one folder (the app and `loupe run`, two
// windows): what one makes to hold a path for its command (an empty
// .git/hooks, an included settings file, config.worktree, a hooks folder
// core.hooksPath names) is, to the other, a read-only mount in its own
// command's view. Were the first to remove it when its own command ends,
// the kernel would take the other's mount away with it, and that command
// could make the path and fill it; and the check after its round would
// leave it, taking Loupe's placeholder for the repository's own.

// otherProcessWorkspace tells TestAnotherLoupeProcessRunsACommand which
// workspace to run its command in.
const otherProcessWorkspace = "LOUPE_TEST_OTHER_PROCESS_WORKSPACE"

// otherDone is the file the other process's command leaves in the
// workspace as it ends.
const otherDone = "other-process-done"

// TestAnotherLoupeProcessRunsACommand is the other Loupe process of the
// test below: run by it (with otherProcessWorkspace set), it runs one
// confined command in that workspace; run on its own, it has nothing to
// do.
func TestAnotherLoupeProcessRunsACommand(t *testing.T) {
	ws := os.Getenv(otherProcessWorkspace)
	if ws == "" {
		return
	}
	out := crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, "sleep 3; : > "+otherDone+"; echo other=done")
	t.Logf("other process's command: %s", out.Text)
}

// Each kind of placeholder, held by another Loupe process's command when
// this one's starts: that command ends first, this one then waits for the
// path to go (or for a while), and writes a program there that the user's
// next git would run. The user's git runs nothing, and nothing Loupe made
// is left in the tree.
func TestAnotherLoupeProcessNeverTakesAwayWhatACommandHasReadOnly(t *testing.T) {
	needs(t, protections(t).Writes)
	for _, tc := range []struct {
		name string
		// setup makes the repository's settings that have Loupe hold
		// the path held (relative to the workspace: the first folder
		// Loupe makes on the way to it).
		setup func(t *testing.T, ws string)
		held  string
		// write puts a program at held for the user's git (MARKER is
		// the file it makes); git is what the user runs then.
		write string
		git   []string
	}{
		{"a missing .git/hooks", func(t *testing.T, ws string) {
			if err := os.RemoveAll(filepath.Join(ws, ".git", "hooks")); err != nil {
				t.Fatal(err)
			}
		}, ".git/hooks",
			`mkdir -p .git/hooks; printf '#!/bin/sh\ntouch MARKER\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`,
			[]string{"commit", "-q", "--allow-empty", "-m", "x"}},
		{"a missing included settings file", func(t *testing.T, ws string) {
			hostGit(t, ws, "config", "--local", "include.path", "../shared.gitconfig")
		}, "shared.gitconfig",
			`printf '[core]\n\tfsmonitor = "touch MARKER; false"\n' > shared.gitconfig`,
			[]string{"status"}},
		{"a missing config.worktree", func(t *testing.T, ws string) {
			hostGit(t, ws, "config", "--local", "extensions.worktreeConfig", "true")
		}, ".git/config.worktree",
			`printf '[core]\n\tfsmonitor = "touch MARKER; false"\n' > .git/config.worktree`,
			[]string{"status"}},
		{"a missing core.hooksPath folder", func(t *testing.T, ws string) {
			hostGit(t, ws, "config", "--local", "core.hooksPath", ".husky/_")
		}, ".husky",
			`mkdir -p .husky/_; printf '#!/bin/sh\ntouch MARKER\n' > .husky/_/pre-commit && chmod +x .husky/_/pre-commit`,
			[]string{"commit", "-q", "--allow-empty", "-m", "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			isolateGit(t)
			ws := t.TempDir()
			initRepo(t, ws)
			tc.setup(t, ws)
			held := filepath.Join(ws, filepath.FromSlash(tc.held))
			if _, err := os.Lstat(held); err == nil {
				t.Fatalf("%s is there before any command", tc.held)
			}
			marker := filepath.Join(t.TempDir(), "RAN")

			other := exec.Command(os.Args[0], "-test.run", "^TestAnotherLoupeProcessRunsACommand$", "-test.v")
			other.Env = append(os.Environ(), otherProcessWorkspace+"="+ws)
			var otherOut strings.Builder
			other.Stdout, other.Stderr = &otherOut, &otherOut
			if err := other.Start(); err != nil {
				t.Fatal(err)
			}
			waited := false
			defer func() {
				if !waited {
					_ = other.Wait()
				}
			}()
			// The other process's view holds the path (an empty file or
			// folder it made).
			deadline := time.Now().Add(20 * time.Second)
			for {
				if _, err := os.Lstat(held); err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the other process never held %s: %s", tc.held, otherOut.String())
				}
				time.Sleep(10 * time.Millisecond)
			}

			// Once the other command has ended, up to two seconds for
			// the path to go.
			script := `i=0; while [ -e HELD ] && [ $i -lt 40 ]; do [ -e ` + otherDone + ` ] && i=$((i+1)); sleep 0.05; done
echo "gone=$([ -e HELD ] && echo no || echo yes)"; (WRITE) 2>&1; echo "write=$?"`
			script = strings.NewReplacer("HELD", tc.held, "WRITE", strings.ReplaceAll(tc.write, "MARKER", marker)).Replace(script)
			out := crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, script)
			_ = other.Wait()
			waited = true
			t.Logf("other process: %s", otherOut.String())
			if !strings.Contains(otherOut.String(), "other=done") {
				t.Fatalf("the other process's command did not run to its end")
			}
			if strings.Contains(out.Text, "gone=yes") {
				t.Errorf("%s went while a command had it read-only: %q", tc.held, out.Text)
			}
			t.Logf("user's git %s: %s", tc.git[0], hostGit(t, ws, tc.git...))
			if ran(t, marker) {
				t.Errorf("the user's git %s ran a program a confined command wrote at %s (command said %q)", tc.git[0], tc.held, strings.TrimSpace(out.Text))
			}
			if _, err := os.Lstat(held); err == nil {
				t.Errorf("%s, which Loupe made to hold the path, is left in the tree: %s", tc.held, hostShell(t, ws, "ls -la "+tc.held+" 2>&1"))
			}
		})
	}
}
