// Package store keeps Loupe's sessions, their append-only event logs and the
// app settings in one SQLite file (modernc.org/sqlite, no cgo).
//
// Writes go through a single connection; reads use a separate read-only
// pool. The schema is defined only by the embedded migrations, tracked by
// PRAGMA user_version, and the file is marked as Loupe's with PRAGMA
// application_id. A file that is not SQLite, belongs to another program, or
// was written by a newer Loupe is refused before anything is written to it.
// OpenReadOnly, for commands that only read (loupe export), creates,
// migrates and writes nothing: it reads a private copy of the file.
package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// ApplicationID marks a SQLite file as Loupe's (PRAGMA application_id):
// the bytes of "Loup".
const ApplicationID uint32 = 0x4C6F7570

// busyTimeout is how long (ms) a connection waits for another process (the
// window and `loupe run` may share a database) to release its lock.
const busyTimeout = "_pragma=busy_timeout(10000)"

// Errors that callers can test with errors.Is.
var (
	// ErrNotFound: the session does not exist.
	ErrNotFound = errors.New("not found")
	// ErrExists: a session with that ID already exists.
	ErrExists = errors.New("already exists")
	// ErrNotSQLite: the file is not a SQLite database at all.
	ErrNotSQLite = errors.New("not a SQLite database")
	// ErrForeignDatabase: the file is a SQLite database of another program.
	ErrForeignDatabase = errors.New("not a Loupe database")
	// ErrNewerSchema: the file was migrated by a newer Loupe than this one.
	ErrNewerSchema = errors.New("database schema is newer than this build")
	// ErrNoDatabase: OpenReadOnly was given a file that does not exist.
	ErrNoDatabase = errors.New("no Loupe database")
)

// OpenError says why Open or OpenReadOnly refused a file, in words a user
// can act on. It unwraps to ErrNotSQLite, ErrForeignDatabase,
// ErrNewerSchema or (OpenReadOnly only) ErrNoDatabase.
type OpenError struct {
	Path string
	Err  error
	// AppID is the file's application_id (ErrForeignDatabase).
	AppID uint32
	// Schema is the file's user_version and Known the newest migration this
	// build has (ErrNewerSchema).
	Schema, Known int
}

func (e *OpenError) Error() string {
	switch e.Err {
	case ErrForeignDatabase:
		return fmt.Sprintf("%s is not a Loupe database (application_id 0x%08x); choose another file with --db or LOUPE_DB", e.Path, e.AppID)
	case ErrNewerSchema:
		return fmt.Sprintf("%s was written by a newer Loupe (schema %d, this build knows %d); update Loupe or use another database", e.Path, e.Schema, e.Known)
	case ErrNotSQLite:
		return fmt.Sprintf("%s is not a SQLite database; choose another file with --db or LOUPE_DB", e.Path)
	case ErrNoDatabase:
		return fmt.Sprintf("no Loupe database at %s", e.Path)
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

func (e *OpenError) Unwrap() error { return e.Err }

// Store is an open Loupe database. It is safe for concurrent use.
type Store struct {
	path string
	// w is the only connection that writes. SQLite allows one writer at a
	// time; funnelling every write through one connection serialises them
	// in Go (database/sql queues callers for the connection) instead of
	// letting connections race for the lock and fail with SQLITE_BUSY.
	// Other processes on the same file are covered by busy_timeout.
	w *sql.DB
	// r is a pool of read-only connections; in WAL mode they read a
	// consistent snapshot without blocking the writer or each other.
	r *sql.DB
	// stmt holds the statements every run uses, prepared once (see
	// prepareStatements).
	stmt statements
	// now is the clock for created_at/updated_at and event times.
	now func() time.Time
	// tmp is the folder of the copy an OpenReadOnly store reads, removed
	// by Close; "" for Open's.
	tmp string
	// ix writes appended events' text into the search index in batches
	// (indexer.go); nil for an OpenReadOnly store.
	ix *indexer
	// trigramOnly makes Search find phrases with the trigram index alone,
	// as before the pairs index: what the benchmarks compare it with.
	trigramOnly bool
	// beatFailing is set while renewing this process's leases fails;
	// closed once Close is called (a beat after it has nothing to renew).
	beatFailing, closed atomic.Bool
}

// Open opens the database at path, creating it and its parent directories
// if needed, and migrates it to the newest schema. It refuses, without
// writing to it, a file that is not SQLite, belongs to another program, or
// has a newer schema than this build knows (see OpenError).
func Open(path string) (*Store, error) {
	migs, err := loadMigrations()
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("store: create database folder: %w", err)
	}

	// Look at the files before SQLite touches them: the writer's DSN
	// switches the journal to WAL, and closing SQLite's last connection
	// checkpoints the WAL into the main file, which are writes; opening a
	// connection creates the -shm or rebuilds the index in it. So a file
	// we must refuse is judged from its raw header and, since the newest
	// page 1 may be only there, from its WAL.
	if err := checkFiles(abs, len(migs)); err != nil {
		return nil, err
	}
	if _, err := os.Stat(abs); errors.Is(err, fs.ErrNotExist) {
		if err := createPrivate(abs); err != nil {
			return nil, err
		}
	}
	s, err := open(abs, migs)
	if err != nil {
		return nil, err
	}
	s.startIndexer()
	return s, nil
}

// open opens and migrates a database whose files passed Open's checks.
// SQLite's own view of the file is checked again, since another process
// may have changed it since: first on a read-only connection (the guard),
// which is kept open until the writer has checked and migrated. Having
// read the file, the guard holds SQLite's shared lock on it; SQLite
// checkpoints only when the last connection to a database closes, and a
// read-only one cannot checkpoint. So the main file and the WAL of a file
// refused here are not written either. Its -shm may have been: no
// connection to a WAL database reads it without the index in the -shm
// (creating it, or rebuilding it, when needed), except one opened with
// immutable=1, which takes no locks and may read a file another process
// is writing wrongly, and could not be a guard.
func open(abs string, migs []migration) (*Store, error) {
	ctx := context.Background()
	s := &Store{path: abs, now: time.Now}
	var err error
	s.r, err = sql.Open("sqlite", dsn(abs,
		"mode=ro", // SQLite refuses every write on these connections
		busyTimeout,
		// Search reads pages of the index all over the file; mapped, they
		// come from the OS's cache without a read call each.
		"_pragma=mmap_size(2147418112)", // SQLite's most on 64-bit Linux
	))
	if err != nil {
		return nil, fmt.Errorf("store: open %s for reading: %w", abs, err)
	}
	n := max(2, runtime.NumCPU())
	s.r.SetMaxOpenConns(n)
	// Keep the readers open: each one prepares the read statements the
	// first time it runs them, and a reader closed when idle would have
	// to open and prepare again.
	s.r.SetMaxIdleConns(n)
	guard, err := s.r.Conn(ctx)
	if err != nil {
		s.r.Close()
		return nil, fmt.Errorf("store: open %s for reading: %w", abs, err)
	}
	fail := func(err error) (*Store, error) {
		// The writer closes before the guard: it is not SQLite's last
		// connection, so it does not checkpoint.
		if s.w != nil {
			s.w.Close()
		}
		guard.Close()
		s.r.Close()
		return nil, err
	}
	if err := checkSQLiteHeader(ctx, guard, abs, len(migs)); err != nil {
		return fail(err)
	}

	s.w, err = sql.Open("sqlite", dsn(abs,
		busyTimeout, // first: the others may need to wait for a lock
		"_pragma=journal_mode(WAL)",
		"_pragma=synchronous(FULL)", // a commit is on disk when it returns
		"_pragma=foreign_keys(ON)",
		"_txlock=immediate", // BEGIN takes the write lock at once: no upgrade deadlocks
	))
	if err != nil {
		return fail(fmt.Errorf("store: open %s: %w", abs, err))
	}
	// See the comment on Store.w.
	s.w.SetMaxOpenConns(1)
	s.w.SetMaxIdleConns(1)
	s.w.SetConnMaxLifetime(0)
	s.w.SetConnMaxIdleTime(0)

	if err := s.migrate(ctx, migs); err != nil {
		return fail(err)
	}
	if err := guard.Close(); err != nil {
		return fail(fmt.Errorf("store: open %s for reading: %w", abs, err))
	}
	if err := s.r.PingContext(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("store: open %s for reading: %w", abs, err)
	}
	if err := s.prepareStatements(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("store: open %s: %w", abs, err)
	}
	return s, nil
}

// Path is the absolute path of the database file.
func (s *Store) Path() string { return s.path }

// Close closes the database. The readers close first so that the writer is
// the last connection and SQLite checkpoints and removes the WAL.
func (s *Store) Close() error {
	s.closed.Store(true)
	errs := []error{s.ix.close()}
	errs = append(errs, s.stmt.close())
	if s.r != nil {
		errs = append(errs, s.r.Close())
	}
	if s.w != nil {
		errs = append(errs, s.w.Close())
	}
	if s.tmp != "" {
		errs = append(errs, os.RemoveAll(s.tmp))
	}
	return errors.Join(errs...)
}

// dsn builds a file: URI for modernc.org/sqlite. SQLite decodes %XX in the
// path and ends it at '?' or '#', so those three characters are escaped; a
// leading '/' before a Windows drive letter is what SQLite expects there.
func dsn(abs string, params ...string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	p = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(p)
	return "file://" + p + "?" + strings.Join(params, "&")
}

// createPrivate creates an empty database file readable only by the user:
// sessions hold code and prompts. SQLite gives its -wal and -shm files the
// same permissions. An empty file is a valid empty database.
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil // someone else created it just now; it is checked later
	}
	if err != nil {
		return fmt.Errorf("store: create %s: %w", path, err)
	}
	return f.Close()
}

// header holds the fields of a database header that tell whose file it is.
type header struct {
	appID        uint32
	userVersion  uint32
	schemaCookie uint32 // nonzero once any table was ever created
}

const sqliteMagic = "SQLite format 3\x00"

// readHeader reads the 100-byte SQLite header (https://sqlite.org/fileformat.html).
// A missing file reports exists=false; an empty one is a valid empty database.
func readHeader(path string) (h header, exists bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return h, false, nil
	}
	if err != nil {
		return h, false, fmt.Errorf("store: %w", err)
	}
	defer f.Close()
	var b [100]byte
	n, err := io.ReadFull(f, b[:])
	switch {
	case n == 0 && err == io.EOF:
		return h, true, nil
	case err == io.ErrUnexpectedEOF:
		return h, true, &OpenError{Path: path, Err: ErrNotSQLite}
	case err != nil:
		return h, true, fmt.Errorf("store: read %s: %w", path, err)
	}
	if h, ok := parseHeader(b[:]); ok {
		return h, true, nil
	}
	return h, true, &OpenError{Path: path, Err: ErrNotSQLite}
}

// parseHeader reads the fields of a database header (at least 100 bytes);
// ok is false if b is not one.
func parseHeader(b []byte) (h header, ok bool) {
	if len(b) < 100 || string(b[:16]) != sqliteMagic {
		return h, false
	}
	return header{
		schemaCookie: binary.BigEndian.Uint32(b[40:]),
		userVersion:  binary.BigEndian.Uint32(b[60:]),
		appID:        binary.BigEndian.Uint32(b[68:]),
	}, true
}

// check decides whether Loupe may open (and migrate) a database with this
// header. A database without Loupe's application_id is accepted only while
// it is blank: every Loupe schema sets the id in its first migration.
func (h header) check(path string, known int) error {
	if h.appID != ApplicationID {
		if h.appID != 0 || h.userVersion != 0 || h.schemaCookie != 0 {
			return &OpenError{Path: path, Err: ErrForeignDatabase, AppID: h.appID}
		}
		return nil
	}
	if int64(h.userVersion) > int64(known) {
		return &OpenError{Path: path, Err: ErrNewerSchema, Schema: int(h.userVersion), Known: known}
	}
	return nil
}
