package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// plantRepo lays out a repository whose settings run a program: what the
// clean-up renames when a command made it.
func plantRepo(t *testing.T, gitDir string) {
	t.Helper()
	for _, d := range []string{"objects", "refs/heads", "hooks"} {
		if err := os.MkdirAll(filepath.Join(gitDir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(gitDir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	os.WriteFile(filepath.Join(gitDir, "config"), []byte("[core]\n\tfsmonitor = \"touch MARK; false\"\n"), 0o644)
}

// listing is every path under dir with its type and inode, so that a
// rename, a move in or out and a new entry all show.
func listing(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		lines = append(lines, fmt.Sprintf("%s %v", p, fi.Mode().Type()))
		return nil
	})
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// The clean-up of what commands left, run while another process swaps a
// folder of the workspace with a symbolic link to a folder outside it, and
// back, as fast as it can: the clean-up must never rename, read or move
// anything outside (here a repository of the user's, which looks like the
// attacker's), and never move the attacker's repository out. The swapper
// also puts the attacker's repository back each time it was renamed, so
// that every round has something to disarm.
func TestCleanupUnderASwapper(t *testing.T) {
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	out := filepath.Join(base, "outside")
	plantRepo(t, filepath.Join(out, "victim", ".git")) // the user's, outside
	os.MkdirAll(filepath.Join(out, "evil"), 0o755)
	os.MkdirAll(filepath.Join(ws, "a", "victim"), 0o755)
	plan, err := planWorkspace(ws, nil, nil) // before the commands: no repository
	if err != nil {
		t.Fatal(err)
	}
	evil := filepath.Join(ws, "a", "evil", ".git")
	plantRepo(t, evil) // the command's
	outBefore := listing(t, out)

	var stop atomic.Bool
	var wg sync.WaitGroup
	a, real := filepath.Join(ws, "a"), filepath.Join(ws, "a.real")
	wg.Go(func() {
		for !stop.Load() {
			if os.Rename(a, real) == nil {
				os.Symlink(out, a)
				os.Remove(a)
				os.Rename(real, a)
			}
			// The attacker's repository, back where git finds it.
			os.Rename(evil+".loupe-disarmed", evil)
		}
	})
	disarmed := 0
	const rounds = 3000
	for i := 0; i < rounds; i++ {
		for _, n := range disarmNewRepos(ws, plan.folder, plan.repos, nil, nil, plan.folders) {
			if strings.Contains(n, "Loupe renamed it") {
				disarmed++
			}
		}
		if got := listing(t, out); got != outBefore {
			stop.Store(true)
			wg.Wait()
			t.Fatalf("round %d: the folder outside the workspace changed:\nbefore:\n%s\nafter:\n%s", i, outBefore, got)
		}
	}
	stop.Store(true)
	wg.Wait()
	if disarmed == 0 {
		t.Fatalf("the attacker's repository was never disarmed in %d rounds", rounds)
	}
	t.Logf("disarmed the attacker's repository %d times in %d rounds; nothing outside touched", disarmed, rounds)
}
