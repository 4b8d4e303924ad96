package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/cli"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/store"
)

// loupe export --format json, then loupe import into another database,
// then export again: the same file. A second import says which flag to
// pass; --skip leaves it, --as-new keeps both.
func TestImportWhatExportWrote(t *testing.T) {
	e := setup(t)
	e.srv.Script(ollamatest.Text("Hello there."))
	// On the local host: an address a session was given on one machine
	// is not kept by an import into another (see the test below).
	t.Setenv("OLLAMA_HOST", e.srv.URL())
	if code, _, stderr := e.run("run", "--workspace", e.ws, "--model", "scripted", "--db", e.db, "hi"); code != 0 {
		t.Fatal(stderr)
	}
	st, err := store.Open(e.db)
	if err != nil {
		t.Fatal(err)
	}
	list, err := st.ListSessions(t.Context())
	st.Close()
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions %v, %v", list, err)
	}
	id := list[0].ID
	file := filepath.Join(t.TempDir(), "session.json")
	if code, _, stderr := e.run("export", id, "--format", "json", "--out", file, "--db", e.db); code != 0 {
		t.Fatal(stderr)
	}
	other := filepath.Join(t.TempDir(), "other.db")
	code, out, stderr := e.run("import", file, "--db", other)
	if code != 0 || out != "imported session "+id+" (\"hi\"): 4 events\n" || stderr != "" {
		t.Fatalf("import: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	again := filepath.Join(t.TempDir(), "again.json")
	if code, _, stderr := e.run("export", id, "--format", "json", "--out", again, "--db", other); code != 0 {
		t.Fatal(stderr)
	}
	a, _ := os.ReadFile(file)
	b, _ := os.ReadFile(again)
	if string(a) != string(b) {
		t.Fatal("export → import → export is not the same file")
	}

	code, out, stderr = e.run("import", file, "--db", other)
	if code != cli.ExitFailed || out != "" || !strings.Contains(stderr, "is in this database already: nothing was imported; pass --as-new to keep both") || !strings.Contains(stderr, "--skip") {
		t.Fatalf("second import: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	if code, out, _ := e.run("import", file, "--skip", "--db", other); code != 0 || !strings.HasPrefix(out, "skipped: session "+id) {
		t.Fatalf("--skip: exit %d, %q", code, out)
	}
	code, out, _ = e.run("import", "--as-new", file, "--db", other)
	if code != 0 || !strings.HasPrefix(out, "imported session ") || strings.Contains(out, id) {
		t.Fatalf("--as-new: exit %d, %q", code, out)
	}
	if code, _, stderr := e.run("import", file, "--as-new", "--skip", "--db", other); code != cli.ExitUsage || !strings.Contains(stderr, "not both") {
		t.Fatalf("both flags: exit %d, %q", code, stderr)
	}
	// A file that is not an export says so, and where.
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, a[:len(a)/2], 0o644)
	if code, _, stderr := e.run("import", bad, "--db", filepath.Join(t.TempDir(), "fresh.db")); code != cli.ExitFailed || !strings.Contains(stderr, "cut short") || !strings.Contains(stderr, "at byte ") {
		t.Fatalf("cut file: exit %d, %q", code, stderr)
	}
}

// A session run on an address (--host URL) imported into another database
// runs there on the local host, and the import says what the file named.
func TestImportSaysTheFilesHostIsNotKept(t *testing.T) {
	e := setup(t)
	e.srv.Script(ollamatest.Text("Hello there."))
	if code, _, stderr := e.run("run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "hi"); code != 0 {
		t.Fatal(stderr)
	}
	st, err := store.Open(e.db)
	if err != nil {
		t.Fatal(err)
	}
	list, err := st.ListSessions(t.Context())
	st.Close()
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions %v, %v", list, err)
	}
	file := filepath.Join(t.TempDir(), "session.json")
	if code, _, stderr := e.run("export", list[0].ID, "--format", "json", "--out", file, "--db", e.db); code != 0 {
		t.Fatal(stderr)
	}
	code, _, stderr := e.run("import", file, "--db", filepath.Join(t.TempDir(), "other.db"))
	if code != 0 || !strings.Contains(stderr, e.srv.URL()) || !strings.Contains(stderr, "local host") {
		t.Fatalf("import of a session on %s: exit %d, stderr %q; want it said that it runs on the local host", e.srv.URL(), code, stderr)
	}
}
