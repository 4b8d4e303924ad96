//go:build unix

package permission

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/tools"
)

// TestDecidedThenSwapped is the order the agent runs a message in: the
// policy decides write_file and edit_file of x and d/config while they
// are a plain file and a plain directory, and only then do the calls run,
// again and again, while another goroutine keeps swapping x for a symlink
// to .git/config or Loupe's database and d for a symlink to .git (with a
// moment where d is missing). The guard from the decision must keep the
// tools off the protected files: each run writes the approved file or is
// refused, and the protected files stay the same files, byte for byte.
func TestDecidedThenSwapped(t *testing.T) {
	ws := t.TempDir()
	db := filepath.Join(ws, "loupe.db")
	files := map[string]string{".git/config": "A\n[core]\n", "loupe.db": "SQLite format 3\x00A\n", "x": "A\n", "d/config": "A\n"}
	for name, content := range files {
		p := filepath.Join(ws, filepath.FromSlash(name))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(content), 0o644))
	}
	protected := []string{filepath.Join(ws, ".git", "config"), db}
	before := map[string]os.FileInfo{}
	for _, p := range protected {
		fi, err := os.Lstat(p)
		must(t, err)
		before[p] = fi
	}

	p := Policy{Mode: ModeAuto, Workspace: ws, ProtectedFiles: []string{db}}
	w, err := tools.OpenWorkspace(ws)
	must(t, err)
	defer w.Close()
	reg := tools.Builtins(w, nil)
	type planned struct {
		tool  tools.Tool
		args  json.RawMessage
		guard *CallGuard
		path  string
	}
	var calls []planned
	for _, c := range []struct{ name, args string }{
		{"write_file", `{"path":"x","content":"A\nwritten\n"}`},
		{"edit_file", `{"path":"x","old_string":"A\n","new_string":"A\nedited\n"}`},
		{"write_file", `{"path":"d/config","content":"A\nwritten\n"}`},
		{"edit_file", `{"path":"d/config","old_string":"A\n","new_string":"A\nedited\n"}`},
	} {
		tool, cerr := reg.Check(c.name, json.RawMessage(c.args))
		if cerr != nil {
			t.Fatal(cerr.Message)
		}
		call, err := CallFor(c.name, json.RawMessage(c.args), false)
		must(t, err)
		d, g := p.DecideGuarded(call)
		if d.Verdict != Run {
			t.Fatalf("%s %s: %v %q", c.name, c.args, d.Verdict, d.Reasons)
		}
		calls = append(calls, planned{tool, json.RawMessage(c.args), g, call.Paths[0]})
	}

	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // x: a plain file, then a symlink, each swapped in by rename
		defer wg.Done()
		x := filepath.Join(ws, "x")
		for i := 0; !stop.Load(); i++ {
			os.Remove(x + ".lnk")
			os.Symlink([]string{".git/config", "loupe.db"}[i%2], x+".lnk")
			os.Rename(x+".lnk", x)
			time.Sleep(time.Duration(i%3) * 10 * time.Microsecond)
			os.WriteFile(x+".pln", []byte("A\n"), 0o644)
			os.Rename(x+".pln", x)
			time.Sleep(time.Duration(i%4) * 10 * time.Microsecond)
		}
	}()
	go func() { // d: moved away, replaced by a symlink to .git, moved back
		defer wg.Done()
		d := filepath.Join(ws, "d")
		for i := 0; !stop.Load(); i++ {
			if os.Rename(d, d+".real") != nil {
				continue
			}
			os.Symlink(".git", d)
			time.Sleep(time.Duration(i%3) * 10 * time.Microsecond)
			os.Remove(d)
			for os.Rename(d+".real", d) != nil {
				// A write made d while it was missing (again, on a
				// loaded machine, between the removal and the rename:
				// left there, d.real would stop every later swap).
				os.RemoveAll(d)
			}
			time.Sleep(time.Duration(i%4) * 10 * time.Microsecond)
		}
	}()

	wrote, refused := map[string]int{}, map[string]int{}
	start := time.Now()
	n, misses := 0, 0
	// met: each path was both written and refused, so the swaps and the
	// tools did meet. A loaded machine may need more than 2,000 runs.
	met := func() bool {
		return wrote["x"] > 0 && refused["x"] > 0 && wrote["d/config"] > 0 && refused["d/config"] > 0
	}
	for ; (n < 2000 || !met()) && time.Since(start) < 30*time.Second; n++ {
		c := calls[n%len(calls)]
		res, err := c.tool.Run(tools.WithGuard(context.Background(), c.guard), c.args)
		switch {
		case err == nil:
			wrote[c.path]++
			if len(res.Changes) != 1 || res.Changes[0].Path != c.path {
				t.Errorf("%s changed another file: %q", c.args, res.Content)
				if misses++; misses > 5 {
					t.FailNow()
				}
			}
		case strings.Contains(err.Error(), "refused: "),
			strings.Contains(err.Error(), "changed while Loupe was opening it"),
			strings.Contains(err.Error(), "does not exist"): // edit_file while d was away
			refused[c.path]++
		default:
			t.Errorf("%s failed in an unexpected way: %v", c.args, err)
			if misses++; misses > 5 {
				t.FailNow()
			}
		}
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("%d runs in %v: wrote %v, refused %v", n, time.Since(start).Round(time.Millisecond), wrote, refused)
	if n < 500 {
		t.Errorf("only %d runs in the time allowed; the race needs at least 500", n)
	}
	for _, path := range []string{"x", "d/config"} {
		if wrote[path] == 0 || refused[path] == 0 {
			t.Errorf("%s: wrote %d, refused %d; the swaps and the tools never met", path, wrote[path], refused[path])
		}
	}
	for _, p := range protected {
		fi, err := os.Lstat(p)
		if err != nil || !os.SameFile(fi, before[p]) {
			t.Errorf("%s was replaced (%v)", p, err)
			continue
		}
		if b, _ := os.ReadFile(p); !bytes.Equal(b, []byte(files[filepath.ToSlash(strings.TrimPrefix(p, ws+string(filepath.Separator)))])) {
			t.Errorf("%s changed to %q", p, b)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(ws, ".git"))
	if len(entries) != 1 {
		t.Errorf(".git holds %d entries, want only config", len(entries))
	}
	filepath.WalkDir(ws, func(p string, e os.DirEntry, err error) error {
		if err == nil && strings.Contains(e.Name(), ".loupe-") {
			t.Errorf("left behind: %s", p)
		}
		return nil
	})
}
