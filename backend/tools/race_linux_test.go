//go:build linux

package tools

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// This test races the file tools against a path being swapped for a
// symlink while they run, the way a parallel command could swap it after
// permission was decided. It is Linux-only because swapping a directory
// and a symlink without a moment where neither is there needs
// renameat2(RENAME_EXCHANGE).

// raceFixture: x is a plain file and d a plain directory, each approved
// as such; the flippers keep turning them into symlinks to the protected
// files (.git/config, loupe.db) and to files outside the workspace.
type raceFixture struct {
	ws           *Workspace
	dir, outside string
	kept         map[string]os.FileInfo // protected file -> its state before
	keptBytes    map[string][]byte
}

func newRaceFixture(t *testing.T) *raceFixture {
	t.Helper()
	ws, dir := newWorkspace(t, map[string]string{
		".git/config": "A\n[core]\n",
		"loupe.db":    "SQLite format 3\x00A\n",
		"x":           "A\n",
		"d/config":    "A\n",
	})
	outside := t.TempDir()
	writeTestFile(t, filepath.Join(outside, "secret.txt"), "A\n")
	writeTestFile(t, filepath.Join(outside, "config"), "A\n")
	f := &raceFixture{ws: ws, dir: dir, outside: outside, kept: map[string]os.FileInfo{}, keptBytes: map[string][]byte{}}
	for _, p := range f.protected() {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		f.kept[p], f.keptBytes[p] = fi, []byte(readTestFile(t, p))
	}
	return f
}

func (f *raceFixture) protected() []string {
	return []string{
		filepath.Join(f.dir, ".git", "config"),
		filepath.Join(f.dir, "loupe.db"),
		filepath.Join(f.outside, "secret.txt"),
		filepath.Join(f.outside, "config"),
	}
}

// untouched fails unless every protected file is the same file with the
// same bytes, and nothing was added next to them.
func (f *raceFixture) untouched(t *testing.T) {
	t.Helper()
	for _, p := range f.protected() {
		fi, err := os.Lstat(p)
		if err != nil || !os.SameFile(fi, f.kept[p]) {
			t.Errorf("%s was replaced: %v", p, err)
			continue
		}
		if b, _ := os.ReadFile(p); !bytes.Equal(b, f.keptBytes[p]) {
			t.Errorf("%s changed to %q", p, b)
		}
	}
	for dir, want := range map[string]string{filepath.Join(f.dir, ".git"): "config", f.outside: "config secret.txt"} {
		entries, _ := os.ReadDir(dir)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if got := strings.Join(names, " "); got != want {
			t.Errorf("%s now holds %s, want %s", dir, got, want)
		}
	}
	assertNoTempFiles(t, f.dir)
}

// flipFile keeps replacing name, atomically each time, by a symlink to
// one of targets and by a plain file again, until stop.
func flipFile(t *testing.T, dir, name string, targets []string, stop *atomic.Bool, wg *sync.WaitGroup) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		p := filepath.Join(dir, name)
		for i := 0; !stop.Load(); i++ {
			lnk, pln := p+".lnk", p+".pln"
			os.Remove(lnk)
			if err := os.Symlink(targets[i%len(targets)], lnk); err != nil {
				t.Errorf("flipper: %v", err)
				return
			}
			os.Rename(lnk, p)
			pause(i)
			os.WriteFile(pln, []byte("A\n"), 0o644)
			os.Rename(pln, p)
			pause(i + 1)
		}
	}()
}

// pause varies how long a flipper leaves each state: not at all, or some
// tens of microseconds.
func pause(i int) {
	if d := time.Duration(i%4) * 15 * time.Microsecond; d > 0 {
		time.Sleep(d)
	}
}

// flipDir keeps exchanging the directory name with a symlink to one of
// targets, until stop; it leaves the directory in place.
func flipDir(t *testing.T, dir, name string, targets []string, stop *atomic.Bool, wg *sync.WaitGroup) {
	p := filepath.Join(dir, name)
	lnk := p + ".lnk"
	if err := os.Symlink(targets[0], lnk); err != nil {
		t.Fatal(err)
	}
	exchange := func() error { return unix.Renameat2(unix.AT_FDCWD, p, unix.AT_FDCWD, lnk, unix.RENAME_EXCHANGE) }
	if err := exchange(); err != nil {
		t.Skipf("this file system cannot exchange two entries atomically (%v); the race needs it", err)
	}
	if err := exchange(); err != nil {
		t.Fatal(err)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			// lnk is the symlink now: point it somewhere, then swap it in
			// and back.
			tmp := lnk + ".new"
			os.Remove(tmp)
			os.Symlink(targets[i%len(targets)], tmp)
			os.Rename(tmp, lnk)
			if err := exchange(); err != nil {
				t.Errorf("flipper: %v", err)
				return
			}
			pause(i)
			if err := exchange(); err != nil {
				t.Errorf("flipper: %v", err)
				return
			}
			pause(i + 1)
		}
	}()
}

// TestToolsRaceSymlinkSwaps: write_file and edit_file of x and d/config,
// each approved as the plain file it was, while both keep being swapped
// for symlinks to .git/config, the database and files outside. Every call
// either writes the approved file or is refused with a message, and
// afterwards the protected files are the same files with the same bytes.
func TestToolsRaceSymlinkSwaps(t *testing.T) {
	f := newRaceFixture(t)
	var stop atomic.Bool
	var wg sync.WaitGroup
	flipFile(t, f.dir, "x", []string{".git/config", "loupe.db", filepath.Join(f.outside, "secret.txt"), "d/config"}, &stop, &wg)
	flipDir(t, f.dir, "d", []string{".git", f.outside}, &stop, &wg)
	defer func() {
		stop.Store(true)
		wg.Wait()
	}()

	reg := Builtins(f.ws, nil)
	type tally struct{ wrote, refused int }
	counts := map[string]*tally{"x": {}, "d/config": {}}
	const iterations = 3000
	start := time.Now()
	n, misses := 0, 0
	for ; n < iterations && time.Since(start) < 30*time.Second; n++ {
		target := []string{"x", "d/config"}[n%2]
		name, a := "write_file", map[string]any{"path": target, "content": "A\nwritten\n"}
		if n%4 >= 2 {
			name, a = "edit_file", map[string]any{"path": target, "old_string": "A\n", "new_string": "A\nedited\n"}
		}
		tool, cerr := reg.Check(name, args(t, a))
		if cerr != nil {
			t.Fatal(cerr.Message)
		}
		ctx := WithGuard(context.Background(), approveOnly{files: []string{target}})
		res, err := tool.Run(ctx, args(t, a))
		switch {
		case err == nil:
			counts[target].wrote++
			if len(res.Changes) != 1 || res.Changes[0].Path != target || !strings.Contains(res.Content, " "+target) {
				t.Errorf("%s %s wrote another file: %q", name, target, res.Content)
				if misses++; misses > 5 {
					t.FailNow()
				}
			}
		case strings.Contains(err.Error(), "refused: "),
			strings.Contains(err.Error(), "changed while Loupe was opening it"),
			strings.Contains(err.Error(), "is outside the workspace"):
			counts[target].refused++
		default:
			t.Fatalf("%s %s failed in an unexpected way: %v", name, target, err)
		}
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("%d calls in %v: x %+v, d/config %+v", n, time.Since(start).Round(time.Millisecond), *counts["x"], *counts["d/config"])
	if n < 500 {
		t.Errorf("only %d calls ran in the time allowed; the race needs at least 500", n)
	}
	for target, c := range counts {
		if c.wrote == 0 || c.refused == 0 {
			t.Errorf("%s: %+v; the flipper and the tool never met, so nothing was tested", target, *c)
		}
	}
	f.untouched(t)

	// Once the paths stay put, the approved files are written.
	for _, target := range []string{"x", "d/config"} {
		ctx := WithGuard(context.Background(), approveOnly{files: []string{target}})
		tool, _ := reg.Get("write_file")
		if _, err := tool.Run(ctx, args(t, map[string]any{"path": target, "content": "final\n"})); err != nil {
			t.Fatalf("write %s after the race: %v", target, err)
		}
		if got := readTestFile(t, filepath.Join(f.dir, filepath.FromSlash(target))); got != "final\n" {
			t.Errorf("%s = %q", target, got)
		}
	}
	f.untouched(t)
}
