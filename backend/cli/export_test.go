package cli_test

import (
	"bytes"
	"database/sql"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/cli"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/store"
)

func TestExportOfAMissingDatabaseCreatesNothing(t *testing.T) {
	e := setup(t)
	for _, name := range []string{"none.db", filepath.Join("x", "none.db")} {
		dir := t.TempDir()
		path := filepath.Join(dir, name)
		code, out, stderr := e.run("export", "abc", "--db", path)
		if want := "loupe: no Loupe database at " + path + "\n"; code != cli.ExitFailed || out != "" || stderr != want {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %d and %q", name, code, out, stderr, cli.ExitFailed, want)
		}
		if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
			t.Errorf("%s: export created %v (%v)", name, entries, err)
		}
	}
}

// An export reads the database and leaves its three files as they were,
// byte for byte (none created or removed), whatever state they are in and
// whatever the schema, while writing what an export that opened it as the
// window does would write.
func TestExportLeavesTheDatabaseAsItWas(t *testing.T) {
	e := setup(t)
	// This schema: a session the command line ran.
	e.srv.Script(ollamatest.Text("Hello **there**."))
	if code, _, stderr := e.run("run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "hi"); code != 0 {
		t.Fatal(stderr)
	}
	current := func(t *testing.T) string {
		path := filepath.Join(t.TempDir(), "loupe.db")
		copyFiles(t, e.db, path)
		return path
	}

	type dbState struct {
		name string
		make func(t *testing.T) string // the database's path
	}
	var states []dbState
	for _, schema := range []struct {
		name  string
		build func(t *testing.T) string
		// change is committed, and left in the -wal, in the left states.
		change string
	}{
		{"current schema", current, leftTitles},
		{"first schema", firstSchemaDB, leftTitles},
	} {
		states = append(states, dbState{schema.name + ", closed", schema.build})
		for _, keepSHM := range []bool{true, false} {
			states = append(states, dbState{fmt.Sprintf("%s, left in the WAL, -shm kept %v", schema.name, keepSHM), func(t *testing.T) string {
				return leftOpen(t, schema.build(t), schema.change, keepSHM)
			}})
		}
	}

	for _, s := range states {
		t.Run(s.name, func(t *testing.T) {
			t.Setenv("TMPDIR", t.TempDir())
			path := s.make(t)
			dir := filepath.Dir(path)
			before := folder(t, dir)
			want := exportsAsOpenDoes(t, dir)
			if len(want) == 0 {
				t.Fatal("setup: no sessions")
			}
			for _, x := range want {
				if left := strings.Contains(s.name, "left"); strings.Contains(x.out, "(left)") != left {
					t.Fatalf("setup: the change left in the WAL is in %s's %s export: %v, want %v", x.id, x.format, !left, left)
				}
			}
			for _, x := range want {
				code, out, stderr := e.run("export", x.id, "--db", path, "--format", x.format)
				if code != 0 {
					t.Fatalf("export %s as %s: exit %d: %s", x.id, x.format, code, stderr)
				}
				if out != x.out {
					t.Errorf("export %s as %s differs from the export of the database opened by store.Open:\n%s\nwant:\n%s", x.id, x.format, out, x.out)
				}
				if after := folder(t, dir); !maps.Equal(before, after) {
					for name := range before {
						if b, ok := after[name]; !ok || b != before[name] {
							t.Errorf("export %s as %s: %s changed or was removed (still there: %v)", x.id, x.format, name, ok)
						}
					}
					for name := range after {
						if _, ok := before[name]; !ok {
							t.Errorf("export %s as %s: %s was created", x.id, x.format, name)
						}
					}
					t.FailNow()
				}
			}
		})
	}
}

// leftTitles is the change left in the WAL: it shows in every export.
const leftTitles = `UPDATE sessions SET title = title || ' (left)'`

type export struct{ id, format, out string }

// exportsAsOpenDoes exports every session of the database in dir, in every
// format, from a copy of the folder opened by store.Open, as the window
// opens a database (migrating an older one): what loupe export must
// write.
func exportsAsOpenDoes(t *testing.T, dir string) []export {
	t.Helper()
	cp := t.TempDir()
	for name, b := range folder(t, dir) {
		if err := os.WriteFile(filepath.Join(cp, name), []byte(b), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	st, err := store.Open(filepath.Join(cp, "loupe.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	list, err := st.ListSessions(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var out []export
	for _, s := range list {
		for _, format := range []string{"json", "md", "html"} {
			var b bytes.Buffer
			if err := session.Export(t.Context(), st, s.ID, format, &b); err != nil {
				t.Fatal(err)
			}
			out = append(out, export{s.ID, format, b.String()})
		}
	}
	return out
}

// firstSchemaDB builds, in a new folder, the database of Loupe's first
// schema kept in backend/session/testdata/schema1 (see olddb_test.go
// there), in WAL mode as Loupe wrote it, and closes it.
func firstSchemaDB(t *testing.T) string {
	t.Helper()
	dump, err := os.ReadFile(filepath.Join("..", "session", "testdata", "schema1", "loupe.sql"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "loupe.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range []string{
		string(dump),
		fmt.Sprintf(`PRAGMA user_version = 1; PRAGMA application_id = %d;`, int32(store.ApplicationID)),
		`PRAGMA journal_mode = WAL`,
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("building the old database: %v", err)
		}
	}
	var v int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != 1 {
		t.Fatalf("setup: user_version %d, %v", v, err)
	}
	return path
}

// leftOpen makes, in a new folder, the files of the database at path that
// a process which committed change and was killed before any checkpoint
// leaves: the main file, the -wal with change in it and, if keepSHM, the
// -shm.
func leftOpen(t *testing.T, path, change string, keepSHM bool) string {
	t.Helper()
	db, err := sql.Open("sqlite", path+"?_pragma=wal_autocheckpoint(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(change); err != nil {
		t.Fatalf("%s: %v", change, err)
	}
	left := filepath.Join(t.TempDir(), "loupe.db")
	copyFiles(t, path, left)
	if !keepSHM {
		if err := os.Remove(left + "-shm"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(left + "-wal"); err != nil {
		t.Fatalf("setup: %v", err)
	}
	return left
}

// copyFiles copies the database at src, with its -wal and -shm if there
// are any, to dst.
func copyFiles(t *testing.T, src, dst string) {
	t.Helper()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		b, err := os.ReadFile(src + suffix)
		if suffix != "" && os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst+suffix, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}
