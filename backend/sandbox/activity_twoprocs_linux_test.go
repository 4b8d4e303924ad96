package sandbox_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/sandbox"
)

// Two Loupe processes on one folder (the window and `loupe run` in a
// terminal): what one's own process changes there (an Undo, a restore, a
// fork's copy, the check after a round) waits for the other's commands, and
// the other's commands wait for it, as they do within one process. A
// process that is gone holds nothing up.

// otherScript and otherFolder tell TestAnotherLoupeProcessWorksInAFolder
// what to run, and where.
const (
	otherScript = "LOUPE_TEST_OTHER_SCRIPT"
	otherFolder = "LOUPE_TEST_OTHER_FOLDER"
)

// TestAnotherLoupeProcessWorksInAFolder is the other Loupe process of the
// tests below: run by them, it runs one confined command; run on its own,
// it has nothing to do.
func TestAnotherLoupeProcessWorksInAFolder(t *testing.T) {
	ws, script := os.Getenv(otherFolder), os.Getenv(otherScript)
	if ws == "" {
		return
	}
	crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, script)
}

// otherProcess starts the other Loupe process running script in ws.
func otherProcess(t *testing.T, ws, script string) *exec.Cmd {
	t.Helper()
	other := exec.Command(os.Args[0], "-test.run", "^TestAnotherLoupeProcessWorksInAFolder$")
	other.Env = append(os.Environ(), otherFolder+"="+ws, otherScript+"="+script)
	other.Stdout, other.Stderr = os.Stderr, os.Stderr
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = other.Process.Kill()
		_ = other.Wait()
	})
	return other
}

// waitForFile waits (up to 20 s) for path to be there.
func waitForFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Lstat(path); err == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s never appeared", path)
}

// Loupe changing a folder (Quiet, however the folder is named: itself,
// through a link, the folder that holds the workspace, one inside it)
// waits for a command another Loupe process runs there, says it waits for
// one, and goes on once it has ended.
func TestQuietWaitsForAnotherLoupeProcesssCommand(t *testing.T) {
	needs(t, protections(t).Writes)
	for _, tc := range []struct {
		name  string
		quiet func(ws string) string
	}{
		{"the workspace", func(ws string) string { return ws }},
		{"through a link", func(ws string) string {
			link := filepath.Join(t.TempDir(), "ws")
			if err := os.Symlink(ws, link); err != nil {
				t.Fatal(err)
			}
			return link
		}},
		{"the folder that holds it", filepath.Dir},
		{"a folder inside it", func(ws string) string { return filepath.Join(ws, "pkg") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := filepath.Join(t.TempDir(), "ws")
			if err := os.MkdirAll(filepath.Join(ws, "pkg"), 0o755); err != nil {
				t.Fatal(err)
			}
			otherProcess(t, ws, ": > started; sleep 2; : > ended")
			waitForFile(t, filepath.Join(ws, "started"))
			var mu sync.Mutex
			var heard []int
			ctx := sandbox.WithWaitReport(context.Background(), func(n int) {
				mu.Lock()
				heard = append(heard, n)
				mu.Unlock()
			})
			release, err := sandbox.Quiet(ctx, tc.quiet(ws))
			if err != nil {
				t.Fatal(err)
			}
			defer release()
			if _, err := os.Lstat(filepath.Join(ws, "ended")); err != nil {
				t.Fatalf("Loupe went on changing %s while another Loupe process's command still ran there", tc.quiet(ws))
			}
			mu.Lock()
			defer mu.Unlock()
			if len(heard) < 2 || heard[0] != 1 || heard[len(heard)-1] != 0 {
				t.Fatalf("the wait was told %v, want 1 command and then 0", heard)
			}
		})
	}
}

// While Loupe changes a folder, another Loupe process's command there does
// not start; it starts once Loupe has let go. A command beside it starts.
func TestAnotherLoupeProcesssCommandWaitsForQuiet(t *testing.T) {
	needs(t, protections(t).Writes)
	ws, beside := t.TempDir(), t.TempDir()
	release, err := sandbox.Quiet(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	otherProcess(t, ws, ": > started")
	otherProcess(t, beside, ": > started")
	waitForFile(t, filepath.Join(beside, "started"))
	time.Sleep(time.Second)
	if _, err := os.Lstat(filepath.Join(ws, "started")); err == nil {
		release()
		t.Fatal("another Loupe process's command ran in the folder while Loupe changed it")
	}
	release()
	waitForFile(t, filepath.Join(ws, "started"))
}

// A Loupe process killed while its command runs leaves no count behind:
// Loupe's change of the folder goes on once it is gone.
func TestAGoneLoupeProcessHoldsNothingUp(t *testing.T) {
	needs(t, protections(t).Writes)
	ws := t.TempDir()
	other := otherProcess(t, ws, ": > started; sleep 60")
	waitForFile(t, filepath.Join(ws, "started"))
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := sandbox.Quiet(ctx, ws); err == nil {
		t.Fatal("Quiet did not wait for the other process's command")
	}
	if err := other.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = other.Wait()
	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	release, err := sandbox.Quiet(ctx, ws)
	if err != nil {
		t.Fatalf("Quiet still waits for a process that is gone: %v", err)
	}
	release()
}
