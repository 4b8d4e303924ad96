package session_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/store"
)

// The window's search finds an event something other than the store's
// Append wrote (an older Loupe still running on the file) once IndexSearch
// has looked again, and says its results are partial until then.
func TestIndexSearchKeepsUpWithEventsWrittenElsewhere(t *testing.T) {
	st := tempStore(t)
	m := session.NewManager(st, ollama.New("http://127.0.0.1:9", nil), nil, nil)
	ctx := t.Context()
	sess, err := st.CreateSession(ctx, store.Session{Title: "elsewhere"})
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+st.Path()+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(fmt.Sprintf(`UPDATE sessions SET last_seq = 1 WHERE id = '%[1]s';
		INSERT INTO events (session_id, seq, kind, time, run, round, payload)
		VALUES ('%[1]s', 1, 'user_message', 1, 1, 0, '{"text":"find the narwhal"}')`, sess.ID)); err != nil {
		t.Fatal(err)
	}
	res, err := m.Search(ctx, "narwhal", store.SearchFilter{}, 10)
	if err != nil || len(res.Sessions) != 0 || !res.Partial {
		t.Fatalf("before indexing: %+v, %v", res, err)
	}

	ictx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- m.IndexSearch(ictx, 10*time.Millisecond) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err = m.Search(ctx, "NARWHAL", store.SearchFilter{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Sessions) == 1 && !res.Partial {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never found: %+v", res)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if s, err := m.SearchStatus(ctx); err != nil || s != (store.SearchStatus{Indexed: 1, Total: 1}) {
		t.Errorf("status %+v, %v", s, err)
	}
	stop()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("IndexSearch after cancel: %v", err)
	}
	if _, err := m.Search(ctx, "na", store.SearchFilter{}, 10); !errors.Is(err, store.ErrQuery) {
		t.Errorf("a 2-character query: %v", err)
	}
}
