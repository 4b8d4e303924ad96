package hands

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// A command (running in parallel, or just before) swaps a directory for a
// link to .git or to a folder outside, over and over, with an atomic
// exchange; meanwhile Loupe's process renames, removes and writes in
// that directory through the layer. Whatever the timing, nothing outside
// the workspace and nothing in .git is renamed, removed or written.
func TestConcurrentSwapsCannotSteerRenamesOrRemovals(t *testing.T) {
	const iterations = 1000
	for _, target := range []string{"git", "outside"} {
		t.Run(target, func(t *testing.T) {
			bothResolvers(t, func(t *testing.T) {
				f := newFixture(t)
				ws := f.ws
				if err := os.Mkdir(ws+"/d", 0o755); err != nil {
					t.Fatal(err)
				}
				to := ws + "/.git"
				if target == "outside" {
					to = f.out
				}
				// Names the operations use exist where the link leads.
				for _, n := range []string{"victim", "repo", "f"} {
					f.put(t, to+"/"+n, secretText)
				}
				if err := os.Symlink(to, ws+"/dl"); err != nil {
					t.Fatal(err)
				}
				// The command's own writes go to the directory itself,
				// wherever the swaps put it.
				real, err := unix.Open(ws+"/d", unix.O_RDONLY|unix.O_DIRECTORY, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer unix.Close(real)
				r, err := Open(ws, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()

				var stop atomic.Bool
				var swaps atomic.Int64
				var wg sync.WaitGroup
				wg.Add(1)
				go func() {
					defer wg.Done()
					for !stop.Load() {
						// d and dl trade places: d is a link half the time.
						if err := unix.Renameat2(unix.AT_FDCWD, ws+"/d", unix.AT_FDCWD, ws+"/dl", unix.RENAME_EXCHANGE); err == nil {
							swaps.Add(1)
						}
					}
				}()
				for i := range iterations {
					// What a command left in d (when d is the directory).
					if fd, err := unix.Openat(real, "victim", unix.O_CREAT|unix.O_WRONLY, 0o644); err == nil {
						unix.Close(fd)
					}
					_ = unix.Mkdirat(real, "repo", 0o755)
					switch i % 4 {
					case 0:
						_ = r.RemoveFile("d/victim")
					case 1:
						if err := r.Rename("d/repo", "d/repo.moved"); err == nil {
							_ = r.Rename("d/repo.moved", "d/repo")
						}
					case 2:
						_ = r.WriteFile("d/f", []byte("written by Loupe"))
					case 3:
						_ = r.RemoveAll("d/repo")
					}
				}
				stop.Store(true)
				wg.Wait()
				if swaps.Load() < iterations/10 {
					t.Logf("only %d swaps happened", swaps.Load())
				}
				for p, want := range f.keep {
					got, err := os.ReadFile(p)
					if err != nil || !bytes.Equal(got, want) {
						t.Errorf("%s changed: %q, %v", p, got, err)
					}
				}
				for _, n := range []string{"repo.moved", "f.loupe"} {
					if _, err := os.Lstat(filepath.Join(to, n)); !errors.Is(err, fs.ErrNotExist) {
						t.Errorf("%s appeared where the link leads", n)
					}
				}
				ents := mustReadDir(t, to)
				for _, e := range ents {
					if _, kept := f.keep[filepath.Join(to, e.Name())]; !kept {
						t.Errorf("%s appeared where the link leads", e.Name())
					}
				}
			})
		})
	}
}
