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
func pendingHits(ctx context.Context, tx *sql.Tx, q string, f SearchFilter) ([]docKey, error) {
	sqlText := `SELECT d.session_id, d.seq, e.kind, e.time, e.payload FROM search_docs d
		CROSS JOIN events e ON e.session_id = d.session_id AND e.seq = d.seq`
	where := []string{`d.id > (SELECT upto FROM search_indexed)`}
	var args []any
	var sessWhere []string
	for _, c := range []struct{ col, v string }{{"model", f.Model}, {"workspace", f.Workspace}, {"last_reason", f.Outcome}} {
		if c.v != "" {
			sessWhere = append(sessWhere, c.col+` = ?`)
			args = append(args, c.v)
		}
	}
	if len(sessWhere) > 0 {
		where = append(where, `d.session_id IN (SELECT id FROM sessions WHERE `+strings.Join(sessWhere, ` AND `)+`)`)
	}
	if !f.From.IsZero() {
		where = append(where, `e.time >= ?`)
		args = append(args, f.From.UnixNano())
	}
	if !f.To.IsZero() {
		where = append(where, `e.time < ?`)
		args = append(args, f.To.UnixNano())
	}
	sqlText += ` WHERE ` + strings.Join(where, ` AND `)
	rows, err := tx.QueryContext(ctx, sqlText+` ORDER BY d.id DESC`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: search: %w", err)
	}
	defer rows.Close()
	var out []docKey
	for rows.Next() {
		var k docKey
		var kind string
		var t int64
		var payload []byte
		if err := rows.Scan(&k.session, &k.seq, &kind, &t, &payload); err != nil {
			return nil, fmt.Errorf("store: search: %w", err)
		}
		e := trace.Event{SessionID: k.session, Seq: k.seq, Kind: trace.Kind(kind), Payload: payload}
		if len(matchesFold(trace.SearchText(e), q, 1)) > 0 {
			out = append(out, k)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: search: %w", err)
	}
	return out, nil
}
