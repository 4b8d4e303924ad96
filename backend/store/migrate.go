package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strconv"
)

// The schema is defined here and only here: numbered SQL files, applied in
// order, each in its own transaction. Never edit one that has shipped; add
// the next number.
//
//go:embed migrations/*.sql
var migrationFS embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

var migrationName = regexp.MustCompile(`^(\d{4})_([a-z0-9_]+)\.sql$`)

// loadMigrations reads the embedded migrations and checks that they are
// numbered 1, 2, 3… without gaps, so user_version N means "the first N
// migrations are applied".
func loadMigrations() ([]migration, error) {
	files, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return nil, fmt.Errorf("store: migrations: %w", err)
	}
	sort.Strings(files)
	migs := make([]migration, 0, len(files))
	for i, f := range files {
		base := f[len("migrations/"):]
		m := migrationName.FindStringSubmatch(base)
		if m == nil {
			return nil, fmt.Errorf("store: migration %s: name must look like 0001_name.sql", base)
		}
		v, _ := strconv.Atoi(m[1])
		if v != i+1 {
			return nil, fmt.Errorf("store: migration %s: expected number %04d", base, i+1)
		}
		b, err := migrationFS.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("store: migration %s: %w", base, err)
		}
		migs = append(migs, migration{version: v, name: m[2], sql: string(b)})
	}
	if len(migs) == 0 {
		return nil, fmt.Errorf("store: no migrations embedded")
	}
	return migs, nil
}

// migrate brings the database to the newest schema. The migrations it
// needs run in one IMMEDIATE transaction that re-reads user_version under
// the write lock, so two processes opening the same file apply each
// migration once, and a new database costs one commit, not one per
// migration (each is a wait on the disk before the first event).
func (s *Store) migrate(ctx context.Context, migs []migration) error {
	if err := s.checkHeader(ctx, len(migs)); err != nil {
		return err
	}
	return s.apply(ctx, migs)
}

// checkHeader repeats header.check on what the writer sees (see open).
func (s *Store) checkHeader(ctx context.Context, known int) error {
	return checkSQLiteHeader(ctx, s.w, s.path, known)
}

// checkSQLiteHeader repeats header.check on what SQLite reports through q.
// The raw header read in Open can be stale while the newest page 1 is in
// the WAL of a process that has the file open now.
func checkSQLiteHeader(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, path string, known int) error {
	var appID, userVersion, cookie int64
	row := q.QueryRowContext(ctx, `SELECT
		(SELECT application_id FROM pragma_application_id),
		(SELECT user_version FROM pragma_user_version),
		(SELECT schema_version FROM pragma_schema_version)`)
	if err := row.Scan(&appID, &userVersion, &cookie); err != nil {
		return fmt.Errorf("store: open %s: %w", path, err)
	}
	h := header{appID: uint32(appID), userVersion: uint32(userVersion), schemaCookie: uint32(cookie)}
	return h.check(path, known)
}

func (s *Store) apply(ctx context.Context, migs []migration) error {
	known := len(migs)
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: migrate %s: %w", s.path, err)
	}
	defer tx.Rollback()
	var current int64
	if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&current); err != nil {
		return fmt.Errorf("store: migrate %s: %w", s.path, err)
	}
	if uint32(current) > uint32(known) {
		return &OpenError{Path: s.path, Err: ErrNewerSchema, Schema: int(uint32(current)), Known: known}
	}
	if current >= int64(known) {
		return nil // nothing to write: the read lock is let go at once
	}
	for _, m := range migs {
		if current >= int64(m.version) {
			continue
		}
		// PRAGMA values cannot be bound parameters; both are our own integers.
		stmts := m.sql + fmt.Sprintf("\n;PRAGMA user_version = %d;\nPRAGMA application_id = %d;", m.version, int32(ApplicationID))
		if _, err := tx.ExecContext(ctx, stmts); err != nil {
			return fmt.Errorf("store: migration %04d_%s: %w", m.version, m.name, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: migrate %s to schema %d: %w", s.path, known, err)
	}
	return nil
}
