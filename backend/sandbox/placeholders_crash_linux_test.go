package sandbox_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/sandbox"
)

// A Loupe process killed while its command holds a missing .git/hooks
// (an empty folder it made so the read-only mount has something to
// cover) leaves that folder in the user's repository. The next Loupe to
// start removes it; a hooks folder some command filled is left as it is.
func TestAKilledLoupesPlaceholderGoesWhenLoupeStarts(t *testing.T) {
	needs(t, protections(t).Writes)
	isolateGit(t)
	for _, filled := range []bool{false, true} {
		ws := t.TempDir()
		initRepo(t, ws)
		hooks := filepath.Join(ws, ".git", "hooks")
		if err := os.RemoveAll(hooks); err != nil {
			t.Fatal(err)
		}
		other := exec.Command(os.Args[0], "-test.run", "^TestAnotherLoupeProcessRunsACommand$", "-test.v")
		other.Env = append(os.Environ(), otherProcessWorkspace+"="+ws)
		var otherOut strings.Builder
		other.Stdout, other.Stderr = &otherOut, &otherOut
		if err := other.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(20 * time.Second)
		for {
			if _, err := os.Lstat(hooks); err == nil {
				break
			}
			if time.Now().After(deadline) {
				_ = other.Process.Kill()
				_ = other.Wait()
				t.Fatalf("the other process never held .git/hooks: %s", otherOut.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(200 * time.Millisecond) // its command runs
		if err := other.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = other.Wait()
		if strings.Contains(otherOut.String(), "other=done") {
			t.Fatal("the other process ended before it was killed")
		}
		if _, err := os.Lstat(hooks); err != nil {
			t.Fatalf("the killed process's placeholder is not there to sweep: %v", err)
		}
		if filled {
			if err := os.WriteFile(filepath.Join(hooks, "pre-commit"), []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}

		if err := sandbox.SweepPlaceholders(); err != nil {
			t.Fatal(err)
		}

		_, err := os.Lstat(hooks)
		switch {
		case !filled && err == nil:
			t.Errorf(".git/hooks, which the killed Loupe made to hold the path, is left in the repository")
		case filled && err != nil:
			t.Errorf("a .git/hooks with something in it was removed: %v", err)
		}
	}
}
