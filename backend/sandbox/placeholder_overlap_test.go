package sandbox

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/hands"
)

// What Loupe made to hold a path for a command must stay while any
// command runs that may see it, whatever the workspace it was made for:
// nested workspaces (a repository and its folders, opened by two sessions
// of one process) see each other's placeholders as read-only mounts, and
// removing one takes the mount away from every command that has it. Many
// commands of an outer workspace, two folders of it and a workspace beside
// it start and end at once (the outer one and a folder of it also named
// through a link, as a second session may name them), each making a placeholder in the folder all
// three nested ones share; each checks that every placeholder it found
// when it started is still there when it ends. The workspace beside is
// the control for the other way: its placeholder goes as soon as its own
// command ends, while the others still run.
func TestPlaceholdersWaitForEveryOverlappingWorkspace(t *testing.T) {
	outer := t.TempDir()
	shared := filepath.Join(outer, "a", "b")
	if err := os.MkdirAll(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	beside := t.TempDir()
	link := filepath.Join(t.TempDir(), "outer")
	if err := os.Symlink(outer, link); err != nil {
		t.Fatal(err)
	}
	type workspace struct{ ws, shared string }
	nested := []workspace{
		{outer, shared}, {filepath.Join(outer, "a"), shared}, {shared, shared},
		{link, filepath.Join(link, "a", "b")}, {filepath.Join(link, "a"), filepath.Join(link, "a", "b")},
	}
	var mu sync.Mutex
	var failures []string
	fail := func(f string, args ...any) {
		mu.Lock()
		failures = append(failures, fmt.Sprintf(f, args...))
		mu.Unlock()
	}
	command := func(ws, dir, name string) {
		_ = commandStarted(context.Background(), ws)
		root, err := hands.Open(ws, nil)
		if err != nil {
			commandEnded(ws)
			fail("open %s: %v", ws, err)
			return
		}
		rel, _ := within(ws, dir)
		made, err := holdDirs(root, filepath.ToSlash(filepath.Join(rel, name)))
		root.Close()
		if err != nil || len(made) != 1 {
			fail("hold %s in %s: %v (%d made)", name, ws, err, len(made))
		}
		seen, _ := filepath.Glob(filepath.Join(dir, "h-*"))
		time.Sleep(time.Duration(rand.IntN(3000)) * time.Microsecond)
		for _, p := range seen {
			if _, err := os.Lstat(p); err != nil {
				fail("%s was removed while a command of %s that had it in its view still ran", p, ws)
			}
		}
		commandEnded(ws)
		releasePlaceholders(ws, made)
	}
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 60 {
				n := nested[(w+i)%len(nested)]
				command(n.ws, n.shared, fmt.Sprintf("h-%d-%d", w, i))
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 60 {
			name := fmt.Sprintf("h-beside-%d", i)
			command(beside, beside, name)
			if _, err := os.Lstat(filepath.Join(beside, name)); err == nil {
				fail("%s stayed after its command ended, though no command that may see it ran", name)
			}
		}
	}()
	wg.Wait()
	releasePlaceholders(outer, nil)
	for _, f := range failures[:min(len(failures), 10)] {
		t.Error(f)
	}
	if len(failures) > 10 {
		t.Errorf("and %d more", len(failures)-10)
	}
	if left, _ := filepath.Glob(filepath.Join(shared, "h-*")); len(left) > 0 {
		t.Errorf("%d placeholders left in the user's tree once every command ended: %v", len(left), left[:1])
	}
}
