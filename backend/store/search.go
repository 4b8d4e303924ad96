// Search: the results' types and the query that finds them. What a query
// may be and the SQL it becomes are in search_query.go, the events the index
// has not taken yet in search_pending.go, the indexing of older events in
// search_backlog.go, the index of word pairs that finds phrases in
// search_pairs.go, the snippets in snippet.go.

package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log"
	"math"
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
	// PairsPending is how many events indexed before the index of word
	// pairs existed are still to get theirs (about: an upper bound, 0 when
	// done). Results are whole meanwhile; a phrase of several words is
	// slower to find until it is 0.
	PairsPending int64 `json:"pairs_pending,omitempty"`
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
// them all.
const rankWindow = 100

// How the hits of a search are chosen and ordered.
const (
	OrderBest   = "best"   // by rank (see rankMatches): the query matches few events
	OrderNewest = "newest" // the newest: too many matches to rank
)

// Search finds the events whose text (trace.SearchText) holds query, as a
// substring and ignoring case, in the sessions filters let through: at
// most limit hits (50 when limit <= 0), grouped by session, the sessions
// in the order of their first hit and each one's hits in log order.
//
// One pass over the index reads the newest matches that the filters let
// through, up to one more than rankWindow. When that is all of them, they
// are ranked (rankMatches) and the hits are the best (Order says which);
// else the hits are the newest, which FTS5 reads in order and stops at the
// limit. A query that matches
// few events costs FTS5 a read of every event that holds all its
// trigrams, so it is read once: ranking is done here, on the matches'
// text, not by FTS5's bm25, which reads every match again to count them.
// A query of several words is read from the index of word pairs instead
// (pairMatches), each event it gives checked against its text: same
// results, without the trigram index's check of every event that holds
// all the phrase's trigrams.
// A query CheckQuery refuses is ErrQuery.
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
	// What this process appended goes into the index first, so that it is
	// ranked with the rest; should that fail, or another process have left
	// some pending, it is read from the payloads below. With nothing
	// appended, no write lock is taken.
	if s.ix != nil && s.ix.events.Load() > 0 {
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

	docSQL, docArgs := docEventSQL(f)
	doc, err := tx.PrepareContext(ctx, docSQL)
	if err != nil {
		return SearchResults{}, fmt.Errorf("store: search: %w", err)
	}
	defer doc.Close()
	// loadOne reads the event of id, if f lets it through.
	loadOne := func(id int64) (match, bool, error) {
		m, err := scanMatch(doc.QueryRowContext(ctx, append([]any{id}, docArgs...)...))
		if errors.Is(err, sql.ErrNoRows) {
			return m, false, nil // not what f lets through
		}
		if err != nil {
			return m, false, err
		}
		m.text = trace.SearchText(m.e)
		return m, true, nil
	}

	// A query of several words is looked up through the pairs index when
	// it is whole; if that finds too few of the events it checks to hold
	// q, or q spans no pair, through the trigram index.
	var ms []match
	ok := false
	if pairs := pairPhrase(q); pairs != "" && status.PairsPending == 0 && !s.trigramOnly {
		if ms, out.Order, ok, err = pairMatches(ctx, tx, q, pairs, f, limit+1-len(found), loadOne); err != nil {
			return SearchResults{}, err
		}
	}
	if !ok {
		if ms, out.Order, err = trigramMatches(ctx, tx, q, f, limit+1-len(found), loadOne); err != nil {
			return SearchResults{}, err
		}
	}
	found = append(found, ms...)
	if len(found) > limit {
		found, out.More = found[:limit], true
	}

	sessStmt, err := tx.PrepareContext(ctx, getSessionSQL)
	if err != nil {
		return SearchResults{}, fmt.Errorf("store: search: %w", err)
	}
	defer sessStmt.Close()
	bySession := map[string]int{}
	for _, m := range found {
		i, ok := bySession[m.e.SessionID]
		if !ok {
			sess, err := scanSession(sessStmt.QueryRowContext(ctx, m.e.SessionID))
			if err != nil {
				return SearchResults{}, fmt.Errorf("store: search: session %q: %w", m.e.SessionID, err)
			}
			i = len(out.Sessions)
			bySession[m.e.SessionID] = i
			out.Sessions = append(out.Sessions, SessionHits{
				SessionID: sess.ID, Title: sess.Title, Model: sess.Model, Workspace: sess.Workspace,
				LastReason: sess.LastReason, UpdatedAt: sess.UpdatedAt, Hits: []Hit{},
			})
		}
		e := m.e
		hits := &out.Sessions[i].Hits
		*hits = append(*hits, Hit{
			Seq: e.Seq, Kind: e.Kind, Run: e.Run, Round: e.Round, Time: e.Time,
			Snippet: m.snippet(q),
		})
	}
	for _, sh := range out.Sessions {
		slices.SortFunc(sh.Hits, func(a, b Hit) int { return cmp.Compare(a.Seq, b.Seq) })
	}
	return out, nil
}

// trigramMatches are the matches of q that f lets through, read from the
// trigram index: the newest, up to one more than can be ranked. When that
// is all of them, they are ranked (OrderBest); else they are the newest n
// (OrderNewest), which FTS5 reads in order and stops at.
func trigramMatches(ctx context.Context, tx *sql.Tx, q string, f SearchFilter, n int, loadOne func(int64) (match, bool, error)) ([]match, string, error) {
	phrase := ftsPhrase(q)
	sqlText, args := newestSQL(phrase, f, rankWindow+1)
	ids, err := readIDs(ctx, tx, sqlText, args...)
	if err != nil {
		return nil, "", err
	}
	order := OrderBest
	if len(ids) > rankWindow {
		order = OrderNewest
		if n > len(ids) {
			sqlText, args := newestSQL(phrase, f, n)
			if ids, err = readIDs(ctx, tx, sqlText, args...); err != nil {
				return nil, "", err
			}
		}
	} else {
		n = len(ids) // all of them, ranked
	}
	var ms []match
	for _, id := range ids {
		if len(ms) >= n {
			break
		}
		m, ok, err := loadOne(id)
		if err != nil {
			return nil, "", err
		}
		if ok {
			ms = append(ms, m)
		}
	}
	if order == OrderBest {
		rankMatches(ms, q)
	}
	return ms, order, nil
}

// match is an event whose text holds the query, with its text, and the
// query's first match in it once it is looked for.
type match struct {
	e     trace.Event
	text  string
	rank  float64
	first [][2]int
}

// snippet is the snippet of m's first match of q.
func (m match) snippet(q string) []SnippetPart {
	if m.first == nil {
		return Snippet(m.text, q)
	}
	return snippetAt(m.text, q, m.first)
}

// scanMatch reads a row of session_id, seq, kind, time, run, round and
// payload.
func scanMatch(row interface{ Scan(...any) error }) (match, error) {
	var m match
	var kind string
	var t int64
	var payload []byte
	if err := row.Scan(&m.e.SessionID, &m.e.Seq, &kind, &t, &m.e.Run, &m.e.Round, &payload); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return m, err
		}
		return m, fmt.Errorf("store: search: %w", err)
	}
	m.e.Kind, m.e.Time, m.e.Payload = trace.Kind(kind), fromNanos(t), payload
	return m, nil
}

// readIDs runs a query of one integer column.
func readIDs(ctx context.Context, tx *sql.Tx, query string, args ...any) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: search: %w", err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: search: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: search: %w", err)
	}
	return ids, nil
}

// rankMatches orders ms best first, the newest first among equals, by the
// part of bm25 that tells apart the events holding one phrase: how often
// the text holds q (tf), against its length beside the matches' average
// (k1 = 1.2, b = 0.75, FTS5's own). The part it leaves out, how rare the
// phrase is in the whole log, is the same for every match of one query.
func rankMatches(ms []match, q string) {
	if len(ms) == 0 {
		return
	}
	const k1, b = 1.2, 0.75
	avg := 0.0
	for _, m := range ms {
		avg += float64(len(m.text))
	}
	avg = max(1, avg/float64(len(ms)))
	for i := range ms {
		tf := float64(len(matchesFold(ms[i].text, q, math.MaxInt)))
		ms[i].rank = tf * (k1 + 1) / (tf + k1*(1-b+b*float64(len(ms[i].text))/avg))
	}
	// ms is newest first: a stable sort keeps that among equals.
	slices.SortStableFunc(ms, func(x, y match) int { return cmp.Compare(y.rank, x.rank) })
}
