package sandbox_test

// Hole: the empty hooks folder one Loupe process makes to hold a
// repository's missing .git/hooks is removed when its command ends, while
// a command of another Loupe process (the app and `loupe run`, two
// windows, on the same folder) still runs with that folder as its
// "read-only" hooks. The kernel takes the other command's mount away with
// the folder; the command then makes .git/hooks and a hook in it, and the
// check after its round leaves it, since the folder was there when it
// started. The user's next git commit runs the hook, outside the sandbox.
//
// Steps: a repository without .git/hooks (a clone made without
// templates). Process 1 starts a command (any: `sleep 3`); its view makes
// .git/hooks empty and mounts it read-only. Process 2 starts a command in
// the same workspace: .git/hooks is there, so its view mounts it
// read-only and its plan notes the hooks folder as present. Process 1's
// command ends; releasePlaceholders finds no command of process 1 that may
// see the folder (activity is per process) and removes it. Process 2's
// command waits for it to go, makes .git/hooks/pre-commit, and ends; its
// check after the round (settingsAddedIn) skips "hooks" because
// r.present["hooks"] was true at the start.
//
// Mechanism: whether a placeholder may go is decided from this process's
// own count of running commands (activity.running, heldFor); nothing
// marks on disk that a folder is held, so another process takes Loupe's
// placeholder for the workspace's own folder, and the first process
// removes it from under the second one's view.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/sandbox"
)

const adv8OtherWS = "LOUPE_ADV8_OTHER_PROCESS_WS"

// TestAdv8OtherLoupeProcess is the other Loupe process of the test below:
// run by it (with adv8OtherWS set), it runs one confined command in that
// workspace; run on its own, it has nothing to do.
func TestAdv8OtherLoupeProcess(t *testing.T) {
	ws := os.Getenv(adv8OtherWS)
	if ws == "" {
		return
	}
	out := sandbox.Crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, "sleep 3; echo other=done")
	t.Logf("other process's command: %s", out.Text)
}

func TestAdv8PlaceholderOfAnotherProcessIsRemovedUnderACommand(t *testing.T) {
	sandbox.Needs(t, sandbox.ProbeLogged(t).Writes)
	isolateGit(t)
	ws := t.TempDir()
	initRepo(t, ws)
	if err := os.RemoveAll(filepath.Join(ws, ".git", "hooks")); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "RAN")

	other := exec.Command(os.Args[0], "-test.run", "^TestAdv8OtherLoupeProcess$", "-test.v")
	other.Env = append(os.Environ(), adv8OtherWS+"="+ws)
	var otherOut strings.Builder
	other.Stdout, other.Stderr = &otherOut, &otherOut
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = other.Wait()
		t.Logf("other process: %s", otherOut.String())
	}()
	// The other process's view holds .git/hooks (an empty folder it made).
	deadline := time.Now().Add(20 * time.Second)
	for {
		if fi, err := os.Stat(filepath.Join(ws, ".git", "hooks")); err == nil && fi.IsDir() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the other process never held .git/hooks: %s", otherOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}

	script := `i=0; while [ -d .git/hooks ] && [ $i -lt 150 ]; do sleep 0.1; i=$((i+1)); done
mkdir .git/hooks 2>&1; printf '#!/bin/sh\ntouch MARKER\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit; echo "write=$? waited=$i"`
	out := sandbox.Crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, strings.ReplaceAll(script, "MARKER", marker))
	t.Logf("command: %s", out.Text)
	_ = other.Wait()
	t.Logf("hooks now: %s", hostShell(t, ws, "ls -la .git | grep -i hook; ls -la .git/hooks 2>&1"))
	t.Logf("user's git commit: %s", hostGit(t, ws, "commit", "-q", "--allow-empty", "-m", "x"))
	if ran(t, marker) {
		t.Fatalf("the user's git commit ran a hook a confined command wrote into .git/hooks (command said %q)", strings.TrimSpace(out.Text))
	}
}
