package store

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/trace"
)

// openTemp opens a fresh database file in a temporary folder.
func openTemp(t testing.TB) *Store {
	t.Helper()
	return openAt(t, filepath.Join(t.TempDir(), "loupe.db"))
}

func openAt(t testing.TB, path string) *Store {
	t.Helper()
	s, err := Open(path)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mustCreate(t testing.TB, s *Store, in Session) Session {
	t.Helper()
	sess, err := s.CreateSession(t.Context(), in)
	if err != nil {
		t.Fatalf("CreateSession: %v", err)
	}
	return sess
}

func mustAppend(t testing.TB, s *Store, e trace.Event) trace.Event {
	t.Helper()
	out, err := s.Append(t.Context(), e)
	if err != nil {
		t.Fatalf("Append(%s): %v", e.Kind, err)
	}
	return out
}

// ev builds an event with a payload given as literal JSON bytes.
func ev(session string, kind trace.Kind, payload string) trace.Event {
	return trace.Event{SessionID: session, Kind: kind, Run: 1, Round: 1, Payload: json.RawMessage(payload)}
}

// in puts an event built by trace.New into a session.
func in(session string, e trace.Event) trace.Event {
	e.SessionID = session
	return e
}

// rawDB opens the file with plain database/sql and none of Store's setup,
// to look at or tamper with it the way another program would.
func rawDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	// The store under test may hold the write lock a moment (its indexer
	// writes text in batches): wait for it, as the store itself does.
	if _, err := db.Exec("PRAGMA busy_timeout = 10000"); err != nil {
		t.Fatal(err)
	}
	return db
}

func exec(t testing.TB, db *sql.DB, query string) {
	t.Helper()
	if _, err := db.Exec(query); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// snapshot is the names and contents of every file in a folder (sub-folders
// by name only, ending in "/").
func snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, e := range entries {
		if e.IsDir() {
			files[e.Name()+"/"] = ""
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(b)
	}
	return files
}

func assertUnchanged(t testing.TB, before, after map[string]string) {
	t.Helper()
	for name, b := range before {
		a, ok := after[name]
		switch {
		case !ok:
			t.Errorf("%s was removed", name)
		case a != b:
			t.Errorf("%s changed (%d bytes before, %d after)", name, len(b), len(a))
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok {
			t.Errorf("%s was created", name)
		}
	}
}

// fakeClock advances by one second on every reading, so the order of
// operations shows in their timestamps.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

func sessionIDs(list []Session) []string {
	ids := make([]string, len(list))
	for i, s := range list {
		ids[i] = s.ID
	}
	return ids
}

func seqs(events []trace.Event) []int64 {
	out := make([]int64, len(events))
	for i, e := range events {
		out[i] = e.Seq
	}
	return out
}

func dense(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i + 1)
	}
	return out
}
