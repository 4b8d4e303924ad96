package store

import (
	"context"
	"database/sql/driver"
	"fmt"
	"log"
	"sync"
	"sync/atomic"

	"github.com/loupe-dev/loupe/backend/trace"
)

// The indexer writes the text of appended events into the FTS table in
// batches. FTS5 makes each transaction's text a segment of its own, and
// merges segments as they pile up: indexing an event in its own commit
// cost about twice the event's commit (docs/BENCHMARKS.md). An append
// writes the event's search_docs row instead, in the event's transaction,
// with an id above search_indexed.upto (0008_search_batches.sql); once
// flushEvents events or
// flushBytes of payload are pending, the indexer moves their text into
// search_text, all in one transaction, on the writer. Search flushes what
// is pending before it reads, and reads what is appended after that from
// the payloads, so a pending event is found all the same.
const (
	flushEvents = 64
	flushBytes  = 1 << 20
	// flushBatch bounds one flush transaction, which holds the write lock:
	// a store left with many pending events (a killed process's) is
	// flushed in several.
	flushBatch = 512
)

type indexer struct {
	s *Store
	// events and bytes appended since the last flush began (what the
	// trigger counts; the table says what is pending).
	events, bytes atomic.Int64
	kick          chan struct{}
	stop          chan struct{}
	done          chan struct{}
	// mu makes flushes one at a time (the indexer's, Search's, Close's).
	mu     sync.Mutex
	closed sync.Once
}

// startIndexer starts s's indexer, and flushes what a process that is gone
// left pending.
func (s *Store) startIndexer() {
	ix := &indexer{s: s, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	s.ix = ix
	go ix.loop()
	ix.kick <- struct{}{}
}

func (ix *indexer) loop() {
	defer close(ix.done)
	for {
		select {
		case <-ix.stop:
			return
		case <-ix.kick:
			if err := ix.flush(context.Background()); err != nil {
				// The text stays pending: Search reads it from the
				// payloads, and the next flush tries again.
				log.Printf("loupe: search index: %v", err)
			}
		}
	}
}

// appended counts an event appended with n bytes of payload, and wakes the
// indexer once a batch is worth a segment. A nil indexer (a read-only
// store) counts nothing.
func (ix *indexer) appended(n int) {
	if ix == nil {
		return
	}
	e, b := ix.events.Add(1), ix.bytes.Add(int64(n))
	if e >= flushEvents || b >= flushBytes {
		select {
		case ix.kick <- struct{}{}:
		default:
		}
	}
}

// close stops the indexer and flushes what is pending, so that a store
// closed cleanly leaves nothing for the next one.
func (ix *indexer) close() error {
	if ix == nil {
		return nil
	}
	var err error
	ix.closed.Do(func() {
		close(ix.stop)
		<-ix.done
		err = ix.flush(context.Background())
	})
	return err
}

// flush moves the text of every pending event into the FTS table, in
// transactions of at most flushBatch events. Each is committed without
// waiting for the disk: what it writes is already in the log (the events
// and their pending rows), so a crash that loses it loses nothing, and
// the next durable commit takes it to the disk.
func (ix *indexer) flush(ctx context.Context) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for {
		ix.events.Store(0)
		ix.bytes.Store(0)
		n, err := ix.s.flushBatch(ctx, flushBatch)
		if err != nil || n < flushBatch {
			return err
		}
	}
}

// flushBatch writes the text of up to max pending events into search_text
// and moves search_indexed.upto past them, in one transaction, and returns
// how many it took.
func (s *Store) flushBatch(ctx context.Context, max int) (int, error) {
	conn, err := s.w.Conn(ctx)
	if err != nil {
		return 0, fmt.Errorf("index pending events: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA synchronous=NORMAL"); err != nil {
		return 0, fmt.Errorf("index pending events: %w", err)
	}
	defer func() {
		if _, err := conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA synchronous=FULL"); err != nil {
			// Never hand back a connection that does not wait for the disk.
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("index pending events: %w", err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT d.id, d.session_id, e.kind, e.payload
		FROM search_docs d CROSS JOIN events e ON e.session_id = d.session_id AND e.seq = d.seq
		WHERE d.id > (SELECT upto FROM search_indexed)
		ORDER BY d.id LIMIT ?`, max)
	if err != nil {
		return 0, fmt.Errorf("index pending events: %w", err)
	}
	type doc struct {
		id   int64
		text string
	}
	var docs []doc
	var last int64
	n := 0
	for rows.Next() {
		var d doc
		var e trace.Event
		var kind string
		var payload []byte
		if err := rows.Scan(&d.id, &e.SessionID, &kind, &payload); err != nil {
			rows.Close()
			return 0, fmt.Errorf("index pending events: %w", err)
		}
		e.Kind, e.Payload = trace.Kind(kind), payload
		n++
		last = d.id
		if d.text = trace.SearchText(e); d.text != "" {
			docs = append(docs, d)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("index pending events: %w", err)
	}
	if n == 0 {
		return 0, nil
	}
	for _, d := range docs {
		if err := s.indexText(ctx, tx, d.id, d.text); err != nil {
			return 0, fmt.Errorf("index pending events: %w", err)
		}
	}
	// The write lock is ours: no event came in meanwhile, and ids only grow.
	if _, err := tx.ExecContext(ctx, `UPDATE search_indexed SET upto = ?`, last); err != nil {
		return 0, fmt.Errorf("index pending events: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("index pending events: commit: %w", err)
	}
	return n, nil
}
