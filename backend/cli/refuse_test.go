package cli_test

import (
	"database/sql"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/cli"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/testkit/dbfiles"
)

// leftInWAL makes a Loupe database with one session, then commits change
// through a connection that never checkpoints and copies the database, its
// -wal and (if keepSHM) its -shm aside while that connection is open: the
// files a process killed before its checkpoint leaves. It returns the
// copy's path. The change is only in the copy's -wal.
func leftInWAL(t *testing.T, change string, keepSHM bool) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "loupe.db")
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateSession(t.Context(), store.Session{Title: "kept"}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path+"?_pragma=wal_autocheckpoint(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(change); err != nil {
		t.Fatalf("%s: %v", change, err)
	}
	return dbfiles.CopyAside(t, path, keepSHM)
}

// folder is the names and bytes of the files in dir.
func folder(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

func TestRunAndExportWriteNothingToARefusedDatabase(t *testing.T) {
	e := setup(t)
	cases := []struct{ name, change, says string }{
		{"newer schema", `PRAGMA user_version = 999`, "was written by a newer Loupe (schema 999"},
		{"other application_id", `PRAGMA application_id = 305419896`, "is not a Loupe database (application_id 0x12345678)"},
	}
	for _, c := range cases {
		for _, keepSHM := range []bool{true, false} {
			for _, cmd := range []string{"run", "export"} {
				t.Run(fmt.Sprintf("%s %s, -shm kept %v", cmd, c.name, keepSHM), func(t *testing.T) {
					path := leftInWAL(t, c.change, keepSHM)
					dir := filepath.Dir(path)
					before := folder(t, dir)
					if _, ok := before["loupe.db-wal"]; !ok {
						t.Fatalf("setup: no WAL in %v", slices.Sorted(maps.Keys(before)))
					}
					args := []string{"export", "--db", path, "some-id"}
					if cmd == "run" {
						args = []string{"run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", path, "hi"}
					}
					code, _, stderr := e.run(args...)
					if code != cli.ExitFailed || !strings.Contains(stderr, c.says) {
						t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, cli.ExitFailed, c.says)
					}
					after := folder(t, dir)
					if !maps.Equal(before, after) {
						for name := range maps.Keys(before) {
							if b, ok := after[name]; !ok || b != before[name] {
								t.Errorf("%s changed or was removed (still there: %v)", name, ok)
							}
						}
						for name := range maps.Keys(after) {
							if _, ok := before[name]; !ok {
								t.Errorf("%s was created", name)
							}
						}
					}
				})
			}
		}
	}
	if n := len(e.srv.Requests()); n != 0 {
		t.Errorf("loupe run asked Ollama %d times about a database it refused", n)
	}
}
