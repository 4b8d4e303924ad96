package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/loupe-dev/loupe/backend/trace"
)

// Session is one conversation: its metadata and a summary of its log.
type Session struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	Workspace string    `json:"workspace"`
	Model     string    `json:"model"`
	CreatedAt time.Time `json:"created_at"`
	// UpdatedAt changes with every appended event and every UpdateSession.
	UpdatedAt time.Time `json:"updated_at"`
	// LastReason is the reason of the last run_end event, or "" before the
	// first run and while a run is open. UpdateSession can also set it.
	LastReason string `json:"last_reason"`
	// EventCount is the number of events, which is also the newest seq.
	EventCount int `json:"event_count"`
	// OpenRun is the run that is open (its user_message was appended, its
	// run_end not yet), or 0.
	OpenRun int `json:"open_run"`
	// Tools are the tools the session offers its model, by name; nil
	// offers every built-in tool. An empty list offers none (plain chat).
	Tools *[]string `json:"tools,omitempty"`
	// Host is the Ollama host the session runs on: "" the local one, a
	// name of Settings' named hosts, or an address (see settings.HostRef).
	Host string `json:"host,omitempty"`
	// Pinned keeps the session on top of the list.
	Pinned bool `json:"pinned"`
	// CopiedFrom is the session this one is a copy of (CopySession), or
	// "". The source may be gone since.
	CopiedFrom string `json:"copied_from,omitempty"`
	// ForkedFrom is the session this one is a fork of (store.Fork), or
	// "", and ForkSeq the parent's last event its log holds: up to there
	// the two logs are the same, byte for byte. The parent may be gone
	// since; its forks are ListForks.
	ForkedFrom string `json:"forked_from,omitempty"`
	ForkSeq    int64  `json:"fork_seq,omitempty"`
	// Rounds is how many requests to the model the log holds, compaction's
	// left out (kept by the database as events arrive: 0009_session_list.sql).
	Rounds int `json:"rounds"`
	// Source is the agent a session was imported from ("claude-code",
	// "codex", "atif"), "" for Loupe's own; SourceID its id there. A
	// session with a source is read-only: its forks go on in Loupe.
	Source   string `json:"source,omitempty"`
	SourceID string `json:"source_id,omitempty"`
}

// SessionUpdate names the fields to change; nil leaves a field as it is.
type SessionUpdate struct {
	Title      *string
	Model      *string
	LastReason *string
}

const sessionCols = `id, title, workspace, model, created_at, updated_at, last_reason, last_seq, open_run, offered_tools, host, pinned, copied_from, rounds, forked_from, fork_seq, source, source_id`

func scanSession(row interface{ Scan(...any) error }) (Session, error) {
	var s Session
	var created, updated int64
	var offered sql.NullString
	err := row.Scan(&s.ID, &s.Title, &s.Workspace, &s.Model, &created, &updated, &s.LastReason, &s.EventCount, &s.OpenRun, &offered, &s.Host, &s.Pinned, &s.CopiedFrom, &s.Rounds, &s.ForkedFrom, &s.ForkSeq, &s.Source, &s.SourceID)
	s.CreatedAt = fromNanos(created)
	s.UpdatedAt = fromNanos(updated)
	if err == nil && offered.Valid {
		var names []string
		if json.Unmarshal([]byte(offered.String), &names) != nil {
			// Not a list (changed by hand): offer no tools rather than
			// fail every read of the session list, or offer more than
			// was chosen. The window shows "0 of 7", where the tools can
			// be chosen again.
			names = nil
		}
		if names == nil {
			names = []string{}
		}
		s.Tools = &names
	}
	return s, err
}

// toolsColumn is how Session.Tools is stored: NULL for every tool.
func toolsColumn(tools *[]string) (any, error) {
	if tools == nil {
		return nil, nil
	}
	names := *tools
	if names == nil {
		names = []string{}
	}
	b, err := json.Marshal(names)
	return string(b), err
}

// newID returns 16 random hex characters: URL-safe, and 64 bits is plenty
// for the sessions of one machine.
func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

// CreateSession stores a new, empty session and returns it as stored. An
// empty ID gets a random one; a zero CreatedAt is now, a zero UpdatedAt is
// CreatedAt. EventCount and OpenRun are ignored. An ID already in use is ErrExists.
func (s *Store) CreateSession(ctx context.Context, in Session) (Session, error) {
	in = s.newSession(in)
	if err := insertSession(ctx, s.w, in); err != nil {
		return Session{}, err
	}
	return in, nil
}

// CreateSessionWith stores a new session (as CreateSession does) and its
// first event (as Append does) in one transaction: a crash or an error at
// any moment leaves both or neither, never a session without its first
// event. first.SessionID may be empty; it is the new session's ID. It
// returns the session and the event as stored.
//
// A first event that opens a run (a user_message) is written with the
// run's lease, taken by this process in the same transaction (see
// TakeLease): the run is never open without its owner, so no other
// process's recovery takes it for a crashed one. The caller releases the
// lease once the run's run_end is written, or gives it to the run (which
// takes it again). For any other first event the lease is nil.
func (s *Store) CreateSessionWith(ctx context.Context, in Session, first trace.Event) (Session, trace.Event, *Lease, error) {
	in = s.newSession(in)
	switch first.SessionID {
	case "":
		first.SessionID = in.ID
	case in.ID:
	default:
		return Session{}, trace.Event{}, nil, fmt.Errorf("store: create session %q: its first event is for session %q", in.ID, first.SessionID)
	}
	if err := checkEvent(first); err != nil {
		return Session{}, trace.Event{}, nil, err
	}
	tx, err := s.w.BeginTx(ctx, nil) // IMMEDIATE: see Append
	if err != nil {
		return Session{}, trace.Event{}, nil, fmt.Errorf("store: create session: %w", err)
	}
	defer tx.Rollback()
	if err := insertSession(ctx, tx, in); err != nil {
		return Session{}, trace.Event{}, nil, err
	}
	var lease *Lease
	if first.Kind == trace.KindUserMessage {
		if lease, err = s.takeLeaseTx(ctx, tx, in.ID); err != nil {
			return Session{}, trace.Event{}, nil, err
		}
	}
	e, err := s.appendTx(ctx, s.appendStmts(ctx, tx), first)
	if err != nil {
		return Session{}, trace.Event{}, nil, err
	}
	sess, err := scanSession(tx.QueryRowContext(ctx, getSessionSQL, in.ID))
	if err != nil {
		return Session{}, trace.Event{}, nil, fmt.Errorf("store: create session: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return Session{}, trace.Event{}, nil, fmt.Errorf("store: create session: commit: %w", err)
	}
	if lease != nil {
		beats.hold(s)
	}
	return sess, e, lease, nil
}

// newSession fills in what CreateSession leaves to the store.
func (s *Store) newSession(in Session) Session {
	if in.ID == "" {
		in.ID = newID()
	}
	if in.CreatedAt.IsZero() {
		in.CreatedAt = s.now()
	}
	if in.UpdatedAt.IsZero() {
		in.UpdatedAt = in.CreatedAt
	}
	in.CreatedAt = fromNanos(in.CreatedAt.UnixNano())
	in.UpdatedAt = fromNanos(in.UpdatedAt.UnixNano())
	in.EventCount, in.OpenRun, in.Rounds = 0, 0, 0
	return in
}

// insertSession inserts the row of a new session through w (the writer or
// one of its transactions).
func insertSession(ctx context.Context, w interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, in Session) error {
	offered, err := toolsColumn(in.Tools)
	if err != nil {
		return fmt.Errorf("store: create session: %w", err)
	}
	res, err := w.ExecContext(ctx, `INSERT INTO sessions
		(id, title, workspace, model, created_at, updated_at, last_reason, offered_tools, host, pinned, copied_from, forked_from, fork_seq, source, source_id)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
		in.ID, in.Title, in.Workspace, in.Model, in.CreatedAt.UnixNano(), in.UpdatedAt.UnixNano(), in.LastReason, offered, in.Host, in.Pinned, in.CopiedFrom, in.ForkedFrom, in.ForkSeq, in.Source, in.SourceID)
	if err != nil {
		return fmt.Errorf("store: create session: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("store: create session: %w", err)
	} else if n == 0 {
		return fmt.Errorf("store: session %q: %w", in.ID, ErrExists)
	}
	return nil
}

// GetSession returns one session, or ErrNotFound.
func (s *Store) GetSession(ctx context.Context, id string) (Session, error) {
	sess, err := scanSession(s.stmt.getSession.QueryRowContext(ctx, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, notFound(id)
	}
	if err != nil {
		return Session{}, fmt.Errorf("store: get session %q: %w", id, err)
	}
	return sess, nil
}

// ListSessions returns all sessions, the pinned first, each part most
// recently updated first.
func (s *Store) ListSessions(ctx context.Context) ([]Session, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+sessionCols+` FROM sessions ORDER BY pinned DESC, updated_at DESC, id`)
	if err != nil {
		return nil, fmt.Errorf("store: list sessions: %w", err)
	}
	defer rows.Close()
	out := []Session{}
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list sessions: %w", err)
		}
		out = append(out, sess)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list sessions: %w", err)
	}
	return out, nil
}

// OpenSessions returns the sessions that have a run open, for recovery at
// start-up: it reads an index of them, no log.
func (s *Store) OpenSessions(ctx context.Context) ([]Session, error) {
	rows, err := s.r.QueryContext(ctx, openSessionsSQL)
	if err != nil {
		return nil, fmt.Errorf("store: open sessions: %w", err)
	}
	defer rows.Close()
	out := []Session{}
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("store: open sessions: %w", err)
		}
		out = append(out, sess)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: open sessions: %w", err)
	}
	return out, nil
}

const openSessionsSQL = `SELECT ` + sessionCols + ` FROM sessions WHERE open_run > 0`

// UpdateSession changes the fields named in u, sets updated_at to now and
// returns the session as stored, or ErrNotFound.
func (s *Store) UpdateSession(ctx context.Context, id string, u SessionUpdate) (Session, error) {
	sess, err := scanSession(s.stmt.updateSession.QueryRowContext(ctx,
		u.Title, u.Model, u.LastReason, s.now().UnixNano(), id))
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, notFound(id)
	}
	if err != nil {
		return Session{}, fmt.Errorf("store: update session %q: %w", id, err)
	}
	return sess, nil
}

// SetSessionTools stores the tools a session offers its model (nil: every
// built-in tool), sets updated_at to now and returns the session as
// stored, or ErrNotFound. The names are the caller's to check.
func (s *Store) SetSessionTools(ctx context.Context, id string, tools *[]string) (Session, error) {
	offered, err := toolsColumn(tools)
	if err != nil {
		return Session{}, fmt.Errorf("store: set tools of session %q: %w", id, err)
	}
	sess, err := scanSession(s.w.QueryRowContext(ctx, `UPDATE sessions SET offered_tools = ?, updated_at = ?
		WHERE id = ? RETURNING `+sessionCols, offered, s.now().UnixNano(), id))
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, notFound(id)
	}
	if err != nil {
		return Session{}, fmt.Errorf("store: set tools of session %q: %w", id, err)
	}
	return sess, nil
}

// DeleteSession removes a session and, by cascade, all its events.
func (s *Store) DeleteSession(ctx context.Context, id string) error {
	res, err := s.w.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("store: delete session %q: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("store: delete session %q: %w", id, err)
	} else if n == 0 {
		return notFound(id)
	}
	return nil
}

func notFound(id string) error {
	return fmt.Errorf("store: session %q: %w", id, ErrNotFound)
}

// fromNanos is the inverse of Time.UnixNano, in UTC.
func fromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }

// GetStepping decodes the session's saved Step mode and breakpoints into
// dst and reports whether any were saved. It is ErrNotFound for a session
// that does not exist.
func (s *Store) GetStepping(ctx context.Context, id string, dst any) (bool, error) {
	var value string
	err := s.r.QueryRowContext(ctx, `SELECT stepping FROM sessions WHERE id = ?`, id).Scan(&value)
	if errors.Is(err, sql.ErrNoRows) {
		return false, notFound(id)
	}
	if err != nil {
		return false, fmt.Errorf("store: stepping of session %q: %w", id, err)
	}
	if value == "" {
		return false, nil
	}
	if err := json.Unmarshal([]byte(value), dst); err != nil {
		return true, fmt.Errorf("store: decode stepping of session %q: %w", id, err)
	}
	return true, nil
}

// PutStepping saves v, encoded as JSON, as the session's Step mode and
// breakpoints. It does not touch updated_at: stepping is no activity.
func (s *Store) PutStepping(ctx context.Context, id string, v any) error {
	value, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("store: encode stepping of session %q: %w", id, err)
	}
	res, err := s.w.ExecContext(ctx, `UPDATE sessions SET stepping = ? WHERE id = ?`, string(value), id)
	if err != nil {
		return fmt.Errorf("store: save stepping of session %q: %w", id, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return notFound(id)
	}
	return nil
}
