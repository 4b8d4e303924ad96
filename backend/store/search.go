// Search: the results' types and the query that finds them. What a query
// may be and the SQL it becomes are in search_query.go, the events the index
// has not taken yet in search_pending.go, the indexing of older events in
// search_backlog.go, the snippets in snippet.go.

package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"log"
	"slices"
	"time"

	"github.com/loupe-dev/loupe/backend/trace"
)

// SearchFilter narrows a search; a zero field does not.
type SearchFilter struct {
	// Model, Workspace and Outcome match the session's model, workspace
	// folder and the reason its last run ended (Session.LastReason) exactly.
	Model     string `json:"model,omitempty"`
	Workspace string `json:"workspace,omitempty"`
	Outcome   string `json:"outcome,omitempty"`
	// From and To bound when the matching event was written: From <= time
	// < To.
	From time.Time `json:"from,omitzero"`
	To   time.Time `json:"to,omitzero"`
}

// SearchStatus is how much of the log search covers: Indexed of Total
// events. Older events (written before search, or by an older Loupe) are
// indexed in the background; until they all are, results are partial.
type SearchStatus struct {
	Indexed int64 `json:"indexed"`
	Total   int64 `json:"total"`
}

// Partial tells whether some events are not indexed yet.
func (st SearchStatus) Partial() bool { return st.Indexed < st.Total }

// SearchResults are the hits of a query, grouped by session: the sessions
// in the order of their first hit (see Order), each one's hits in log
// order.
type SearchResults struct {
	Query    string        `json:"query"`
	Sessions []SessionHits `json:"sessions"`
	// More is set when there were more hits than the limit.
	More bool `json:"more"`
	// Order says how the hits were chosen: OrderBest or OrderNewest.
	Order string `json:"order"`
	// Partial is set while older events are still being indexed: a hit
	// among them is not found yet. Status says how far indexing is.
	Partial bool         `json:"partial"`
	Status  SearchStatus `json:"status"`
}

// SessionHits are one session's hits, with what the list shows of it.
type SessionHits struct {
	SessionID  string    `json:"session_id"`
	Title      string    `json:"title"`
	Model      string    `json:"model"`
	Workspace  string    `json:"workspace"`
	LastReason string    `json:"last_reason"`
	UpdatedAt  time.Time `json:"updated_at"`
	Hits       []Hit     `json:"hits"`
}

// Hit is one event whose text holds the query.
type Hit struct {
	Seq   int64      `json:"seq"`
	Kind  trace.Kind `json:"kind"`
	Run   int        `json:"run"`
	Round int        `json:"round"`
	Time  time.Time  `json:"time"`
	// Snippet is the text around the first match, in pieces; the pieces
	// that are the query are marked. Plain text, nothing to unescape.
	Snippet []SnippetPart `json:"snippet"`
}

// SnippetPart is a piece of a snippet; Match marks the query's text.
type SnippetPart struct {
	Text  string `json:"text"`
	Match bool   `json:"match,omitempty"`
}

// rankWindow is how many matches a query may have for Search to rank
// them all by bm25.
const rankWindow = 100

// How the hits of a search are chosen and ordered.
const (
	OrderBest   = "best"   // by bm25 rank: the query matches few events
	OrderNewest = "newest" // the newest: too many matches to rank
)

// Search finds the events whose text (trace.SearchText) holds query, as a
// substring and ignoring case, in the sessions filters let through: at
// most limit hits (50 when limit <= 0), grouped by session, the sessions
// in the order of their first hit and each one's hits in log order.
//
// The hits are the best by FTS5's bm25 rank when the query matches at
// most rankWindow events, and else the newest (Order says which): bm25
// weighs a match by how many events hold the query, which FTS5 counts by
// reading every match, so ranking a word found in half the log would cost
// most of a second over 200,000 events (docs/BENCHMARKS.md), while the
// newest are read from the index in order, and it stops at the limit. A
// query CheckQuery refuses is ErrQuery.
func (s *Store) Search(ctx context.Context, query string, f SearchFilter, limit int) (SearchResults, error) {
	q, err := CheckQuery(query)
	if err != nil {
		return SearchResults{}, err
	}
	if limit <= 0 {
		limit = 50
	}
	if !f.From.IsZero() && !f.To.IsZero() && !f.From.Before(f.To) {
		return SearchResults{}, &queryError{fmt.Sprintf("the date range ends (%s) before it starts (%s)", f.To.Format(time.DateOnly), f.From.Format(time.DateOnly))}
	}
	// What is pending goes into the index first, so that it is ranked
	// with the rest; should that fail, it is read from the payloads below.
	if s.ix != nil {
		if err := s.ix.flush(ctx); err != nil {
			log.Printf("loupe: search index: %v", err)
		}
	}
	// One read transaction: the hits, their sessions and events are one
	// snapshot, so a session deleted meanwhile is wholly absent.
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return SearchResults{}, fmt.Errorf("store: search: %w", err)
	}
	defer tx.Rollback()

	status, err := searchStatus(ctx, tx)
	if err != nil {
		return SearchResults{}, err
	}
	out := SearchResults{Query: q, Sessions: []SessionHits{}, Partial: status.Partial(), Status: status}

	// Events appended since the flush above: the newest, read from their
	// payloads.
	found, err := pendingHits(ctx, tx, q, f)
	if err != nil {
		return SearchResults{}, err
	}

	// One pass over the newest matches, up to one more than can be ranked,
	// says whether to rank them; without filters it also holds the newest
	// hits, so that those are not read from the index twice.
	phrase := ftsPhrase(q)
	var newest []int64
	rows, err := tx.QueryContext(ctx, `SELECT rowid FROM search_text
		WHERE search_text MATCH ? ORDER BY rowid DESC LIMIT ?`, phrase, rankWindow+1)
	if err != nil {
		return SearchResults{}, fmt.Errorf("store: search: %w", err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return SearchResults{}, fmt.Errorf("store: search: %w", err)
		}
		newest = append(newest, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return SearchResults{}, fmt.Errorf("store: search: %w", err)
	}
	order := `f.rowid DESC`
	out.Order = OrderNewest
	if len(newest) <= rankWindow {
		order, out.Order = `f.rank`, OrderBest
	}

	if out.Order == OrderNewest && f == (SearchFilter{}) && limit < len(newest) {
		for _, id := range newest[:limit+1] {
			var k docKey
			if err := tx.QueryRowContext(ctx, `SELECT session_id, seq FROM search_docs WHERE id = ?`, id).Scan(&k.session, &k.seq); err != nil {
				return SearchResults{}, fmt.Errorf("store: search: %w", err)
			}
			found = append(found, k)
		}
	} else {
		sqlText, args := searchSQL(phrase, f, order, limit+1)
		rows, err := tx.QueryContext(ctx, sqlText, args...)
		if err != nil {
			return SearchResults{}, fmt.Errorf("store: search: %w", err)
		}
		for rows.Next() {
			var k docKey
			if err := rows.Scan(&k.session, &k.seq); err != nil {
				rows.Close()
				return SearchResults{}, fmt.Errorf("store: search: %w", err)
			}
			found = append(found, k)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return SearchResults{}, fmt.Errorf("store: search: %w", err)
		}
	}
	if len(found) > limit {
		found, out.More = found[:limit], true
	}

	bySession := map[string]int{}
	for _, k := range found {
		i, ok := bySession[k.session]
		if !ok {
			sess, err := scanSession(tx.QueryRowContext(ctx, getSessionSQL, k.session))
			if err != nil {
				return SearchResults{}, fmt.Errorf("store: search: session %q: %w", k.session, err)
			}
			i = len(out.Sessions)
			bySession[k.session] = i
			out.Sessions = append(out.Sessions, SessionHits{
				SessionID: sess.ID, Title: sess.Title, Model: sess.Model, Workspace: sess.Workspace,
				LastReason: sess.LastReason, UpdatedAt: sess.UpdatedAt, Hits: []Hit{},
			})
		}
		e := trace.Event{SessionID: k.session, Seq: k.seq}
		var kind string
		var t int64
		var payload []byte
		if err := tx.QueryRowContext(ctx, eventSQL, k.session, k.seq).Scan(&kind, &t, &e.Run, &e.Round, &payload); err != nil {
			return SearchResults{}, fmt.Errorf("store: search: event %d of %q: %w", k.seq, k.session, err)
		}
		e.Kind, e.Time, e.Payload = trace.Kind(kind), fromNanos(t), payload
		hits := &out.Sessions[i].Hits
		*hits = append(*hits, Hit{
			Seq: e.Seq, Kind: e.Kind, Run: e.Run, Round: e.Round, Time: e.Time,
			Snippet: Snippet(trace.SearchText(e), q),
		})
	}
	for _, sh := range out.Sessions {
		slices.SortFunc(sh.Hits, func(a, b Hit) int { return cmp.Compare(a.Seq, b.Seq) })
	}
	return out, nil
}

// docKey names an event.
type docKey struct {
	session string
	seq     int64
}
