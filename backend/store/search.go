package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

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

// MinQuery is the fewest characters a query can have: the trigram index
// finds nothing shorter.
const MinQuery = 3

// ErrQuery is what a query search cannot run is (errors.Is).
var ErrQuery = errors.New("bad search query")

// queryError says why a query cannot run, and what to type instead.
type queryError struct{ msg string }

func (e *queryError) Error() string { return e.msg }
func (e *queryError) Unwrap() error { return ErrQuery }

// CheckQuery returns the query search looks for: q without the spaces
// around it, matched literally, quotes and all. A query of fewer than
// MinQuery characters, or only of quotes, or with a NUL in it, is an error
// that says so.
func CheckQuery(q string) (string, error) {
	q = strings.TrimSpace(q)
	if strings.Trim(q, "\"'` \t") == "" && q != "" {
		return "", &queryError{fmt.Sprintf("search for some text: %s holds only quotes (the query is matched as typed, quotes included; type at least %d characters)", q, MinQuery)}
	}
	if strings.ContainsRune(q, 0) {
		// FTS5 reads its query as a C string: it would end there.
		return "", &queryError{"the query holds a NUL character (\\x00), which search cannot look for; leave it out"}
	}
	if n := utf8.RuneCountInString(q); n < MinQuery {
		return "", &queryError{fmt.Sprintf("type at least %d characters to search (%q has %d)", MinQuery, q, n)}
	}
	return q, nil
}

// ftsPhrase quotes q as one FTS5 string: the trigram tokenizer then finds
// it as a substring, case-insensitively, with no FTS5 syntax in it.
func ftsPhrase(q string) string {
	return `"` + strings.ReplaceAll(q, `"`, `""`) + `"`
}

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

// SearchStatus says how many events search covers.
func (s *Store) SearchStatus(ctx context.Context) (SearchStatus, error) {
	return searchStatus(ctx, s.r)
}

func searchStatus(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (SearchStatus, error) {
	var st SearchStatus
	var pending int64
	// The backlog's ranges may hold events already indexed (written by
	// Append within a range that a writer without the index extended), so
	// pending is at most what is left; it is 0 exactly when all is done.
	err := q.QueryRowContext(ctx, `SELECT
		(SELECT coalesce(sum(last_seq), 0) FROM sessions),
		(SELECT coalesce(sum(to_seq - from_seq + 1), 0) FROM search_backlog)`).Scan(&st.Total, &pending)
	if err != nil {
		return SearchStatus{}, fmt.Errorf("store: search status: %w", err)
	}
	st.Indexed = max(0, st.Total-pending)
	return st, nil
}

// Backlog batches: small enough that the transaction holding the write lock
// is short (the window and a `loupe run` on the same file wait for it),
// large enough that the whole backlog goes quickly.
const (
	backlogEvents = 200
	backlogBytes  = 2 << 20
)

// IndexBacklog indexes the events that still need it (see SearchStatus),
// one small IMMEDIATE transaction at a time, the most recently updated
// sessions first, until none is left or ctx is done; progress, when not
// nil, is told after each batch. Between batches it waits about as long as
// the batch took, so that other writers (this process's runs, another
// process's) get the lock. Several processes may run it on one file at
// once: each batch re-reads the backlog under the write lock, so every
// event is indexed once.
func (s *Store) IndexBacklog(ctx context.Context, progress func(SearchStatus)) error {
	for {
		start := time.Now()
		done, err := s.indexBatch(ctx, backlogEvents, backlogBytes)
		if err != nil || done {
			return err
		}
		if progress != nil {
			st, err := s.SearchStatus(ctx)
			if err != nil {
				return err
			}
			progress(st)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(max(5*time.Millisecond, time.Since(start))):
		}
	}
}

// indexBatch indexes up to maxEvents events (or about maxBytes of
// payload) of the backlog's first session, in one transaction, and
// reports whether the backlog was empty.
func (s *Store) indexBatch(ctx context.Context, maxEvents, maxBytes int) (done bool, err error) {
	tx, err := s.w.BeginTx(ctx, nil) // IMMEDIATE: the backlog cannot change under us
	if err != nil {
		return false, fmt.Errorf("store: index older events: %w", err)
	}
	defer tx.Rollback()
	var id string
	var from, to int64
	err = tx.QueryRowContext(ctx, `SELECT b.session_id, b.from_seq, b.to_seq
		FROM search_backlog b JOIN sessions s ON s.id = b.session_id
		ORDER BY s.updated_at DESC, s.id LIMIT 1`).Scan(&id, &from, &to)
	if errors.Is(err, sql.ErrNoRows) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: index older events: %w", err)
	}
	// The events of the range not indexed yet, newest first, up to the
	// batch's size. They are older than every event Append indexed, so
	// their ids go below every id so far, and search, which reads the
	// index newest first, meets them after those.
	var id0 sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT min(id) FROM search_docs`).Scan(&id0); err != nil {
		return false, fmt.Errorf("store: index older events: %w", err)
	}
	nextID := min(0, id0.Int64) - 1
	rows, err := tx.QueryContext(ctx, `SELECT seq, kind, time, run, round, payload FROM events e
		WHERE session_id = ? AND seq BETWEEN ? AND ?
		  AND NOT EXISTS (SELECT 1 FROM search_docs d WHERE d.session_id = e.session_id AND d.seq = e.seq)
		ORDER BY seq DESC`, id, from, to)
	if err != nil {
		return false, fmt.Errorf("store: index older events of %q: %w", id, err)
	}
	var evs []trace.Event
	size, through := 0, from
	for rows.Next() {
		if len(evs) >= maxEvents || size >= maxBytes {
			through = evs[len(evs)-1].Seq
			break
		}
		e := trace.Event{SessionID: id}
		var kind string
		var t int64
		var payload []byte
		if err := rows.Scan(&e.Seq, &kind, &t, &e.Run, &e.Round, &payload); err != nil {
			rows.Close()
			return false, fmt.Errorf("store: index older events of %q: %w", id, err)
		}
		e.Kind, e.Time, e.Payload = trace.Kind(kind), fromNanos(t), payload
		evs = append(evs, e)
		size += len(payload)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return false, fmt.Errorf("store: index older events of %q: %w", id, err)
	}
	insertDoc, insertText := tx.StmtContext(ctx, s.stmt.insertDoc), tx.StmtContext(ctx, s.stmt.insertText)
	for _, e := range evs {
		docID := nextID
		nextID--
		if err := indexEvent(ctx, insertDoc, insertText, e, &docID); err != nil {
			return false, fmt.Errorf("store: index event %d of %q: %w", e.Seq, id, err)
		}
	}
	if through <= from {
		_, err = tx.ExecContext(ctx, `DELETE FROM search_backlog WHERE session_id = ?`, id)
	} else {
		_, err = tx.ExecContext(ctx, `UPDATE search_backlog SET to_seq = ? WHERE session_id = ?`, through-1, id)
	}
	if err != nil {
		return false, fmt.Errorf("store: index older events of %q: %w", id, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("store: index older events: commit: %w", err)
	}
	return false, nil
}

// Snippet cuts the text around the first match of q in text (ignoring
// case as the index does) into pieces, the matches marked: about 60 bytes
// before it and 120 after, whitespace runs shown as one space, "…" where
// the text goes on. A text without a match (an index of another case
// folding) gives its start, unmarked.
func Snippet(text, q string) []SnippetPart {
	const before, after = 60, 120
	ms := matchesFold(text, q, 1)
	start, end := 0, min(len(text), before+after)
	if len(ms) > 0 {
		start = max(0, ms[0][0]-before)
		end = min(len(text), ms[0][1]+after)
	}
	for start > 0 && !utf8.RuneStart(text[start]) {
		start--
	}
	for end < len(text) && !utf8.RuneStart(text[end]) {
		end++
	}
	if len(ms) > 0 {
		// The other matches shown are those after the first, within the
		// snippet: looked for there only, not in the rest of a long text.
		from := ms[0][1]
		for _, m := range matchesFold(text[from:end], q, 7) {
			ms = append(ms, [2]int{from + m[0], from + m[1]})
		}
	}
	var parts []SnippetPart
	add := func(s string, match bool) {
		s = collapseSpace(s)
		if s == "" {
			return
		}
		parts = append(parts, SnippetPart{Text: s, Match: match})
	}
	if start > 0 {
		add("…", false)
	}
	at := start
	for _, m := range ms {
		if m[0] < at || m[1] > end {
			continue
		}
		add(text[at:m[0]], false)
		add(text[m[0]:m[1]], true)
		at = m[1]
	}
	add(text[at:end], false)
	if end < len(text) {
		add("…", false)
	}
	// A snippet starts and ends with text, not the space of a cut line.
	if len(parts) > 0 && !parts[0].Match {
		parts[0].Text = strings.TrimLeft(parts[0].Text, " ")
	}
	if n := len(parts); n > 0 && !parts[n-1].Match {
		parts[n-1].Text = strings.TrimRight(parts[n-1].Text, " ")
	}
	if parts == nil {
		parts = []SnippetPart{}
	}
	return parts
}

// collapseSpace shows each run of whitespace as one space: a snippet is
// one line.
func collapseSpace(s string) string {
	if !strings.ContainsAny(s, "\n\r\t\v\f") && !strings.Contains(s, "  ") {
		return s
	}
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// matchesFold returns the byte ranges of the first max occurrences of q in
// text, without overlaps, comparing runes lowercased (as the trigram
// tokenizer folds case).
func matchesFold(text, q string, max int) [][2]int {
	qr := []rune(q)
	for i, r := range qr {
		qr[i] = unicode.ToLower(r)
	}
	if len(qr) == 0 {
		return nil
	}
	// A query that starts with an ASCII letter or sign skips the bytes
	// that cannot start a match without decoding them: most of a long
	// output.
	first := -1
	if qr[0] < utf8.RuneSelf && unicode.ToUpper(qr[0]) < utf8.RuneSelf {
		first = int(qr[0])
	}
	upper := int(unicode.ToUpper(qr[0]))
	var out [][2]int
	for i := 0; i < len(text) && len(out) < max; {
		if b := int(text[i]); first >= 0 && b < utf8.RuneSelf && b != first && b != upper {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		if unicode.ToLower(r) != qr[0] {
			i += n
			continue
		}
		j, k := i+n, 1
		for ; k < len(qr) && j < len(text); k++ {
			r2, n2 := utf8.DecodeRuneInString(text[j:])
			if unicode.ToLower(r2) != qr[k] {
				break
			}
			j += n2
		}
		if k == len(qr) {
			out = append(out, [2]int{i, j})
			i = j
			continue
		}
		i += n
	}
	return out
}

// searchSQL is the query of a search's hits: FTS5 is the outer loop (CROSS
// JOIN keeps it there), read by rank or in descending rowid order, which
// is the order the events were written (see insertDocSQL); a filter is an
// IN over sessions, which SQLite reads once, or the event's time, looked
// up by primary key (TestSearchQueryPlans checks the plan).
func searchSQL(phrase string, f SearchFilter, order string, limit int) (string, []any) {
	sqlText := `SELECT d.session_id, d.seq FROM search_text f CROSS JOIN search_docs d ON d.id = f.rowid`
	where := []string{`search_text MATCH ?`}
	args := []any{phrase}
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
	if !f.From.IsZero() || !f.To.IsZero() {
		sqlText += ` CROSS JOIN events e ON e.session_id = d.session_id AND e.seq = d.seq`
		if !f.From.IsZero() {
			where = append(where, `e.time >= ?`)
			args = append(args, f.From.UnixNano())
		}
		if !f.To.IsZero() {
			where = append(where, `e.time < ?`)
			args = append(args, f.To.UnixNano())
		}
	}
	return sqlText + ` WHERE ` + strings.Join(where, ` AND `) + ` ORDER BY ` + order + ` LIMIT ?`, append(args, limit)
}
