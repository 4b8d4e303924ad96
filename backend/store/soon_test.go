package store

import (
	"sync"
	"testing"

	"github.com/loupe-dev/loupe/backend/trace"
)

// An event committed soon is in the log at once, with its seq in order
// among durable ones from other goroutines, and every write after it
// waits for the disk again: only that one commit skipped the fsync.
func TestAppendSoonIsInTheLogAndLeavesWritesDurable(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	a := mustCreate(t, s, Session{Title: "a", Workspace: "/w", Model: "m"})
	b := mustCreate(t, s, Session{Title: "b", Workspace: "/w", Model: "m"})
	var wg sync.WaitGroup
	for _, id := range []string{a.ID, b.ID} {
		wg.Go(func() {
			for i := range 50 {
				e := trace.New(trace.KindNotice, 1, 1, trace.Notice{Code: "n", Message: "x"})
				e.SessionID = id
				var err error
				if i%2 == 0 {
					_, err = s.AppendSoon(ctx, e)
				} else {
					_, err = s.Append(ctx, e)
				}
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
	// Other writes go on meanwhile, each of them durable.
	wg.Go(func() {
		for range 50 {
			if err := s.PutSetting(ctx, "k", 1); err != nil {
				t.Error(err)
			}
		}
	})
	wg.Wait()
	for _, id := range []string{a.ID, b.ID} {
		evs, err := s.Events(ctx, id)
		if err != nil || len(evs) != 50 {
			t.Fatalf("%s: %d events, %v", id, len(evs), err)
		}
		for i, e := range evs {
			if e.Seq != int64(i+1) {
				t.Fatalf("%s: event %d has seq %d", id, i, e.Seq)
			}
		}
	}
	var mode string
	if err := s.w.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&mode); err != nil || mode != "2" {
		t.Fatalf("after soon commits the writer is at synchronous=%s (%v), want 2 (FULL)", mode, err)
	}
}
