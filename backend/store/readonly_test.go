package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/trace"
)

func TestOpenReadOnlyRefusesAMissingFile(t *testing.T) {
	for _, name := range []string{"none.db", filepath.Join("no-such-folder", "none.db")} {
		dir := t.TempDir()
		path := filepath.Join(dir, name)
		s, err := OpenReadOnly(path)
		if err == nil {
			s.Close()
			t.Fatalf("%s: OpenReadOnly succeeded", name)
		}
		if !errors.Is(err, ErrNoDatabase) || err.Error() != "no Loupe database at "+path {
			t.Errorf("%s: error = %q, want ErrNoDatabase saying %q", name, err, "no Loupe database at "+path)
		}
		if after := snapshot(t, dir); len(after) != 0 {
			t.Errorf("%s: OpenReadOnly created %v", name, after)
		}
	}
}

// firstSchema makes, at path, a database of Loupe's first schema (only
// migration 0001 applied) and closes it: what an older Loupe left.
func firstSchema(t *testing.T) func(path string) {
	return func(path string) {
		db := rawDB(t, path)
		exec(t, db, must(loadMigrations())[0].sql)
		exec(t, db, fmt.Sprintf(`PRAGMA user_version = 1; PRAGMA application_id = %d`, int32(ApplicationID)))
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// A session with a run left open (a user_message, no run_end), written as
// the first schema's Loupe wrote it: no open_run column, which migration
// 0002 computes from the log.
const firstSchemaSession = `INSERT INTO sessions (id, title, workspace, model, created_at, updated_at, last_reason, last_seq)
	VALUES ('old', 'Old', '/w', 'm', 1, 2, '', 1);
	INSERT INTO events VALUES ('old', 1, 'user_message', 2, 1, 0, '{"text":"hi"}');
	INSERT INTO settings VALUES ('k', '"v"')`

// currentSchema makes, at path, a database of this build's schema with
// firstSchemaSession's session in it, and closes it.
func currentSchema(t *testing.T) func(path string) {
	return func(path string) {
		s, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		mustCreate(t, s, Session{ID: "old", Title: "Old"})
		mustAppend(t, s, in("old", trace.New(trace.KindUserMessage, 1, 0, trace.UserMessage{Text: "hi"})))
		if err := s.PutSetting(t.Context(), "k", "v"); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestOpenReadOnlyWritesNothing(t *testing.T) {
	// The states the files of a database can be found in: closed (the
	// main file alone), and left with commits only in the -wal by a
	// process that was killed or still has the file open, with or without
	// its -shm.
	type state struct {
		name string
		make func(t *testing.T) string
	}
	var states []state
	for _, schema := range []struct {
		name string
		base func(t *testing.T) func(path string)
		// data completes base: committed to the -wal in the left states.
		data string
	}{
		{"current schema", currentSchema, `UPDATE sessions SET title = 'Old'`},
		{"first schema", firstSchema, firstSchemaSession},
	} {
		states = append(states, state{schema.name + ", closed", func(t *testing.T) string {
			path := filepath.Join(t.TempDir(), "loupe.db")
			schema.base(t)(path)
			db := rawDB(t, path)
			exec(t, db, schema.data)
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			return path
		}})
		for _, keepSHM := range []bool{true, false} {
			states = append(states, state{fmt.Sprintf("%s, left in the WAL, -shm kept %v", schema.name, keepSHM), func(t *testing.T) string {
				return leftInWAL(t, schema.base(t), schema.data, keepSHM)
			}})
		}
	}

	for _, c := range states {
		t.Run(c.name, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp) // where the copy goes
			path := c.make(t)
			dir := filepath.Dir(path)
			before := snapshot(t, dir)
			if _, ok := before["loupe.db-wal"]; ok != strings.Contains(c.name, "left") {
				t.Fatalf("setup: files %v", before)
			}

			s, err := OpenReadOnly(path)
			if err != nil {
				t.Fatal(err)
			}
			if s.Path() != path {
				t.Errorf("Path() = %s, want %s", s.Path(), path)
			}
			// Read as this build reads it: the open run is known, as
			// migration 0002 finds it from the log.
			sess, err := s.GetSession(t.Context(), "old")
			if err != nil || sess.Title != "Old" || sess.EventCount != 1 || sess.OpenRun != 1 {
				t.Errorf("GetSession = %+v, %v", sess, err)
			}
			if evs, err := s.Events(t.Context(), "old"); err != nil || len(evs) != 1 || evs[0].Kind != trace.KindUserMessage {
				t.Errorf("Events = %+v, %v", evs, err)
			}
			if sets, err := s.ToolSets(t.Context(), "old"); err != nil || len(sets) != 0 {
				t.Errorf("ToolSets = %v, %v", sets, err)
			}
			var v string
			if ok, err := s.GetSetting(t.Context(), "k", &v); !ok || err != nil || v != "v" {
				t.Errorf("GetSetting = %q, %v, %v", v, ok, err)
			}
			// Writes fail, rather than change a copy that is thrown away.
			if err := s.PutSetting(t.Context(), "k", "w"); err == nil || !strings.Contains(err.Error(), "readonly") {
				t.Errorf("PutSetting: %v, want a read-only error", err)
			}
			if _, err := s.Append(t.Context(), in("old", trace.New(trace.KindUserMessage, 2, 0, trace.UserMessage{Text: "again"}))); err == nil {
				t.Error("Append succeeded")
			}
			if len(snapshot(t, tmp)) == 0 {
				t.Error("no copy in $TMPDIR while the store is open")
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}

			assertUnchanged(t, before, snapshot(t, dir))
			if left := snapshot(t, tmp); len(left) != 0 {
				t.Errorf("Close left %v in $TMPDIR", left)
			}
		})
	}
}

func TestOpenReadOnlyRefusesWhatOpenRefuses(t *testing.T) {
	known := len(must(loadMigrations()))
	cases := []struct {
		name   string
		change string
		want   error
	}{
		{"newer schema", fmt.Sprintf(`PRAGMA user_version = %d`, known+1), ErrNewerSchema},
		{"other application_id", `PRAGMA application_id = 305419896`, ErrForeignDatabase},
	}
	for _, c := range cases {
		for _, inWAL := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, in the WAL %v", c.name, inWAL), func(t *testing.T) {
				tmp := t.TempDir()
				t.Setenv("TMPDIR", tmp)
				var path string
				if inWAL {
					path = leftInWAL(t, loupeDB(t), c.change, true)
				} else {
					path = filepath.Join(t.TempDir(), "loupe.db")
					loupeDB(t)(path)
					exec(t, rawDB(t, path), c.change)
				}
				before := snapshot(t, filepath.Dir(path))
				s, err := OpenReadOnly(path)
				if err == nil {
					s.Close()
					t.Fatal("OpenReadOnly succeeded")
				}
				var oe *OpenError
				if !errors.Is(err, c.want) || !errors.As(err, &oe) || oe.Path != path {
					t.Errorf("error = %v, want %v about %s", err, c.want, path)
				}
				assertUnchanged(t, before, snapshot(t, filepath.Dir(path)))
				if left := snapshot(t, tmp); len(left) != 0 {
					t.Errorf("left %v in $TMPDIR", left)
				}
			})
		}
	}
}

func TestOpenReadOnlyRefusesAFileThatIsNotSQLite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(path, []byte(strings.Repeat("not a database\n", 20)), 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := OpenReadOnly(path); !errors.Is(err, ErrNotSQLite) {
		if s != nil {
			s.Close()
		}
		t.Fatalf("error = %v, want ErrNotSQLite", err)
	}
}

// While another connection (as another process would) appends to the log
// and checkpoints it, every OpenReadOnly reads one state of the file that
// was committed: a whole database, each session's log dense and as long as
// the session says. An attempt the writer keeps spoiling is refused with a
// message, never read half-copied.
func TestOpenReadOnlyWhileAnotherProcessWrites(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	path := filepath.Join(t.TempDir(), "loupe.db")
	w := openAt(t, path)
	mustCreate(t, w, Session{ID: "busy"})
	// Checkpoint often, so that the main file changes under the copy too.
	if _, err := w.w.Exec(`PRAGMA wal_autocheckpoint = 5`); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan error)
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			e := ev("busy", trace.KindUserMessage, fmt.Sprintf(`{"text":%q}`, strings.Repeat("x", 3000)))
			if _, err := w.Append(t.Context(), e); err != nil {
				done <- err
				return
			}
		}
	}()
	reads, refused := 0, 0
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); {
		s, err := OpenReadOnly(path)
		if err != nil {
			if !strings.Contains(err.Error(), "kept changing") {
				t.Fatal(err)
			}
			refused++
			continue
		}
		sess, err := s.GetSession(t.Context(), "busy")
		if err != nil {
			t.Fatal(err)
		}
		evs, err := s.Events(t.Context(), "busy")
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != sess.EventCount || !slices.Equal(seqs(evs), dense(len(evs))) {
			t.Fatalf("read %d events for a session of %d", len(evs), sess.EventCount)
		}
		var check string
		if err := s.r.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
			t.Fatalf("integrity_check of the copy: %s, %v", check, err)
		}
		s.Close()
		reads++
	}
	close(stop)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	t.Logf("%d reads, %d refused", reads, refused)
	if reads == 0 {
		t.Fatal("no read succeeded while the database was written")
	}
}
