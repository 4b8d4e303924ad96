package permission

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/loupe-dev/loupe/backend/hands"
)

// What Loupe's own process judges of a path is judged of the folder it
// holds open and changes, never of a path looked up again: r is a
// repository (HEAD, objects, refs) when Loupe opens it to write r/config;
// r is then moved to r2 and a folder r with no HEAD put in its place. By
// path, r/config is no repository's file any more; the held folder is
// still the repository, and the write into it is refused. And the other
// way round: a folder that was no repository when it was opened and is one
// by the time of the write is judged as one.
func TestProtectedCheckJudgesTheFolderHeldOpen(t *testing.T) {
	for _, tc := range []struct {
		name string
		// before lays r out before it is opened; swap changes what is
		// at the path r once it is held.
		before, swap func(t *testing.T, ws string)
	}{
		{"a repository moved away for a plain folder", func(t *testing.T, ws string) { repoAt(t, filepath.Join(ws, "r")) }, func(t *testing.T, ws string) {
			must(t, os.Rename(filepath.Join(ws, "r"), filepath.Join(ws, "r2")))
			must(t, os.Mkdir(filepath.Join(ws, "r"), 0o755))
		}},
		{"a plain folder made a repository while held", func(t *testing.T, ws string) { must(t, os.Mkdir(filepath.Join(ws, "r"), 0o755)) }, func(t *testing.T, ws string) {
			held := filepath.Join(ws, "r")
			must(t, os.Rename(held, filepath.Join(ws, "r2")))
			must(t, os.Mkdir(held, 0o755))
			repoAt(t, filepath.Join(ws, "r2"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			tc.before(t, ws)
			root, err := hands.Open(ws, Policy{Workspace: ws}.ProtectedCheck())
			must(t, err)
			defer root.Close()
			d, name, err := root.OpenParent("r/config")
			must(t, err)
			defer d.Close()
			tc.swap(t, ws)
			err = d.WriteFile(name, []byte("[core]\n\tfsmonitor = touch RAN\n"), 0o644)
			var pe *hands.ProtectedError
			if !errors.As(err, &pe) {
				t.Fatalf("the write into the held repository r2 = %v, want it refused as protected", err)
			}
			if _, err := os.Lstat(filepath.Join(ws, "r2", "config")); err == nil {
				t.Fatal("config was written into the repository")
			}
		})
	}
}

func repoAt(t *testing.T, dir string) {
	t.Helper()
	for _, d := range []string{"objects", "refs"} {
		must(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	must(t, os.WriteFile(filepath.Join(dir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
}
