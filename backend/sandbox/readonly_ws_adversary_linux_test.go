package sandbox

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// contents lists every path under dir with its type and, for files, a
// hash of what it holds.
func contents(t *testing.T, dir string) string {
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
		line := p + " " + fi.Mode().String()
		if d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			// A file's times too (a directory's change with what Loupe
			// makes to hold a path, and removes after).
			line += fmt.Sprintf(" %x %v", sha256.Sum256(b), fi.ModTime())
		}
		lines = append(lines, line)
		return nil
	})
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// Attack on a tried hook (ReadOnlyWorkspace): its view holds mounts
// below the workspace (pins above protected paths, a nested repository's
// git folder, a link held in place, what the policy hides); a write
// through any of them, or into a git folder, a subfolder or .loupe/, must
// fail like one at the root, and so must a change of a file's mode or
// times (a hook tried must leave the workspace as it is).
func TestAdversaryReadOnlyWorkspaceThroughEveryMount(t *testing.T) {
	needs(t, protections(t).Writes)
	ws := t.TempDir()
	for _, d := range []string{ws, filepath.Join(ws, "sub", "inner")} {
		if b, err := exec.Command("git", "init", "-q", d).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v: %s", err, b)
		}
	}
	os.RemoveAll(filepath.Join(ws, "sub", "inner", ".git", "hooks")) // a placeholder is made for it
	os.MkdirAll(filepath.Join(ws, ".loupe"), 0o755)
	os.WriteFile(filepath.Join(ws, ".loupe", "settings.json"), []byte("{}\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "sub", "f"), []byte("as it was\n"), 0o644)
	os.Symlink("sub", filepath.Join(ws, "sublink"))
	os.MkdirAll(filepath.Join(ws, "secrets"), 0o755)
	os.WriteFile(filepath.Join(ws, "secrets", "key"), []byte("k\n"), 0o600)
	os.Symlink("sub/inner/.git", filepath.Join(ws, "innergit"))
	before := contents(t, ws)
	var lines []string
	for i, p := range []string{
		".git/objects/x", ".git/refs/heads/x", ".git/x", ".git/info/exclude", ".git/HEAD",
		"sub/x", "sub/f", "sub/inner/x", "sub/inner/.git/x", "sub/inner/.git/hooks/pre-commit",
		"sub/inner/.git/objects/x", ".loupe/x", "sublink/x", "innergit/x", "innergit/hooks/x", "secrets/x", "secrets/key",
	} {
		lines = append(lines, fmt.Sprintf(`echo changed >> %s && echo "w%d=0" || echo "w%d=1"`, p, i, i))
	}
	lines = append(lines, `mkdir sub/inner/.git/hooks && echo "mk=0" || echo "mk=1"`,
		`mv sub/f sub/g && echo "mv=0" || echo "mv=1"`, `rm -rf sub/inner && echo "rm=0" || echo "rm=1"`,
		`touch -d 2000-01-01 sub/f && echo "touch=0" || echo "touch=1"`,
		`chmod 000 sub && echo "chmod=0" || echo "chmod=1"`)
	script := strings.Join(lines, "; ")
	for _, tc := range []struct {
		name   string
		adjust func(*probeResult)
	}{{"a view of its own", nil}, {"Landlock alone", func(pr *probeResult) { pr.best.MountNS = false }}} {
		t.Run(tc.name, func(t *testing.T) {
			c := Confined{Workspace: ws, ReadOnlyWorkspace: true, BestEffort: true, adjust: tc.adjust,
				Guard: func(rel string, isDir bool) Access {
					if rel == "secrets" {
						return Hidden
					}
					return Writable
				}}
			out, err := c.Run(context.Background(), Command{Dir: ws, Script: script, Timeout: 30 * time.Second})
			if tc.adjust != nil {
				// Landlock alone does not govern a file's mode or
				// times: the hook is not run at all.
				if !errors.Is(err, ErrNotConfined) {
					t.Errorf("err = %v (%q), want ErrNotConfined", err, out.Text)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(out.Text, "=0") {
				t.Errorf("a write in the workspace passed: %q", out.Text)
			}
			if got := contents(t, ws); got != before {
				t.Errorf("the workspace changed:\nbefore:\n%s\nafter:\n%s", before, got)
			}
		})
	}
}

// Attack on a tried hook: the workspace's lasting cache (mounted at
// ~/.cache, read by every later command's build) is outside the
// workspace, so ReadOnlyWorkspace alone would leave it writable; what a
// tried hook writes there would be what later builds run. A server's view
// leaves the cache out for that reason; a tried hook's must too.
func TestAdversaryReadOnlyWorkspaceWritesNoLastingCache(t *testing.T) {
	needs(t, protections(t).Writes)
	for _, tc := range []struct {
		name   string
		adjust func(*probeResult)
	}{{"a view of its own", nil}, {"Landlock alone", func(pr *probeResult) { pr.best.MountNS = false }}} {
		t.Run(tc.name, func(t *testing.T) {
			ws, cache := t.TempDir(), t.TempDir()
			c := Confined{Workspace: ws, CacheDir: cache, ReadOnlyWorkspace: true, BestEffort: true, adjust: tc.adjust}
			out, err := c.Run(context.Background(), Command{Dir: ws, Script: `mkdir -p "$XDG_CACHE_HOME/go-build" "$HOME/.cache/go-build"; echo poison > "$XDG_CACHE_HOME/go-build/x"; echo poison > "$HOME/.cache/go-build/y"; echo tried`, Timeout: 30 * time.Second})
			if tc.adjust != nil {
				if !errors.Is(err, ErrNotConfined) {
					t.Errorf("err = %v (%q), want ErrNotConfined", err, out.Text)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			t.Logf("%q", out.Text)
			if ents, _ := os.ReadDir(cache); len(ents) > 0 {
				t.Errorf("a read-only command wrote the workspace's lasting cache: %v", ents)
			}
		})
	}
}
