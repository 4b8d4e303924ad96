package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/loupe-dev/loupe/backend/trace"
)

// ErrRunOpen is what CopySession says of a session whose run has not
// ended (errors.Is): a copy of a log that is still being written would
// hold half a round, and a run no process owns.
var ErrRunOpen = errors.New("its run has not ended")

// RenameSession sets a session's title and returns the session as stored,
// or ErrNotFound. A name is no activity: updated_at stays, so the session
// keeps its place in the list. The title is the caller's to check.
func (s *Store) RenameSession(ctx context.Context, id, title string) (Session, error) {
	return s.setColumn(ctx, id, "rename", `title = ?`, title)
}

// SetPinned pins the session on top of the list, or lets it go back to
// its place by time; updated_at stays.
func (s *Store) SetPinned(ctx context.Context, id string, pinned bool) (Session, error) {
	return s.setColumn(ctx, id, "pin", `pinned = ?`, pinned)
}

func (s *Store) setColumn(ctx context.Context, id, what, set string, v any) (Session, error) {
	sess, err := scanSession(s.w.QueryRowContext(ctx, `UPDATE sessions SET `+set+` WHERE id = ? RETURNING `+sessionCols, v, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, notFound(id)
	}
	if err != nil {
		return Session{}, fmt.Errorf("store: %s session %q: %w", what, id, err)
	}
	return sess, nil
}

// CopySession makes a new session holding a copy of the log of session
// id, titled title: the same workspace, model, host, tools and Step mode,
// the tool sets its requests name,
// every event with its seq, kind, time, run, round and payload byte for
// byte, each indexed for search as Append indexes it, and CopiedFrom
// naming the source. It is one transaction: a crash leaves the whole copy
// or none. A session whose run is open (going, paused or asking) is
// ErrRunOpen; the source is never written to.
func (s *Store) CopySession(ctx context.Context, id, title string) (Session, error) {
	return s.copySession(ctx, id, Copy{Title: title})
}

// Copy is what a copy of a session's log is made with besides the log.
type Copy struct {
	Title string
	// Through is the source's last event the copy holds (0: all of them).
	Through int64
	// Workspace, Model, Host and Tools replace the source's when set
	// (Host also when SetHost says so: "" is the local host).
	Workspace, Model, Host string
	SetHost                bool
	// SetTools replaces the source's tools with Tools (nil: every
	// built-in tool).
	SetTools bool
	Tools    *[]string
	// Then are events appended after the copied ones, in the same
	// transaction (the fork's own first events).
	Then []trace.Event
}

// ErrNoSuchEvent is what Fork says of a fork point the log does not hold.
var ErrNoSuchEvent = errors.New("no such event")

// Fork makes a new session whose log is a copy of session id's up to and
// including event c.Through, as CopySession copies (same bytes, same
// seqs, indexed, its tool sets, its Step mode), followed by c.Then, with
// ForkedFrom and ForkSeq naming the parent and that event. The log is
// copied, not shared: deleting either session leaves the other whole. The
// parent's run may be open (going or paused): only its events up to
// c.Through are read, and nothing of the parent is written. One
// transaction: a crash leaves the whole fork or none.
func (s *Store) Fork(ctx context.Context, id string, c Copy) (Session, error) {
	if c.Through < 1 {
		return Session{}, fmt.Errorf("store: fork session %q at event %d: %w", id, c.Through, ErrNoSuchEvent)
	}
	return s.copySession(ctx, id, c)
}

func (s *Store) copySession(ctx context.Context, id string, c Copy) (Session, error) {
	fork := c.Through > 0
	what := "copy"
	if fork {
		what = "fork"
	}
	fail := func(err error) (Session, error) {
		return Session{}, fmt.Errorf("store: %s session %q: %w", what, id, err)
	}
	tx, err := s.w.BeginTx(ctx, nil) // IMMEDIATE: see Append
	if err != nil {
		return fail(err)
	}
	defer tx.Rollback()
	src, err := scanSession(tx.QueryRowContext(ctx, getSessionSQL, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, notFound(id)
	}
	if err != nil {
		return fail(err)
	}
	if !fork && src.OpenRun != 0 {
		return fail(fmt.Errorf("run %d: %w", src.OpenRun, ErrRunOpen))
	}
	if fork && c.Through > int64(src.EventCount) {
		return fail(fmt.Errorf("its log has %d events, not %d: %w", src.EventCount, c.Through, ErrNoSuchEvent))
	}
	var stepping string
	if err := tx.QueryRowContext(ctx, `SELECT stepping FROM sessions WHERE id = ?`, id).Scan(&stepping); err != nil {
		return fail(err)
	}
	// Read whole before writing: the transaction has one connection, which
	// cannot read rows and write between them.
	rows, err := tx.QueryContext(ctx, eventsSQL, id)
	evs, err := s.scanEvents(ctx, id, rows, err)
	if err != nil {
		return Session{}, err
	}
	if fork {
		evs = evs[:c.Through]
	}
	in := Session{Title: c.Title, Workspace: src.Workspace, Model: src.Model, Tools: src.Tools, Host: src.Host}
	if fork {
		in.ForkedFrom, in.ForkSeq = src.ID, c.Through
	} else {
		// A copy is the same session again: imported, it is read-only
		// too. A fork goes on in Loupe, and is Loupe's own.
		in.CopiedFrom, in.Source, in.SourceID = src.ID, src.Source, src.SourceID
	}
	if c.Workspace != "" {
		in.Workspace = c.Workspace
	}
	if c.Model != "" {
		in.Model = c.Model
	}
	if c.Host != "" || c.SetHost {
		in.Host = c.Host
	}
	if c.SetTools {
		in.Tools = c.Tools
	}
	cp := s.newSession(in)
	if err := insertSession(ctx, tx, cp); err != nil {
		return Session{}, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE sessions SET stepping = ? WHERE id = ?`, stepping, cp.ID); err != nil {
		return fail(err)
	}
	// A request names its tool set by the id it has in its session
	// (0002): the copy gets the same sets under the same ids.
	if _, err := tx.ExecContext(ctx, `INSERT INTO tool_sets (session_id, id, hash, tools)
		SELECT ?, id, hash, tools FROM tool_sets WHERE session_id = ?`, cp.ID, id); err != nil {
		return fail(fmt.Errorf("tool sets: %w", err))
	}
	st := s.appendStmts(ctx, tx)
	for _, e := range evs {
		want := e.Seq
		e.SessionID = cp.ID
		got, err := s.appendTx(ctx, st, e)
		if err != nil {
			return fail(err)
		}
		if got.Seq != want {
			// Seqs are dense from 1 (see appendTx), so the copy's are the
			// source's; anything else is a log that breaks that rule.
			return fail(fmt.Errorf("event %d would be %d in the copy: the log's seqs are not dense", want, got.Seq))
		}
	}
	for _, e := range c.Then {
		e.SessionID = cp.ID
		if err := checkEvent(e); err != nil {
			return Session{}, err
		}
		if _, err := s.appendTx(ctx, st, e); err != nil {
			return fail(err)
		}
	}
	if fork {
		// The copied events carry the parent's times; a fork is new
		// activity, so it is listed as of now.
		if _, err := tx.ExecContext(ctx, `UPDATE sessions SET updated_at = ? WHERE id = ?`, s.now().UnixNano(), cp.ID); err != nil {
			return fail(err)
		}
	}
	out, err := scanSession(tx.QueryRowContext(ctx, getSessionSQL, cp.ID))
	if err != nil {
		return fail(err)
	}
	if err := tx.Commit(); err != nil {
		return fail(fmt.Errorf("commit: %w", err))
	}
	return out, nil
}

// ListForks returns the sessions forked from session id, by the event each
// was made at, then by age.
func (s *Store) ListForks(ctx context.Context, id string) ([]Session, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+sessionCols+` FROM sessions WHERE forked_from = ? AND forked_from <> '' ORDER BY fork_seq, created_at, id`, id)
	if err != nil {
		return nil, fmt.Errorf("store: forks of session %q: %w", id, err)
	}
	defer rows.Close()
	out := []Session{}
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("store: forks of session %q: %w", id, err)
		}
		out = append(out, sess)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: forks of session %q: %w", id, err)
	}
	return out, nil
}
