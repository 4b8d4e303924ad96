package cli_test

import (
	"database/sql"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/loupe-dev/loupe/backend/cli"
	"github.com/loupe-dev/loupe/backend/store"
)

// A session that could not start is removed; when the database will not
// remove it, loupe run says so instead of leaving it without a word.
func TestASessionThatCannotBeRemovedIsSaid(t *testing.T) {
	e := setup(t)
	st, err := store.Open(e.db)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	db, err := sql.Open("sqlite", "file:"+e.db+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TRIGGER keep_sessions BEFORE DELETE ON sessions BEGIN SELECT RAISE(ABORT, 'sessions cannot be deleted'); END`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	code, _, stderr := e.run("run", "--workspace", e.ws, "--model", "missing", "--host", e.srv.URL(), "--db", e.db, "hi")
	if code != cli.ExitFailed {
		t.Fatalf("exit %d, want %d: %s", code, cli.ExitFailed, stderr)
	}
	if !strings.Contains(stderr, "the session that could not start is left in the database") || !strings.Contains(stderr, "sessions cannot be deleted") {
		t.Fatalf("stderr does not say the session was left:\n%s", stderr)
	}
}
