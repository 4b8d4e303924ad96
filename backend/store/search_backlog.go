// How much of the log search covers, and the indexing of the events
// written before search existed (or by a writer without the index).

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/loupe-dev/loupe/backend/trace"
)

// SearchStatus says how many events search covers.
func (s *Store) SearchStatus(ctx context.Context) (SearchStatus, error) {
	return searchStatus(ctx, s.r)
}

func searchStatus(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (SearchStatus, error) {
	var st SearchStatus
	var pending int64
	// The backlog's ranges may hold events already indexed (written by
	// Append within a range that a writer without the index extended), so
	// pending is at most what is left; it is 0 exactly when all is done.
	// The range of ids waiting for their pairs may hold ids of events
	// deleted since: PairsPending too is at most what is left.
	err := q.QueryRowContext(ctx, `SELECT
		(SELECT coalesce(sum(last_seq), 0) FROM sessions),
		(SELECT coalesce(sum(to_seq - from_seq + 1), 0) FROM search_backlog),
		(SELECT coalesce(sum(hi - lo + 1), 0) FROM search_pairs_backlog)`).Scan(&st.Total, &pending, &st.PairsPending)
	if err != nil {
		return SearchStatus{}, fmt.Errorf("store: search status: %w", err)
	}
	st.Indexed = max(0, st.Total-pending)
	return st, nil
}

// Backlog batches: small enough that the transaction holding the write lock
// is short (the window and a `loupe run` on the same file wait for it),
// large enough that the whole backlog goes quickly.
const (
	backlogEvents = 200
	backlogBytes  = 2 << 20
)

// IndexBacklog indexes the events that still need it (see SearchStatus),
// one small IMMEDIATE transaction at a time, the most recently updated
// sessions first, until none is left or ctx is done; progress, when not
// nil, is told after each batch. Between batches it waits about as long as
// the batch took, so that other writers (this process's runs, another
// process's) get the lock. Several processes may run it on one file at
// once: each batch re-reads the backlog under the write lock, so every
// event is indexed once. Once the backlog is empty, it writes the word
// pairs of the events indexed before the pairs index existed
// (SearchStatus.PairsPending; see indexPairsBatch) the same way: results
// are whole by then, and phrases get fast when it is done.
func (s *Store) IndexBacklog(ctx context.Context, progress func(SearchStatus)) error {
	textDone := false
	for {
		start := time.Now()
		var done bool
		var err error
		if !textDone {
			done, err = s.indexBatch(ctx, backlogEvents, backlogBytes)
			if err == nil && done {
				textDone = true
				done, err = s.indexPairsBatch(ctx, pairsBatch)
			}
		} else {
			done, err = s.indexPairsBatch(ctx, pairsBatch)
		}
		if err != nil || done {
			return err
		}
		if progress != nil {
			st, err := s.SearchStatus(ctx)
			if err != nil {
				return err
			}
			progress(st)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(max(5*time.Millisecond, time.Since(start))):
		}
	}
}

// indexBatch indexes up to maxEvents events (or about maxBytes of
// payload) of the backlog's first session, in one transaction, and
// reports whether the backlog was empty.
func (s *Store) indexBatch(ctx context.Context, maxEvents, maxBytes int) (done bool, err error) {
	tx, err := s.w.BeginTx(ctx, nil) // IMMEDIATE: the backlog cannot change under us
	if err != nil {
		return false, fmt.Errorf("store: index older events: %w", err)
	}
	defer tx.Rollback()
	var id string
	var from, to int64
	err = tx.QueryRowContext(ctx, `SELECT b.session_id, b.from_seq, b.to_seq
		FROM search_backlog b JOIN sessions s ON s.id = b.session_id
		ORDER BY s.updated_at DESC, s.id LIMIT 1`).Scan(&id, &from, &to)
	if errors.Is(err, sql.ErrNoRows) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: index older events: %w", err)
	}
	// The events of the range not indexed yet, newest first, up to the
	// batch's size. They are older than every event Append indexed, so
	// their ids go below every id so far, and search, which reads the
	// index newest first, meets them after those.
	// Nor may they fall within the ids still waiting for their word pairs
	// (search_pairs_backlog), which the deletion of the oldest could leave
	// below every id: those would get their pairs twice.
	var id0 sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT min(coalesce((SELECT min(id) FROM search_docs), 0),
		coalesce((SELECT lo FROM search_pairs_backlog), 0))`).Scan(&id0); err != nil {
		return false, fmt.Errorf("store: index older events: %w", err)
	}
	nextID := min(0, id0.Int64) - 1
	rows, err := tx.QueryContext(ctx, `SELECT seq, kind, time, run, round, payload FROM events e
		WHERE session_id = ? AND seq BETWEEN ? AND ?
		  AND NOT EXISTS (SELECT 1 FROM search_docs d WHERE d.session_id = e.session_id AND d.seq = e.seq)
		ORDER BY seq DESC`, id, from, to)
	if err != nil {
		return false, fmt.Errorf("store: index older events of %q: %w", id, err)
	}
	var evs []trace.Event
	size, through := 0, from
	for rows.Next() {
		if len(evs) >= maxEvents || size >= maxBytes {
			through = evs[len(evs)-1].Seq
			break
		}
		e := trace.Event{SessionID: id}
		var kind string
		var t int64
		var payload []byte
		if err := rows.Scan(&e.Seq, &kind, &t, &e.Run, &e.Round, &payload); err != nil {
			rows.Close()
			return false, fmt.Errorf("store: index older events of %q: %w", id, err)
		}
		e.Kind, e.Time, e.Payload = trace.Kind(kind), fromNanos(t), payload
		evs = append(evs, e)
		size += len(payload)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return false, fmt.Errorf("store: index older events of %q: %w", id, err)
	}
	for _, e := range evs {
		docID := nextID
		nextID--
		if err := s.indexEvent(ctx, tx, e, docID); err != nil {
			return false, fmt.Errorf("store: index event %d of %q: %w", e.Seq, id, err)
		}
	}
	if through <= from {
		_, err = tx.ExecContext(ctx, `DELETE FROM search_backlog WHERE session_id = ?`, id)
	} else {
		_, err = tx.ExecContext(ctx, `UPDATE search_backlog SET to_seq = ? WHERE session_id = ?`, through-1, id)
	}
	if err != nil {
		return false, fmt.Errorf("store: index older events of %q: %w", id, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("store: index older events: commit: %w", err)
	}
	return false, nil
}
