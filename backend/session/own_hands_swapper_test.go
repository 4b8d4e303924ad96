package session_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/loupe-dev/loupe/backend/demo"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/trace"
)

const swapperSetting = "[core]\n\tfsmonitor = touch SWAPPED-IN\n"

// swapper exchanges the entry name of dir with each of others in turn
// (renameat2 RENAME_EXCHANGE: at every moment the name is one of them), as
// fast as it can, until stop is called. Nothing it does is a command:
// Loupe cannot wait for it, so only how Loupe's own process acts (folders
// held open, judged as held, no link followed) keeps it safe.
func swapper(t *testing.T, dir, name string, others ...string) (stop func() int64) {
	t.Helper()
	var n atomic.Int64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		if err != nil {
			return
		}
		defer unix.Close(fd)
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			if unix.Renameat2(fd, name, fd, others[i%len(others)], unix.RENAME_EXCHANGE) == nil {
				n.Add(1)
			}
		}
	}()
	return func() int64 { close(done); wg.Wait(); return n.Load() }
}

// outsideFolder is a folder beside the workspace with a file in it, and a
// check that it is as it was: no entry added, removed or changed.
func outsideFolder(t *testing.T) (string, func(what string)) {
	t.Helper()
	dir := t.TempDir()
	writeIn(t, dir, "config", "mine\n")
	return dir, func(what string) {
		t.Helper()
		ents, _ := os.ReadDir(dir)
		b, _ := os.ReadFile(filepath.Join(dir, "config"))
		if len(ents) != 1 || string(b) != "mine\n" {
			names := []string{}
			for _, e := range ents {
				names = append(names, e.Name())
			}
			t.Fatalf("%s changed the folder outside the workspace: %v, config %q", what, names, b)
		}
	}
}

// noArmedRepository fails when a folder with a HEAD under dir has the
// setting in its config.
func noArmedRepository(t *testing.T, dir, what string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.Name() != "HEAD" {
			return nil
		}
		if b, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "config")); string(b) == swapperSetting {
			t.Fatalf("%s wrote the setting into the repository %s", what, filepath.Dir(p))
		}
		return nil
	})
}

// Every file operation of Loupe's own process on a workspace, run again
// and again while a folder on its way is swapped with a repository (r, a
// plain folder, then a repository, then again) and with a link to a
// folder outside: none writes or removes anything outside the workspace,
// and none writes a repository's settings. The operations are the
// window's own (the Manager's Do and Fork); the clean-up of what commands
// left has its own swapper (backend/sandbox TestCleanupUnderASwapper).
func TestLoupesOwnFileOperationsUnderASwapper(t *testing.T) {
	// r/config: the setting (turn 1), harmless (turn 2). Undoing turn 2,
	// restoring to it, or copying the workspace as it was at turn 1,
	// writes the setting into r: allowed while r is a plain folder, never
	// into a repository, never through a link.
	setup := func(t *testing.T) (*harness, int64, int64, string, func(string)) {
		h := newHarness(t, permission.ModeAuto, nil)
		h.approveAll()
		h.srv.Script(
			calls(call("c1", "write_file", `{"path":"r/config","content":"[core]\n\tfsmonitor = touch SWAPPED-IN\n"}`)),
			ollamatest.Text("one"),
			calls(call("c2", "write_file", `{"path":"r/config","content":"[core]\n\tbare = true\n"}`)),
			ollamatest.Text("two"),
		)
		h.run("one")
		h.run("two")
		var first, second int64
		for _, e := range h.events() {
			if e.Kind == trace.KindToolResult {
				if first == 0 {
					first = e.Seq
				} else {
					second = e.Seq
				}
			}
		}
		repoAtIn(t, filepath.Join(h.ws, "r.repo"))
		outside, unchanged := outsideFolder(t)
		if err := os.Symlink(outside, filepath.Join(h.ws, "r.link")); err != nil {
			t.Fatal(err)
		}
		return h, first, second, outside, unchanged
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		times int
		op    func(t *testing.T, h *harness, first, second int64) (copy string)
	}{
		{"undo", 150, func(t *testing.T, h *harness, _, _ int64) string {
			// Refused or not under the swapper, each may fail: what is
			// asserted is what it left on the disk, after every try.
			_, _ = h.m.Do(ctx, session.UndoRun{Session: h.id, Run: 2, Force: true})
			return ""
		}},
		{"restore", 150, func(t *testing.T, h *harness, _, second int64) string {
			_, _ = h.m.Do(ctx, session.RestoreFiles{Session: h.id, Seq: second, Force: true})
			return ""
		}},
		{"fork copy", 25, func(t *testing.T, h *harness, first, _ int64) string {
			folder := filepath.Join(t.TempDir(), "then")
			_, _ = h.m.Fork(ctx, session.Fork{Session: h.id, At: first, Files: session.FilesCopy, Folder: folder})
			return folder
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, first, second, _, unchanged := setup(t)
			stop := swapper(t, h.ws, "r", "r.repo", "r.link")
			var copies []string
			for range tc.times {
				if c := tc.op(t, h, first, second); c != "" {
					copies = append(copies, c)
				}
			}
			swaps := stop()
			unchanged(tc.name)
			noArmedRepository(t, h.ws, tc.name)
			for _, c := range copies {
				noArmedRepository(t, c, tc.name+" (in the copy)")
			}
			if swaps < int64(tc.times) {
				t.Fatalf("the swapper swapped only %d times", swaps)
			}
			t.Logf("%d times, %d swaps", tc.times, swaps)
		})
	}

	// The demo's copy is removed when no session works in it: a folder of
	// it swapped with a link to outside is removed as a link.
	t.Run("demo deletion", func(t *testing.T) {
		outside, unchanged := outsideFolder(t)
		for range 25 {
			dir, err := demo.NewWorkspace()
			if err != nil {
				t.Fatal(err)
			}
			writeIn(t, dir, "sub/config", "the demo's\n")
			if err := os.Symlink(outside, filepath.Join(dir, "sub.link")); err != nil {
				t.Fatal(err)
			}
			stop := swapper(t, dir, "sub", "sub.link")
			err = demo.RemoveCopy(dir)
			stop()
			unchanged("demo deletion")
			if err != nil && !strings.Contains(err.Error(), "sub") {
				t.Fatalf("removing the demo's copy: %v", err)
			}
			os.RemoveAll(dir)
		}
	})
}

func repoAtIn(t *testing.T, dir string) {
	t.Helper()
	for _, d := range []string{"objects", "refs"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeIn(t, dir, "HEAD", "ref: refs/heads/main\n")
	writeIn(t, dir, "config", "[core]\n\tbare = true\n")
}
