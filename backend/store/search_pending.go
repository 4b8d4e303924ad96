// The events whose text the index has not taken yet, matched from their
// payloads.

package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/loupe-dev/loupe/backend/trace"
)

// pendingHits are the events appended since the last flush of the index
// (indexer.go) whose text holds q, newest first, in the sessions and
// times f lets through. They are the few appended between Search's flush
// and its read, or all that are pending where the flush failed or cannot
// run (a read-only store): each one's text is made from its payload and
// matched here as the index would.
func pendingHits(ctx context.Context, tx *sql.Tx, q string, f SearchFilter) ([]match, error) {
	where, args := filterSQL(f)
	where = append([]string{`d.id > (SELECT upto FROM search_indexed)`}, where...)
	rows, err := tx.QueryContext(ctx, `SELECT d.session_id, d.seq, e.kind, e.time, e.run, e.round, e.payload FROM search_docs d
		CROSS JOIN events e ON e.session_id = d.session_id AND e.seq = d.seq
		WHERE `+strings.Join(where, ` AND `)+` ORDER BY d.id DESC`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: search: %w", err)
	}
	defer rows.Close()
	var out []match
	for rows.Next() {
		m, err := scanMatch(rows)
		if err != nil {
			return nil, err
		}
		m.text = trace.SearchText(m.e)
		if m.first = matchesFold(m.text, q, 1); len(m.first) > 0 {
			out = append(out, m)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: search: %w", err)
	}
	return out, nil
}
