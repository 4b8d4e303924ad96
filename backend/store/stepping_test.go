package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"
)

type stepState struct {
	Stepping bool     `json:"stepping"`
	Points   []string `json:"points"`
}

// A session's Step mode saved by a Loupe of schema 5 (a settings row)
// moves into the session's row, and is gone with the session: nothing of
// a deleted session stays behind in settings.
func TestSteppingMovesIntoTheSessionAndGoesWithIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loupe.db")
	migs, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, path)
	for _, m := range migs[:5] {
		exec(t, db, m.sql)
	}
	exec(t, db, fmt.Sprintf(`PRAGMA user_version = 5; PRAGMA application_id = %d;`, int32(ApplicationID)))
	exec(t, db, `INSERT INTO sessions (id, title, created_at, updated_at, last_reason, last_seq) VALUES
		('kept', 'kept', 1, 1, '', 0), ('plain', 'plain', 1, 1, '', 0)`)
	exec(t, db, `INSERT INTO settings (key, value) VALUES
		('session/kept/debug', '{"stepping":true,"points":["before_tool"]}'),
		('session/gone/debug', '{"stepping":true}'),
		('settings', '{"step_mode":false}')`)
	db.Close()

	s := openAt(t, path)
	ctx := t.Context()
	var st stepState
	if ok, err := s.GetStepping(ctx, "kept", &st); err != nil || !ok || !st.Stepping || len(st.Points) != 1 {
		t.Fatalf("kept session's stepping after the migration: %+v, %v, %v", st, ok, err)
	}
	if ok, err := s.GetStepping(ctx, "plain", &stepState{}); err != nil || ok {
		t.Fatalf("a session with nothing saved reads as saved: %v, %v", ok, err)
	}
	var left int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM settings WHERE key LIKE 'session/%'`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("%d per-session settings rows left after the migration (%v)", left, err)
	}
	if ok, err := s.GetSetting(ctx, "settings", &map[string]any{}); err != nil || !ok {
		t.Fatalf("the app's own settings were lost: %v, %v", ok, err)
	}

	if err := s.PutStepping(ctx, "plain", stepState{Stepping: true}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteSession(ctx, "plain"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetStepping(ctx, "plain", &stepState{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("stepping of a deleted session: %v, want ErrNotFound", err)
	}
	if err := s.PutStepping(ctx, "plain", stepState{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("saving stepping for a deleted session: %v, want ErrNotFound", err)
	}
	var rows int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM settings`).Scan(&rows); err != nil || rows != 1 {
		t.Fatalf("settings rows after deleting a session: %d (%v), want only the app's", rows, err)
	}
}
