package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/loupe-dev/loupe/backend/trace"
)

// Import writes one session that was written out elsewhere (an export read
// back) into the database: its row, then each event as the reader of the
// file decodes it, then its tool sets, in ONE IMMEDIATE transaction held
// from BeginImport to Commit. A crash, an error or a refusal at any point
// leaves nothing of it: Rollback (or a process that dies) drops the whole
// transaction, and nothing is committed before Commit.
//
// Events go in through appendTx, the path every live event takes, so an
// imported event is indexed for search (its search_docs row in the same
// transaction, its text in the indexer's next batch), counted in the
// session's rounds and open run by the same statements and triggers as a
// live one.
type Import struct {
	s      *Store
	ctx    context.Context
	tx     *sql.Tx
	st     appendStmts
	id     string
	events int
	bytes  int
	done   bool
}

// BeginImport opens the transaction and writes the session's row. An
// empty in.ID gets a new random id; an id in use is ErrExists and nothing
// is written. EventCount, OpenRun and Rounds are left to the events;
// stepping is the Step mode's stored JSON ("" for none). The caller must
// end the import with Commit or Rollback.
func (s *Store) BeginImport(ctx context.Context, in Session, stepping string) (*Import, error) {
	if in.ID == "" {
		in.ID = newID()
	}
	in.CreatedAt = fromNanos(in.CreatedAt.UnixNano())
	in.UpdatedAt = fromNanos(in.UpdatedAt.UnixNano())
	in.Workspace = importedFolder(in.Workspace)
	tx, err := s.w.BeginTx(ctx, nil) // IMMEDIATE: see Append
	if err != nil {
		return nil, fmt.Errorf("store: import: %w", err)
	}
	if err := insertSession(ctx, tx, in); err != nil {
		tx.Rollback()
		return nil, err
	}
	if stepping != "" {
		if _, err := tx.ExecContext(ctx, `UPDATE sessions SET stepping = ? WHERE id = ?`, stepping, in.ID); err != nil {
			tx.Rollback()
			return nil, fmt.Errorf("store: import: stepping: %w", err)
		}
	}
	return &Import{s: s, ctx: ctx, tx: tx, st: s.appendStmts(ctx, tx), id: in.ID}, nil
}

// ID is the id the imported session is stored under.
func (im *Import) ID() string { return im.id }

// Exists reports whether a session with this id is in the database.
func (s *Store) Exists(ctx context.Context, id string) (bool, error) {
	var n int
	err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM sessions WHERE id = ?`, id).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("store: session %q: %w", id, err)
	}
	return n > 0, nil
}

// Event appends e (for the imported session, whatever its SessionID) with
// its kind, time, run, round and payload byte for byte. Its seq must be
// the next one (the caller checks that seqs are dense from 1; this
// checks it again, since appendTx numbers events itself).
func (im *Import) Event(e trace.Event) error {
	want := e.Seq
	e.SessionID = im.id
	if e.Time.IsZero() {
		return fmt.Errorf("store: import event %d: it has no time", want)
	}
	if err := checkEvent(e); err != nil {
		return err
	}
	got, err := im.s.appendTx(im.ctx, im.st, e)
	if err != nil {
		return err
	}
	if got.Seq != want {
		return fmt.Errorf("store: import event %d: it would be event %d of the session", want, got.Seq)
	}
	im.events++
	im.bytes += len(e.Payload)
	return nil
}

// ToolSet stores one of the session's tool sets under the id its requests
// name it by, with the bytes given (the same bytes get the same id, so a
// run that goes on finds its set again).
func (im *Import) ToolSet(id int, tools json.RawMessage) error {
	if id < 1 {
		return fmt.Errorf("store: import tool set %d: ids start at 1", id)
	}
	if !json.Valid(tools) {
		return fmt.Errorf("store: import tool set %d: not valid JSON", id)
	}
	sum := sha256.Sum256(tools)
	_, err := im.tx.ExecContext(im.ctx, `INSERT INTO tool_sets (session_id, id, hash, tools) VALUES (?, ?, ?, ?)`,
		im.id, id, hex.EncodeToString(sum[:]), string(tools))
	if err != nil {
		var same int
		if im.tx.QueryRowContext(im.ctx, findToolSetSQL, im.id, hex.EncodeToString(sum[:])).Scan(&same) == nil {
			return fmt.Errorf("store: import tool set %d: it is the same as tool set %d", id, same)
		}
		return fmt.Errorf("store: import tool set %d: %w", id, err)
	}
	return nil
}

// Finish sets what the events' appends changed to what the session had
// where it was written (when it was last active, and how its last run
// ended: a run_end sets it, and so does a recovery), and returns the
// session as it will be committed, for the caller to compare with what
// the file said.
func (im *Import) Finish(updated time.Time, lastReason string) (Session, error) {
	if _, err := im.tx.ExecContext(im.ctx, `UPDATE sessions SET updated_at = ?, last_reason = ? WHERE id = ?`,
		updated.UnixNano(), lastReason, im.id); err != nil {
		return Session{}, fmt.Errorf("store: import: %w", err)
	}
	s, err := scanSession(im.tx.QueryRowContext(im.ctx, getSessionSQL, im.id))
	if err != nil {
		return Session{}, fmt.Errorf("store: import: %w", err)
	}
	return s, nil
}

// Describe sets what an import converted from another agent's file
// learns of its session as it reads it: its title, folder, model, when
// it began, and where it comes from.
func (im *Import) Describe(in Session) error {
	in.Workspace = importedFolder(in.Workspace)
	if _, err := im.tx.ExecContext(im.ctx, `UPDATE sessions SET title = ?, workspace = ?, model = ?, created_at = ?, source = ?, source_id = ? WHERE id = ?`,
		in.Title, in.Workspace, in.Model, in.CreatedAt.UnixNano(), in.Source, in.SourceID, im.id); err != nil {
		return fmt.Errorf("store: import: %w", err)
	}
	return nil
}

// Commit makes the import durable, all of it at once.
func (im *Import) Commit() error {
	if im.done {
		return errors.New("store: import: already ended")
	}
	im.done = true
	if err := im.tx.Commit(); err != nil {
		return fmt.Errorf("store: import: commit: %w", err)
	}
	// The imported events' text is pending like any appended event's:
	// the indexer takes it in its batches.
	if ix := im.s.ix; ix != nil && im.events > 0 {
		ix.events.Add(int64(im.events - 1))
		ix.appended(im.bytes)
	}
	return nil
}

// Rollback drops everything the import wrote; after Commit it does
// nothing.
func (im *Import) Rollback() {
	if im.done {
		return
	}
	im.done = true
	_ = im.tx.Rollback()
}

// importedFolder is a session file's folder as Loupe keeps it: cleaned,
// so that it names the folder Loupe judges and opens ("~/p/l/.." is
// "~/p" to every check, but to the kernel it is the folder above where
// the link l leads).
func importedFolder(ws string) string {
	if filepath.IsAbs(ws) {
		return filepath.Clean(ws)
	}
	return ws
}
