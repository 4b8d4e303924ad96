package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// statements are the queries each agent run makes several times, prepared
// once per Store: parsing and planning SQL costs about as much CPU as
// running these one-row statements (TestHotQueriesUseKeys checks their
// plans). Writes are prepared on the writer, reads on the
// read pool (database/sql prepares them again on each reader connection
// the first time it is used there). Inside a transaction they are used
// through tx.StmtContext, which reuses the writer's prepared copy.
type statements struct {
	// On s.w.
	nextSeq, insertEvent, insertDoc, insertText, insertPairs, updateSession *sql.Stmt
	// On s.r.
	events, getSession, getSetting *sql.Stmt
}

const (
	getSessionSQL    = `SELECT ` + sessionCols + ` FROM sessions WHERE id = ?`
	updateSessionSQL = `UPDATE sessions SET
			title = coalesce(?, title),
			model = coalesce(?, model),
			last_reason = coalesce(?, last_reason),
			updated_at = ?
		WHERE id = ? RETURNING ` + sessionCols
	getSettingSQL = `SELECT value FROM settings WHERE key = ?`
)

func (s *Store) prepareStatements(ctx context.Context) error {
	var errs []error
	prep := func(db *sql.DB, query string) *sql.Stmt {
		st, err := db.PrepareContext(ctx, query)
		if err != nil {
			errs = append(errs, fmt.Errorf("prepare %q: %w", query, err))
		}
		return st
	}
	s.stmt = statements{
		nextSeq:       prep(s.w, nextSeqSQL),
		insertEvent:   prep(s.w, insertEventSQL),
		insertDoc:     prep(s.w, insertDocSQL),
		insertText:    prep(s.w, insertTextSQL),
		insertPairs:   prep(s.w, insertPairsSQL),
		updateSession: prep(s.w, updateSessionSQL),
		events:        prep(s.r, eventsSQL),
		getSession:    prep(s.r, getSessionSQL),
		getSetting:    prep(s.r, getSettingSQL),
	}
	return errors.Join(errs...)
}

// close closes the statements that were prepared. They stay in place:
// a closed statement reports "sql: statement is closed" to a late caller,
// and closing it again is a no-op.
func (st *statements) close() error {
	var errs []error
	for _, p := range []*sql.Stmt{
		st.nextSeq, st.insertEvent, st.insertDoc, st.insertText, st.insertPairs, st.updateSession,
		st.events, st.getSession, st.getSetting,
	} {
		if p != nil {
			errs = append(errs, p.Close())
		}
	}
	return errors.Join(errs...)
}
