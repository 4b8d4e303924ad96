package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/dbfiles"
)

func TestMigrationsAreNumberedFromOne(t *testing.T) {
	migs, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range migs {
		if m.version != i+1 || m.sql == "" {
			t.Errorf("migration %d: version %d, %d bytes of SQL", i, m.version, len(m.sql))
		}
	}
}

func TestOpenFreshDatabase(t *testing.T) {
	// Parent folders that do not exist yet are created.
	path := filepath.Join(t.TempDir(), "a", "b", "loupe.db")
	s := openAt(t, path)
	ctx := t.Context()

	migs, _ := loadMigrations()
	var version, appID int64
	if err := s.w.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		t.Fatal(err)
	}
	if err := s.w.QueryRowContext(ctx, `PRAGMA application_id`).Scan(&appID); err != nil {
		t.Fatal(err)
	}
	if version != int64(len(migs)) {
		t.Errorf("user_version = %d, want %d", version, len(migs))
	}
	if uint32(appID) != ApplicationID {
		t.Errorf("application_id = %#x, want %#x", appID, ApplicationID)
	}
	for _, table := range []string{"sessions", "events", "settings"} {
		var n int
		if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?`, table).Scan(&n); err != nil || n != 1 {
			t.Errorf("table %s: count %d, err %v", table, n, err)
		}
	}
	if s.Path() != path {
		t.Errorf("Path() = %q, want %q", s.Path(), path)
	}
	if runtime.GOOS != "windows" { // Windows has no Unix permission bits
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if perm := fi.Mode().Perm(); perm != 0o600 {
			t.Errorf("database file mode %o, want 600", perm)
		}
	}
}

func TestOpenEmptyFile(t *testing.T) {
	// A zero-byte file is a valid, blank SQLite database: adopt it.
	path := filepath.Join(t.TempDir(), "loupe.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s := openAt(t, path)
	mustCreate(t, s, Session{Title: "works"})
}

func TestOpenPathNeedingEscapes(t *testing.T) {
	// '?', '#' and '%' are special in a file: URI; spaces are not.
	parent := t.TempDir()
	name := "we?ird #dir %41 x"
	if runtime.GOOS == "windows" {
		name = "we#ird %41 x" // '?' is not allowed in Windows names
	}
	path := filepath.Join(parent, name, "my db.sqlite")
	s := openAt(t, path)
	sess := mustCreate(t, s, Session{Title: "t"})
	s.Close()
	// The data went into that file, not into one named by a cut-off URI.
	if h, _, err := readHeader(path); err != nil || h.appID != ApplicationID {
		t.Fatalf("%s is not the Loupe database: %+v, %v", path, h, err)
	}
	if files := snapshot(t, parent); len(files) != 1 {
		t.Errorf("stray files next to the database folder: %v", slices.Collect(maps.Keys(files)))
	}
	s = openAt(t, path)
	if _, err := s.GetSession(t.Context(), sess.ID); err != nil {
		t.Fatalf("after reopen: %v", err)
	}
}

func TestPragmasInForce(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	pragma := func(name string) string {
		t.Helper()
		var v string
		if err := s.w.QueryRowContext(ctx, "PRAGMA "+name).Scan(&v); err != nil {
			t.Fatalf("PRAGMA %s: %v", name, err)
		}
		return v
	}
	for name, want := range map[string]string{
		"journal_mode": "wal",
		"synchronous":  "2", // FULL
		"foreign_keys": "1",
		"busy_timeout": "10000",
	} {
		if got := pragma(name); got != want {
			t.Errorf("writer PRAGMA %s = %s, want %s", name, got, want)
		}
	}
	if got := s.w.Stats().MaxOpenConnections; got != 1 {
		t.Errorf("writer MaxOpenConnections = %d, want 1", got)
	}

	// The read pool cannot write, even when asked to.
	if _, err := s.r.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES ('x', '1')`); err == nil {
		t.Error("insert through the read pool succeeded")
	}
	var bt int
	if err := s.r.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&bt); err != nil || bt != 10000 {
		t.Errorf("reader busy_timeout = %d (%v), want 10000", bt, err)
	}
}

func TestWriterTransactionsLockAtBegin(t *testing.T) {
	// _txlock=immediate: a transaction holds the write lock from BEGIN, so
	// the seq it reads cannot be changed by another writer before it commits.
	s := openTemp(t)
	tx, err := s.w.BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()

	other := rawDB(t, s.Path()+"?_pragma=busy_timeout(0)")
	_, err = other.Exec(`INSERT INTO settings (key, value) VALUES ('x', '1')`)
	if err == nil || !strings.Contains(err.Error(), "locked") {
		t.Fatalf("another connection could write while a transaction had only begun: err = %v", err)
	}
}

func TestReopenKeepsSessionsAndEvents(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loupe.db")
	s := openAt(t, path)
	ctx := t.Context()

	a := mustCreate(t, s, Session{Title: "first", Workspace: "/w/a", Model: "qwen3:0.6b"})
	b := mustCreate(t, s, Session{ID: "given-id", Title: "second"})
	// Payloads keep their exact bytes: spacing, key order, escapes, UTF-8.
	payloads := []string{
		`{"text":"hello"}`,
		`{ "z": 1,  "a" : [1, 2 ,3],"s":"\u00e9 é \n 🔍" }`,
		`{"reason":"answered","final_text":"done"}`,
		`null`,
		`"just a string"`,
	}
	kinds := []trace.Kind{trace.KindUserMessage, trace.KindModelResponse, trace.KindRunEnd, trace.KindNotice, trace.KindNotice}
	var want []trace.Event
	for i, p := range payloads {
		e := ev(a.ID, kinds[i], p)
		e.Run, e.Round = i, i*2
		if i == 1 {
			e.Time = time.Date(2025, 12, 31, 23, 59, 59, 999999999, time.FixedZone("x", 3600))
		}
		want = append(want, mustAppend(t, s, e))
	}
	mustAppend(t, s, ev(b.ID, trace.KindUserMessage, `{"text":"b"}`))
	if err := s.PutSetting(ctx, "theme", "dark"); err != nil {
		t.Fatal(err)
	}
	wantSessions, err := s.ListSessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	// A clean close checkpoints and removes the WAL.
	if _, err := os.Stat(path + "-wal"); !os.IsNotExist(err) {
		t.Errorf("WAL file left after Close: %v", err)
	}

	s = openAt(t, path)
	got, err := s.Events(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events after reopen differ:\n got %+v\nwant %+v", got, want)
	}
	for i := range got {
		if !bytes.Equal(got[i].Payload, []byte(payloads[i])) {
			t.Errorf("payload %d = %s, want %s", i, got[i].Payload, payloads[i])
		}
	}
	if got[1].Time.Location() != time.UTC || !got[1].Time.Equal(want[1].Time) {
		t.Errorf("time = %v, want %v in UTC", got[1].Time, want[1].Time)
	}
	gotSessions, err := s.ListSessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotSessions, wantSessions) {
		t.Errorf("sessions after reopen:\n got %+v\nwant %+v", gotSessions, wantSessions)
	}
	var theme string
	if ok, err := s.GetSetting(ctx, "theme", &theme); !ok || err != nil || theme != "dark" {
		t.Errorf("setting after reopen = %q, %v, %v", theme, ok, err)
	}
	// Seqs continue where they stopped.
	if e := mustAppend(t, s, ev(a.ID, trace.KindNotice, `{}`)); e.Seq != int64(len(payloads)+1) {
		t.Errorf("seq after reopen = %d, want %d", e.Seq, len(payloads)+1)
	}
}

// refusal opens path, expects it refused with sentinel, and checks that
// the folder holding it is exactly as it was: nothing written, nothing created.
func refusal(t *testing.T, path string, sentinel error) *OpenError {
	t.Helper()
	dir := filepath.Dir(path)
	before := snapshot(t, dir)
	s, err := Open(path)
	if err == nil {
		s.Close()
		t.Fatalf("Open(%s) succeeded, want %v", path, sentinel)
	}
	if !errors.Is(err, sentinel) {
		t.Fatalf("Open error = %v, want errors.Is %v", err, sentinel)
	}
	var oe *OpenError
	if !errors.As(err, &oe) {
		t.Fatalf("Open error %T is not an *OpenError", err)
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name the file", err)
	}
	assertUnchanged(t, before, snapshot(t, dir))
	return oe
}

func TestRefuseForeignFiles(t *testing.T) {
	cases := []struct {
		name     string
		make     func(t *testing.T, path string)
		sentinel error
		message  string // with FILE for the path
	}{{
		name: "other application_id",
		make: func(t *testing.T, path string) {
			db := rawDB(t, path)
			exec(t, db, `PRAGMA application_id = 305419896`) // 0x12345678
			exec(t, db, `CREATE TABLE notes (body TEXT)`)
			db.Close()
		},
		sentinel: ErrForeignDatabase,
		message:  "FILE is not a Loupe database (application_id 0x12345678); choose another file with --db or LOUPE_DB",
	}, {
		name: "negative application_id",
		make: func(t *testing.T, path string) {
			db := rawDB(t, path)
			exec(t, db, `PRAGMA application_id = -1`)
			db.Close()
		},
		sentinel: ErrForeignDatabase,
		message:  "FILE is not a Loupe database (application_id 0xffffffff); choose another file with --db or LOUPE_DB",
	}, {
		// Loupe sets its id in the same transaction as its first tables, so
		// tables without the id belong to someone else.
		name: "no application_id but tables",
		make: func(t *testing.T, path string) {
			db := rawDB(t, path)
			exec(t, db, `CREATE TABLE sessions (id TEXT)`)
			db.Close()
		},
		sentinel: ErrForeignDatabase,
		message:  "FILE is not a Loupe database (application_id 0x00000000); choose another file with --db or LOUPE_DB",
	}, {
		name: "text file",
		make: func(t *testing.T, path string) {
			os.WriteFile(path, bytes.Repeat([]byte("not a database at all\n"), 20), 0o600)
		},
		sentinel: ErrNotSQLite,
		message:  "FILE is not a SQLite database; choose another file with --db or LOUPE_DB",
	}, {
		name: "short file",
		make: func(t *testing.T, path string) {
			os.WriteFile(path, []byte("SQLite format 3\x00"), 0o600)
		},
		sentinel: ErrNotSQLite,
		message:  "FILE is not a SQLite database; choose another file with --db or LOUPE_DB",
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "other.db")
			c.make(t, path)
			oe := refusal(t, path, c.sentinel)
			if want := strings.ReplaceAll(c.message, "FILE", path); oe.Error() != want {
				t.Errorf("message:\n got %s\nwant %s", oe.Error(), want)
			}
		})
	}
}

func TestRefuseNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loupe.db")
	s := openAt(t, path)
	mustCreate(t, s, Session{Title: "kept"})
	s.Close()

	known := len(must(loadMigrations()))
	db := rawDB(t, path)
	exec(t, db, fmt.Sprintf(`PRAGMA user_version = %d`, known+5))
	db.Close() // last connection: checkpoints into the main file

	oe := refusal(t, path, ErrNewerSchema)
	want := fmt.Sprintf("%s was written by a newer Loupe (schema %d, this build knows %d); update Loupe or use another database", path, known+5, known)
	if oe.Error() != want {
		t.Errorf("message:\n got %s\nwant %s", oe.Error(), want)
	}
}

func TestRefuseNewerSchemaStillInWAL(t *testing.T) {
	// Another process has the database open and has raised user_version, but
	// the change is still in the WAL: the raw header looks old. SQLite's view
	// must still be checked, and the main file left alone.
	path := filepath.Join(t.TempDir(), "loupe.db")
	s := openAt(t, path)
	s.Close()

	other := rawDB(t, path)
	exec(t, other, `PRAGMA user_version = 99`) // stays open: no checkpoint
	h, _, err := readHeader(path)
	if err != nil {
		t.Fatal(err)
	}
	if h.userVersion == 99 {
		t.Fatal("setup: the change reached the main file; this test would not test the WAL case")
	}
	// The main file, its -wal and its -shm stay as they were.
	refusal(t, path, ErrNewerSchema)
	var v int
	if err := other.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != 99 {
		t.Errorf("user_version seen by the other process = %d, %v", v, err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestRefuseForeignTablesStillInWAL(t *testing.T) {
	// Another program's database, open right now, whose tables are still
	// only in its WAL: the raw header looks blank. Loupe must not add its
	// tables to it.
	path := filepath.Join(t.TempDir(), "other.db")
	other := rawDB(t, path)
	exec(t, other, `PRAGMA journal_mode = WAL`)
	exec(t, other, `CREATE TABLE notes (body TEXT)`)
	if h, _, err := readHeader(path); err != nil || h != (header{}) {
		t.Fatalf("setup: header %+v, %v; this test needs it to look blank", h, err)
	}

	refusal(t, path, ErrForeignDatabase)
	var n int
	if err := other.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name IN ('sessions', 'events', 'settings')`).Scan(&n); err != nil || n != 0 {
		t.Errorf("Loupe created %d tables in the other program's database (%v)", n, err)
	}
}

// leftInWAL builds, in a new folder, the files that a process killed after a
// commit but before any checkpoint leaves behind: base (if not nil) makes
// the database and closes it, so the main file holds it; change then
// commits through a connection that never checkpoints, and the main file,
// its -wal and (if keepSHM) its -shm are copied aside while that
// connection is still open. It returns the copy's path.
func leftInWAL(t *testing.T, base func(path string), change string, keepSHM bool) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "loupe.db")
	if base != nil {
		base(path)
	}
	db := rawDB(t, path+"?_pragma=journal_mode(WAL)&_pragma=wal_autocheckpoint(0)")
	exec(t, db, change)
	copyPath := dbfiles.CopyAside(t, path, keepSHM)
	db.Close()
	return copyPath
}

// loupeDB makes a Loupe database at path with one session, and closes it.
func loupeDB(t *testing.T) func(path string) {
	return func(path string) {
		s, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		mustCreate(t, s, Session{Title: "kept"})
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRefuseWhatIsOnlyInALeftWAL(t *testing.T) {
	// Nobody has the file open: the values that must be refused are only
	// in a -wal that a killed process left. SQLite would checkpoint them
	// into the main file when Loupe's connection closed, and create or
	// rebuild the -shm on opening; Loupe must touch none of the three.
	known := len(must(loadMigrations()))
	cases := []struct {
		name     string
		base     func(t *testing.T) func(string)
		change   string
		sentinel error
	}{
		{"newer schema", loupeDB, fmt.Sprintf(`PRAGMA user_version = %d`, known+5), ErrNewerSchema},
		{"other application_id", loupeDB, `PRAGMA application_id = 305419896`, ErrForeignDatabase},
		{"another program's tables", func(*testing.T) func(string) { return nil }, `CREATE TABLE notes (body TEXT)`, ErrForeignDatabase},
	}
	for _, c := range cases {
		for _, keepSHM := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s, -shm kept %v", c.name, keepSHM), func(t *testing.T) {
				path := leftInWAL(t, c.base(t), c.change, keepSHM)
				if h, _, err := readHeader(path); err != nil || h.check(path, known) != nil {
					t.Fatalf("setup: the main file alone would be refused (%+v, %v); this test needs the change only in the WAL", h, err)
				}
				if _, err := os.Stat(path + "-wal"); err != nil {
					t.Fatalf("setup: no WAL: %v", err)
				}
				refusal(t, path, c.sentinel)
			})
		}
	}
}

func TestOpenReadsWhatIsOnlyInALeftWAL(t *testing.T) {
	// The other side of the test above: a Loupe file whose newest commit
	// is only in its WAL is opened, and that commit is there.
	path := leftInWAL(t, loupeDB(t), `INSERT INTO sessions (id, title, workspace, model, created_at, updated_at, last_reason)
		VALUES ('only-in-wal', 't', '', '', 1, 1, '')`, false)
	s := openAt(t, path)
	if _, err := s.GetSession(t.Context(), "only-in-wal"); err != nil {
		t.Fatalf("the session committed to the WAL: %v", err)
	}
}

func TestReadWALHeader(t *testing.T) {
	known := len(must(loadMigrations()))
	path := leftInWAL(t, loupeDB(t), fmt.Sprintf(`PRAGMA user_version = %d`, known+7), true)
	h, found, err := readWALHeader(path)
	if err != nil || !found || h.userVersion != uint32(known+7) || h.appID != ApplicationID {
		t.Fatalf("readWALHeader = %+v, %v, %v; want user_version %d", h, found, err, known+7)
	}

	// A frame cut short (a crash in the middle of writing it) is not part
	// of the log, nor is anything after it.
	wal := must(os.ReadFile(path + "-wal"))
	pageSize := int(binary.BigEndian.Uint32(wal[8:]))
	if len(wal) != 32+(24+pageSize) {
		t.Fatalf("setup: %d bytes of WAL, want one frame of %d", len(wal), 24+pageSize)
	}
	if err := os.WriteFile(path+"-wal", wal[:len(wal)-1], 0o600); err != nil {
		t.Fatal(err)
	}
	if h, found, err := readWALHeader(path); err != nil || found {
		t.Errorf("torn frame: readWALHeader = %+v, %v, %v; want nothing found", h, found, err)
	}
	// So is a frame whose checksum does not match.
	wal[len(wal)-1] ^= 1
	if err := os.WriteFile(path+"-wal", wal, 0o600); err != nil {
		t.Fatal(err)
	}
	if h, found, err := readWALHeader(path); err != nil || found {
		t.Errorf("bad checksum: readWALHeader = %+v, %v, %v; want nothing found", h, found, err)
	}
	if _, found, err := readWALHeader(filepath.Join(t.TempDir(), "none.db")); found || err != nil {
		t.Errorf("no WAL: found %v, %v", found, err)
	}
}

func TestSQLiteCheckWritesNeitherMainFileNorWAL(t *testing.T) {
	// Another process may change the file between Open's look at its
	// files and SQLite's connections (here: open is called without that
	// look). SQLite's refusal still writes neither the main file nor the
	// WAL, because the read-only connection that checks first is open
	// while the writer closes, so the writer does not checkpoint. The
	// -shm is SQLite's to create and update on any connection.
	known := len(must(loadMigrations()))
	path := leftInWAL(t, loupeDB(t), fmt.Sprintf(`PRAGMA user_version = %d`, known+5), true)
	before := snapshot(t, filepath.Dir(path))
	s, err := open(path, must(loadMigrations()))
	if err == nil {
		s.Close()
		t.Fatal("open succeeded")
	}
	if !errors.Is(err, ErrNewerSchema) {
		t.Fatalf("open error = %v, want ErrNewerSchema", err)
	}
	after := snapshot(t, filepath.Dir(path))
	for _, name := range []string{"loupe.db", "loupe.db-wal"} {
		if b, ok := after[name]; !ok || b != before[name] {
			t.Errorf("%s changed or was removed (present %v)", name, ok)
		}
	}
}
