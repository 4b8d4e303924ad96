package store

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/loupe-dev/loupe/backend/trace"
)

// A database written with the first schema opens: its sessions and events
// are kept as they were, and the sessions whose last run has no run_end
// are the ones recovery will look at.
func TestMigrateFromFirstSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loupe.db")
	migs, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, path)
	exec(t, db, migs[0].sql)
	exec(t, db, fmt.Sprintf(`PRAGMA user_version = 1; PRAGMA application_id = %d;`, int32(ApplicationID)))
	exec(t, db, `INSERT INTO sessions (id, title, created_at, updated_at, last_reason, last_seq) VALUES
		('closed', 'closed', 1, 1, 'answered', 4),
		('open', 'open', 1, 2, '', 5),
		('empty', 'empty', 1, 3, '', 0)`)
	exec(t, db, `INSERT INTO events (session_id, seq, kind, time, run, round, payload) VALUES
		('closed', 1, 'user_message', 1, 1, 0, '{"text":"a"}'),
		('closed', 2, 'run_end', 1, 1, 1, '{"reason":"answered","rounds":1}'),
		('closed', 3, 'user_message', 1, 2, 0, '{"text":"b"}'),
		('closed', 4, 'run_end', 1, 2, 1, '{"reason":"answered","rounds":1}'),
		('open', 1, 'user_message', 1, 1, 0, '{"text":"a"}'),
		('open', 2, 'run_end', 1, 1, 1, '{"reason":"answered","rounds":1}'),
		('open', 3, 'user_message', 1, 2, 0, '{"text":"b"}'),
		('open', 4, 'model_request', 1, 2, 1, '{"model":"m"}'),
		('open', 5, 'notice', 1, 2, 1, '{"code":"x","message":""}')`)
	db.Close()

	s := openAt(t, path)
	ctx := t.Context()
	list, err := s.ListSessions(ctx)
	if err != nil || len(list) != 3 {
		t.Fatalf("ListSessions = %+v, %v", list, err)
	}
	open, err := s.OpenSessions(ctx)
	if err != nil || len(open) != 1 || open[0].ID != "open" || open[0].OpenRun != 2 {
		t.Fatalf("OpenSessions = %+v, %v; want session open, run 2", open, err)
	}
	if evs, err := s.Events(ctx, "closed"); err != nil || len(evs) != 4 || evs[3].Kind != trace.KindRunEnd {
		t.Fatalf("events kept: %+v, %v", evs, err)
	}
	// It goes on as a new database would.
	mustAppend(t, s, in("open", trace.New(trace.KindRunEnd, 2, 1, trace.RunEnd{Reason: trace.EndInterrupted})))
	if open, _ := s.OpenSessions(ctx); len(open) != 0 {
		t.Fatalf("open sessions after the run_end: %+v", open)
	}
	if id, err := s.PutToolSet(ctx, "closed", []byte(`[]`)); err != nil || id != 1 {
		t.Fatalf("PutToolSet after the migration: %d, %v", id, err)
	}
}
