package store

import (
	"path/filepath"
	"testing"

	"github.com/loupe-dev/loupe/backend/trace"
)

// The hot statements are prepared once and reused; a reused statement must
// not keep an old snapshot. Another Store on the same file stands for the
// other process (the window and `loupe run`).
func TestPreparedStatementsSeeOtherWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loupe.db")
	a, b := openAt(t, path), openAt(t, path)
	ctx := t.Context()
	sess := mustCreate(t, a, Session{})
	for i := range 3 {
		// Alternate writers: each one's prepared seq bump must read the
		// other's last commit.
		w := a
		if i%2 == 1 {
			w = b
		}
		if got := mustAppend(t, w, ev(sess.ID, trace.KindNotice, `{}`)); got.Seq != int64(i+1) {
			t.Fatalf("append %d: seq %d, want %d", i, got.Seq, i+1)
		}
		for name, s := range map[string]*Store{"a": a, "b": b} {
			got, err := s.GetSession(ctx, sess.ID)
			if err != nil || got.EventCount != i+1 {
				t.Fatalf("after append %d, %s.GetSession: count %d, %v; want %d", i, name, got.EventCount, err, i+1)
			}
			evs, err := s.Events(ctx, sess.ID)
			if err != nil || len(evs) != i+1 {
				t.Fatalf("after append %d, %s.Events: %d events, %v; want %d", i, name, len(evs), err, i+1)
			}
		}
	}
	title := "renamed"
	if _, err := b.UpdateSession(ctx, sess.ID, SessionUpdate{Title: &title}); err != nil {
		t.Fatal(err)
	}
	if got, err := a.GetSession(ctx, sess.ID); err != nil || got.Title != title {
		t.Fatalf("a.GetSession after b renamed it: %q, %v", got.Title, err)
	}
}

// Closing closes the prepared statements; a late caller gets an error, not
// a panic.
func TestStoreMethodsFailAfterClose(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	sess := mustCreate(t, s, Session{})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, ev(sess.ID, trace.KindNotice, `{}`)); err == nil {
		t.Error("Append after Close succeeded")
	}
	if _, err := s.Events(ctx, sess.ID); err == nil {
		t.Error("Events after Close succeeded")
	}
	if _, err := s.GetSession(ctx, sess.ID); err == nil {
		t.Error("GetSession after Close succeeded")
	}
}
