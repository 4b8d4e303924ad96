package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loupe-dev/loupe/backend/trace"
)

// Append commits one event to its session's log and returns it as stored:
// with the next seq of that session (1, 2, 3…; any Seq given is ignored) and,
// if Time is zero, the current time. Times are kept in UTC to the
// nanosecond. The payload must be valid JSON and is stored and returned
// byte for byte.
//
// The event is durably committed (fsync, synchronous=FULL) when Append
// returns nil: a caller may run a tool after its tool_call event is
// appended. On error nothing was stored. A missing session is ErrNotFound.
//
// Append also sets the session's updated_at, its last_reason (cleared by
// a user_message, set by a run_end) and its open run (set by a
// user_message, cleared by a run_end). It costs the same for the first
// event as for the ten-thousandth.
func (s *Store) Append(ctx context.Context, e trace.Event) (trace.Event, error) {
	return s.append(ctx, e, true)
}

// AppendSoon commits one event as Append does, without waiting for the
// disk: it is in the log at once, for every reader and through a crash of
// the process, and on the disk once the next durable commit returns (an
// fsync of the write-ahead log takes every frame before it). Only a crash
// of the machine in between could lose it. The loop uses it for the
// events that no action outside the log follows before the next durable
// one (a model's answer before its call's permission, a result before
// the next request), so the log never holds less than what happened,
// and a round costs two waits on the disk instead of five.
func (s *Store) AppendSoon(ctx context.Context, e trace.Event) (trace.Event, error) {
	return s.append(ctx, e, false)
}

func (s *Store) append(ctx context.Context, e trace.Event, durable bool) (trace.Event, error) {
	if err := checkEvent(e); err != nil {
		return trace.Event{}, err
	}
	begin := s.w.BeginTx
	if !durable {
		// The writer is one connection: held for this commit, no other
		// write can run while its mode is NORMAL, and FULL is back before
		// it is let go.
		conn, err := s.w.Conn(ctx)
		if err != nil {
			return trace.Event{}, fmt.Errorf("store: append: %w", err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, "PRAGMA synchronous=NORMAL"); err != nil {
			return trace.Event{}, fmt.Errorf("store: append: %w", err)
		}
		defer func() {
			if _, err := conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA synchronous=FULL"); err != nil {
				// Never hand back a connection that does not wait for
				// the disk.
				_ = conn.Raw(func(any) error { return driver.ErrBadConn })
			}
		}()
		begin = conn.BeginTx
	}
	// BEGIN IMMEDIATE (the writer's _txlock): the seq read below cannot
	// change under us, even from another process.
	tx, err := begin(ctx, nil)
	if err != nil {
		return trace.Event{}, fmt.Errorf("store: append: %w", err)
	}
	defer tx.Rollback()
	out, err := s.appendTx(ctx, s.appendStmts(ctx, tx), e)
	if err != nil {
		return trace.Event{}, err
	}
	if err := tx.Commit(); err != nil {
		return trace.Event{}, fmt.Errorf("store: append: commit: %w", err)
	}
	s.ix.appended(len(e.Payload))
	return out, nil
}

func checkEvent(e trace.Event) error {
	switch {
	case e.SessionID == "":
		return fmt.Errorf("store: append: event has no session id")
	case e.Kind == "":
		return fmt.Errorf("store: append: event has no kind")
	case !json.Valid(e.Payload):
		return fmt.Errorf("store: append %s event: payload is not valid JSON", e.Kind)
	case !e.Time.IsZero() && !fromNanos(e.Time.UnixNano()).Equal(e.Time):
		return fmt.Errorf("store: append %s event: time %v is out of range", e.Kind, e.Time)
	}
	return nil
}

// The statements whose cost must not grow with a session's length: each
// finds its rows by primary key (a test checks their query plans).
const (
	nextSeqSQL = `UPDATE sessions SET
			last_seq = last_seq + 1,
			updated_at = ?,
			last_reason = coalesce(?, last_reason),
			open_run = coalesce(?, open_run)
		WHERE id = ? RETURNING last_seq`
	insertEventSQL = `INSERT INTO events
		(session_id, seq, kind, time, run, round, payload, agent) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
	// An event's search_docs row goes in before the event, so that the
	// events_unindexed trigger (0007_search.sql) finds it and leaves the
	// event out of the backlog; its text takes the row's id as rowid.
	// Ids follow the order events were written, which is what search
	// reads newest first: an appended event gets the next positive id, an
	// event indexed from the backlog (older than any appended one) the id
	// given, below every id so far (see indexBatch).
	// An appended event's id is also above search_indexed.upto, even when
	// the events that had the highest ids were deleted since: the indexer
	// takes every id above upto as one whose text is still to write.
	insertDocSQL = `INSERT INTO search_docs (id, session_id, seq) VALUES
		(coalesce(?, max(0, coalesce((SELECT max(id) FROM search_docs), 0), (SELECT upto FROM search_indexed)) + 1), ?, ?)`
	insertTextSQL = `INSERT INTO search_text (rowid, text) VALUES (?, ?)`
	// What the trigger looks up for each event (a test checks its plan).
	docOfEventSQL = `SELECT 1 FROM search_docs WHERE session_id = ? AND seq = ?`
	eventsSQL     = `SELECT seq, kind, time, run, round, payload, agent
		FROM events WHERE session_id = ? ORDER BY seq`
	runEventsSQL = `SELECT seq, kind, time, run, round, payload, agent
		FROM events WHERE session_id = ? AND run = ? ORDER BY seq`
	eventSQL = `SELECT kind, time, run, round, payload, agent
		FROM events WHERE session_id = ? AND seq = ?`
)

// appendStmts are the statements an append runs, as copies for tx of the
// writer's prepared ones.
type appendStmts struct {
	nextSeq, insertDoc, insertEvent *sql.Stmt
}

func (s *Store) appendStmts(ctx context.Context, tx *sql.Tx) appendStmts {
	st := appendStmts{
		nextSeq:     tx.StmtContext(ctx, s.stmt.nextSeq),
		insertEvent: tx.StmtContext(ctx, s.stmt.insertEvent),
	}
	// Nil only where a benchmark measures the log without the index
	// (BenchmarkAppendIndexed).
	if s.stmt.insertDoc != nil {
		st.insertDoc = tx.StmtContext(ctx, s.stmt.insertDoc)
	}
	return st
}

// appendTx stores one event, and its index row, with st, in the caller's
// transaction: an event is never in the log without its index row, nor
// the row without the event. The index row is the event's search_docs
// row, whose id is above search_indexed.upto; its text (trace.SearchText)
// goes into the FTS table in a later batch (indexer.go), and until then
// Search reads it from the payload. Its cost is a few primary-key lookups and inserts,
// whatever the session's length or the event's size: the next seq comes
// from sessions.last_seq, never from scanning events.
func (s *Store) appendTx(ctx context.Context, st appendStmts, e trace.Event) (trace.Event, error) {
	now := s.now()
	if e.Time.IsZero() {
		e.Time = now
	}
	e.Time = fromNanos(e.Time.UnixNano())

	// A NULL reason or open run leaves the column as it is.
	var reason *string
	var open *int
	switch {
	case e.Agent != "":
		// A sub-agent's nested run opens and ends inside its parent's:
		// the session's run and reason are the parent's.
	case e.Kind == trace.KindUserMessage:
		reason, open = new(""), &e.Run
	case e.Kind == trace.KindRunEnd:
		p, err := trace.Decode[trace.RunEnd](e)
		if err != nil {
			return trace.Event{}, fmt.Errorf("store: append: %w", err)
		}
		reason, open = &p.Reason, new(0)
	}

	err := st.nextSeq.QueryRowContext(ctx, now.UnixNano(), reason, open, e.SessionID).Scan(&e.Seq)
	if errors.Is(err, sql.ErrNoRows) {
		return trace.Event{}, fmt.Errorf("store: append: %w", notFound(e.SessionID))
	}
	if err != nil {
		return trace.Event{}, fmt.Errorf("store: append to %q: %w", e.SessionID, err)
	}
	if st.insertDoc != nil {
		if _, err := st.insertDoc.ExecContext(ctx, nil, e.SessionID, e.Seq); err != nil {
			return trace.Event{}, fmt.Errorf("store: append to %q: index: %w", e.SessionID, err)
		}
	}
	// The payload goes in as a string so SQLite stores TEXT (see 0001_init.sql).
	if _, err := st.insertEvent.ExecContext(ctx, e.SessionID, e.Seq, string(e.Kind), e.Time.UnixNano(), e.Run, e.Round, string(e.Payload), e.Agent); err != nil {
		return trace.Event{}, fmt.Errorf("store: append to %q: %w", e.SessionID, err)
	}
	e.Payload = append(json.RawMessage(nil), e.Payload...)
	return e, nil
}

// Events returns a session's whole log in seq order, or ErrNotFound.
func (s *Store) Events(ctx context.Context, sessionID string) ([]trace.Event, error) {
	rows, err := s.stmt.events.QueryContext(ctx, sessionID)
	return s.scanEvents(ctx, sessionID, rows, err)
}

// RunEvents returns the events of one run of a session, in seq order: what
// is needed to tell where an open run stands without reading the whole
// log.
func (s *Store) RunEvents(ctx context.Context, sessionID string, run int) ([]trace.Event, error) {
	rows, err := s.r.QueryContext(ctx, runEventsSQL, sessionID, run)
	return s.scanEvents(ctx, sessionID, rows, err)
}

func (s *Store) scanEvents(ctx context.Context, sessionID string, rows *sql.Rows, err error) ([]trace.Event, error) {
	if err != nil {
		return nil, fmt.Errorf("store: events of %q: %w", sessionID, err)
	}
	defer rows.Close()
	out := []trace.Event{}
	for rows.Next() {
		e := trace.Event{SessionID: sessionID}
		var kind string
		var t int64
		var payload []byte // Scan copies into a []byte it allocates
		if err := rows.Scan(&e.Seq, &kind, &t, &e.Run, &e.Round, &payload, &e.Agent); err != nil {
			return nil, fmt.Errorf("store: events of %q: %w", sessionID, err)
		}
		e.Kind, e.Time, e.Payload = trace.Kind(kind), fromNanos(t), payload
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: events of %q: %w", sessionID, err)
	}
	if len(out) == 0 {
		// Tell an empty log (or nothing new) from a missing session.
		if _, err := s.GetSession(ctx, sessionID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Event returns one event of a session's log as stored, or ErrNotFound
// when the session has no event seq. It is one primary-key lookup: the
// window asks for a payload when the user opens it.
func (s *Store) Event(ctx context.Context, sessionID string, seq int64) (trace.Event, error) {
	e := trace.Event{SessionID: sessionID, Seq: seq}
	var kind string
	var t int64
	var payload []byte
	err := s.r.QueryRowContext(ctx, eventSQL, sessionID, seq).Scan(&kind, &t, &e.Run, &e.Round, &payload, &e.Agent)
	if errors.Is(err, sql.ErrNoRows) {
		return trace.Event{}, fmt.Errorf("store: session %q has no event %d: %w", sessionID, seq, ErrNotFound)
	}
	if err != nil {
		return trace.Event{}, fmt.Errorf("store: event %d of %q: %w", seq, sessionID, err)
	}
	e.Kind, e.Time, e.Payload = trace.Kind(kind), fromNanos(t), payload
	return e, nil
}

// indexEvent writes an event's search_docs row, with the id given, and,
// when it has any, its text in both indexes (indexText). Every event gets
// the row, so that the backlog never holds it; an event without text (a
// request, a pause) costs no FTS row.
func (s *Store) indexEvent(ctx context.Context, tx *sql.Tx, e trace.Event, id int64) error {
	if _, err := tx.StmtContext(ctx, s.stmt.insertDoc).ExecContext(ctx, id, e.SessionID, e.Seq); err != nil {
		return err
	}
	return s.indexText(ctx, tx, id, trace.SearchText(e))
}
