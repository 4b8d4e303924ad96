package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
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
	tx, err := s.w.BeginTx(ctx, nil) // IMMEDIATE: see Append
	if err != nil {
		return Session{}, fmt.Errorf("store: copy session %q: %w", id, err)
	}
	defer tx.Rollback()
	src, err := scanSession(tx.QueryRowContext(ctx, getSessionSQL, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, notFound(id)
	}
	if err != nil {
		return Session{}, fmt.Errorf("store: copy session %q: %w", id, err)
	}
	if src.OpenRun != 0 {
		return Session{}, fmt.Errorf("store: copy session %q: run %d: %w", id, src.OpenRun, ErrRunOpen)
	}
	var stepping string
	if err := tx.QueryRowContext(ctx, `SELECT stepping FROM sessions WHERE id = ?`, id).Scan(&stepping); err != nil {
		return Session{}, fmt.Errorf("store: copy session %q: %w", id, err)
	}
	// Read whole before writing: the transaction has one connection, which
	// cannot read rows and write between them.
	rows, err := tx.QueryContext(ctx, eventsSQL, id)
	evs, err := s.scanEvents(ctx, id, rows, err)
	if err != nil {
		return Session{}, err
	}
	cp := s.newSession(Session{Title: title, Workspace: src.Workspace, Model: src.Model, Tools: src.Tools, Host: src.Host, CopiedFrom: src.ID})
	if err := insertSession(ctx, tx, cp); err != nil {
		return Session{}, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE sessions SET stepping = ? WHERE id = ?`, stepping, cp.ID); err != nil {
		return Session{}, fmt.Errorf("store: copy session %q: %w", id, err)
	}
	// A request names its tool set by the id it has in its session
	// (0002): the copy gets the same sets under the same ids.
	if _, err := tx.ExecContext(ctx, `INSERT INTO tool_sets (session_id, id, hash, tools)
		SELECT ?, id, hash, tools FROM tool_sets WHERE session_id = ?`, cp.ID, id); err != nil {
		return Session{}, fmt.Errorf("store: copy session %q: tool sets: %w", id, err)
	}
	st := s.appendStmts(ctx, tx)
	for _, e := range evs {
		want := e.Seq
		e.SessionID = cp.ID
		got, err := s.appendTx(ctx, st, e)
		if err != nil {
			return Session{}, fmt.Errorf("store: copy session %q: %w", id, err)
		}
		if got.Seq != want {
			// Seqs are dense from 1 (see appendTx), so the copy's are the
			// source's; anything else is a log that breaks that rule.
			return Session{}, fmt.Errorf("store: copy session %q: event %d would be %d in the copy: the log's seqs are not dense", id, want, got.Seq)
		}
	}
	out, err := scanSession(tx.QueryRowContext(ctx, getSessionSQL, cp.ID))
	if err != nil {
		return Session{}, fmt.Errorf("store: copy session %q: %w", id, err)
	}
	if err := tx.Commit(); err != nil {
		return Session{}, fmt.Errorf("store: copy session %q: commit: %w", id, err)
	}
	return out, nil
}
