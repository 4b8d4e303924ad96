package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/loupe-dev/loupe/backend/trace"
)

// 0009 counts the rounds of the sessions written before it (requests for a
// summary left out), and the trigger counts the rest as they are written.
func TestRoundsCountedByTheMigrationAndAfter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loupe.db")
	migs, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, path)
	for _, m := range migs[:7] {
		exec(t, db, m.sql)
	}
	exec(t, db, fmt.Sprintf(`PRAGMA user_version = 7; PRAGMA application_id = %d;`, int32(ApplicationID)))
	exec(t, db, `INSERT INTO sessions (id, title, created_at, updated_at, last_reason, last_seq) VALUES ('old', 'old', 1, 1, 'answered', 5)`)
	exec(t, db, `INSERT INTO events (session_id, seq, kind, time, run, round, payload) VALUES
		('old', 1, 'user_message', 1, 1, 0, '{"text":"a"}'),
		('old', 2, 'model_request', 1, 1, 1, '{"model":"m"}'),
		('old', 3, 'model_request', 1, 1, 1, '{"model":"m","purpose":"compaction"}'),
		('old', 4, 'model_request', 1, 1, 2, '{"model":"m"}'),
		('old', 5, 'run_end', 1, 1, 2, '{"reason":"answered","rounds":2}')`)
	db.Close()

	s := openAt(t, path)
	ctx := t.Context()
	old, err := s.GetSession(ctx, "old")
	if err != nil || old.Rounds != 2 || old.Pinned || old.CopiedFrom != "" {
		t.Fatalf("after the migration: %+v, %v; want 2 rounds", old, err)
	}
	mustAppend(t, s, in("old", trace.New(trace.KindUserMessage, 2, 0, trace.UserMessage{Text: "b"})))
	mustAppend(t, s, in("old", trace.New(trace.KindModelRequest, 2, 1, trace.ModelRequest{Model: "m"})))
	mustAppend(t, s, in("old", trace.New(trace.KindModelRequest, 2, 1, trace.ModelRequest{Model: "m", Purpose: "compaction"})))
	if got, _ := s.GetSession(ctx, "old"); got.Rounds != 3 {
		t.Errorf("rounds after one more request and a compaction's = %d, want 3", got.Rounds)
	}
}

// Renaming and pinning are no activity: the session keeps its place by
// time, and pinned ones are listed first.
func TestRenameAndPinKeepUpdatedAt(t *testing.T) {
	s := openTemp(t)
	clock := newFakeClock()
	s.now = clock.Now
	ctx := t.Context()
	a := mustCreate(t, s, Session{Title: "a"})
	b := mustCreate(t, s, Session{Title: "b"})

	r, err := s.RenameSession(ctx, a.ID, "renamed")
	if err != nil || r.Title != "renamed" || !r.UpdatedAt.Equal(a.UpdatedAt) {
		t.Fatalf("RenameSession = %+v, %v; want the title changed and updated_at kept", r, err)
	}
	p, err := s.SetPinned(ctx, a.ID, true)
	if err != nil || !p.Pinned || !p.UpdatedAt.Equal(a.UpdatedAt) {
		t.Fatalf("SetPinned = %+v, %v", p, err)
	}
	list, err := s.ListSessions(ctx)
	if err != nil || len(list) != 2 || list[0].ID != a.ID || list[1].ID != b.ID {
		t.Fatalf("list = %+v, %v; want the pinned, older one first", list, err)
	}
	if _, err := s.RenameSession(ctx, "nope", "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("rename of a missing session: %v", err)
	}
	if _, err := s.SetPinned(ctx, "nope", true); !errors.Is(err, ErrNotFound) {
		t.Errorf("pin of a missing session: %v", err)
	}
}

// A copy is one transaction: when it fails half way (here the source's log
// breaks the dense-seq rule), no session, event or index row of it is left.
func TestCopySessionIsAllOrNothing(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	src := mustCreate(t, s, Session{Title: "src"})
	mustAppend(t, s, in(src.ID, trace.New(trace.KindUserMessage, 1, 0, trace.UserMessage{Text: "find the axolotl"})))
	mustAppend(t, s, in(src.ID, trace.New(trace.KindRunEnd, 1, 0, trace.RunEnd{Reason: trace.EndAnswered})))
	// A gap in the log, as SQL outside the store could leave.
	db := rawDB(t, s.Path())
	exec(t, db, fmt.Sprintf(`UPDATE events SET seq = 5 WHERE session_id = '%s' AND seq = 2`, src.ID))
	db.Close()

	if _, err := s.CopySession(ctx, src.ID, "copy"); err == nil {
		t.Fatal("a copy of a log with a gap succeeded")
	}
	list, _ := s.ListSessions(ctx)
	if len(list) != 1 {
		t.Errorf("a failed copy left %d sessions", len(list))
	}
	var docs int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM search_docs WHERE session_id <> ?`, src.ID).Scan(&docs); err != nil || docs != 0 {
		t.Errorf("a failed copy left %d index rows (%v)", docs, err)
	}
	if res, err := s.Search(ctx, "axolotl", SearchFilter{}, 10); err != nil || len(res.Sessions) != 1 {
		t.Errorf("search after a failed copy: %+v, %v", res, err)
	}
}
