// The index of word pairs, which finds a phrase of common words without
// checking the trigrams of every event that holds them (0011_search_pairs.sql).
//
// A trigram index narrows a query to the events that hold all its
// trigrams, then checks their positions. For `return value` every trigram
// is common, so that check runs over tens of thousands of events for a
// thousand matches. What makes a phrase rare is where its words meet: few
// events have a word ending in "urn" followed by one starting with "val".
// So each event's text is also indexed as its pairs: one token for each
// two words in a row (words are what whitespace separates), made of the
// last pairSide characters of the first and the first pairSide of the
// second, folded as matchesFold folds them, hashed into a short token.
//
// A query of several words gives the tokens of the pairs it spans, one
// after another: the index returns, newest first, the events holding them
// as a phrase, a superset of the events holding the query (the hashing,
// the cut at pairSide characters and any whitespace between the words
// can let in more), and each is then checked by the trigram index, which
// matches the query as typed. Results are the same as the trigram index's
// alone: the pairs only choose which events it checks.

package store

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/loupe-dev/loupe/backend/trace"
)

// pairSide is how many characters of each word a pair keeps: a query's
// first word, which may be the end of a longer word in the text, needs
// that many to make its pair, as does its last, which may be the start of
// one (the trigram index needs three too).
const pairSide = 3

// pairToken is the token of the pair of words a and b: the end of a and
// the start of b, folded, hashed to 40 bits, written as 8 characters of
// base 32 (FTS5's ascii tokenizer keeps them as one token). Two pairs
// that hash alike let in an event the trigram check then refuses.
func pairToken(a, b string) string {
	h := fnv.New64a()
	var buf [utf8.UTFMax]byte
	fold := func(s string) {
		for _, r := range s {
			n := utf8.EncodeRune(buf[:], unicode.ToLower(r))
			h.Write(buf[:n])
		}
	}
	fold(lastRunes(a, pairSide))
	h.Write([]byte{0xff}) // never in UTF-8: ("ab", "cde") is not ("abc", "de")
	fold(firstRunes(b, pairSide))
	const digits = "0123456789abcdefghijklmnopqrstuv"
	v := h.Sum64()
	var out [8]byte
	for i := range out {
		out[i] = digits[v&31]
		v >>= 5
	}
	return string(out[:])
}

func firstRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

func lastRunes(s string, n int) string {
	i := len(s)
	for i > 0 && n > 0 {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
		n--
	}
	return s[i:]
}

// pairText is what the pairs index holds of an event's text: the token
// of each two words in a row, in order, space-separated.
func pairText(text string) string {
	words := strings.Fields(text)
	if len(words) < 2 {
		return ""
	}
	var b strings.Builder
	b.Grow(9 * (len(words) - 1))
	for i := 1; i < len(words); i++ {
		if i > 1 {
			b.WriteByte(' ')
		}
		b.WriteString(pairToken(words[i-1], words[i]))
	}
	return b.String()
}

// pairPhrase is the FTS5 query of the pairs index for q: the tokens of
// the pairs q spans, as one phrase, or "" when q spans none that the text
// surely holds. A word inside q is a whole word of the text; q's first
// word may be the end of a longer one and its last the start of one, so
// a pair of either is known only when that word has pairSide characters.
// The pairs known are always a run (only the first and the last can be
// missing), so the phrase keeps their order.
func pairPhrase(q string) string {
	words := strings.Fields(q)
	var toks []string
	for i := 1; i < len(words); i++ {
		if i == 1 && utf8.RuneCountInString(words[0]) < pairSide {
			continue
		}
		if i == len(words)-1 && utf8.RuneCountInString(words[i]) < pairSide {
			continue
		}
		toks = append(toks, pairToken(words[i-1], words[i]))
	}
	if len(toks) == 0 {
		return ""
	}
	return `"` + strings.Join(toks, " ") + `"`
}

// insertPairsSQL writes an event's pairs, under its search_docs id.
const insertPairsSQL = `INSERT INTO search_pairs (rowid, pairs) VALUES (?, ?)`

// indexText writes an event's text into both indexes under its
// search_docs id, with the writer's statements made tx's. An event
// without text has no row in either.
func (s *Store) indexText(ctx context.Context, tx *sql.Tx, id int64, text string) error {
	if text == "" {
		return nil
	}
	if _, err := tx.StmtContext(ctx, s.stmt.insertText).ExecContext(ctx, id, text); err != nil {
		return err
	}
	if p := pairText(text); p != "" {
		if _, err := tx.StmtContext(ctx, s.stmt.insertPairs).ExecContext(ctx, id, p); err != nil {
			return err
		}
	}
	return nil
}

// pairsBatch is how many events one transaction gives their pairs, when a
// database indexed before the pairs existed gets them: about as long a
// hold of the write lock as a batch of the backlog's.
const pairsBatch = 200

// indexPairsBatch writes the pairs of up to max events among those
// indexed before the pairs index existed (search_pairs_backlog), the
// newest first, in one IMMEDIATE transaction, and reports whether none
// was left. Until none is, search finds phrases with the trigram index
// alone, as before: the results are whole all along.
func (s *Store) indexPairsBatch(ctx context.Context, max int) (done bool, err error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("store: index word pairs: %w", err)
	}
	defer tx.Rollback()
	var lo, hi int64
	err = tx.QueryRowContext(ctx, `SELECT lo, hi FROM search_pairs_backlog`).Scan(&lo, &hi)
	if err == sql.ErrNoRows {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: index word pairs: %w", err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT d.id, d.session_id, e.kind, e.payload
		FROM search_docs d CROSS JOIN events e ON e.session_id = d.session_id AND e.seq = d.seq
		WHERE d.id BETWEEN ? AND ? ORDER BY d.id DESC LIMIT ?`, lo, hi, max)
	if err != nil {
		return false, fmt.Errorf("store: index word pairs: %w", err)
	}
	type doc struct {
		id   int64
		text string
	}
	var docs []doc
	next := lo - 1 // what hi becomes: below lo when the range is done
	n := 0
	for rows.Next() {
		var d doc
		var e trace.Event
		var kind string
		var payload []byte
		if err := rows.Scan(&d.id, &e.SessionID, &kind, &payload); err != nil {
			rows.Close()
			return false, fmt.Errorf("store: index word pairs: %w", err)
		}
		e.Kind, e.Payload = trace.Kind(kind), payload
		d.text = trace.SearchText(e)
		docs = append(docs, d)
		n++
		if n == max {
			next = d.id - 1
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return false, fmt.Errorf("store: index word pairs: %w", err)
	}
	for _, d := range docs {
		if p := pairText(d.text); p != "" {
			if _, err := tx.StmtContext(ctx, s.stmt.insertPairs).ExecContext(ctx, d.id, p); err != nil {
				return false, fmt.Errorf("store: index word pairs: %w", err)
			}
		}
	}
	if next < lo {
		_, err = tx.ExecContext(ctx, `DELETE FROM search_pairs_backlog`)
	} else {
		_, err = tx.ExecContext(ctx, `UPDATE search_pairs_backlog SET hi = ?`, next)
	}
	if err != nil {
		return false, fmt.Errorf("store: index word pairs: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("store: index word pairs: commit: %w", err)
	}
	return false, nil
}

// pairMisses bounds how many events the pairs may lead a search to check
// that do not hold the query (a line break between its words, or a word
// that only ends or starts alike): past it, the trigram index finds the
// query instead, so a query whose pairs are common but whose phrase is
// not costs at most that many checks more than it did before the pairs.
const pairMisses = 200

// pairMatches are the matches of q that f lets through, found through
// the pairs index: the newest events holding q's pairs (pairs, a
// pairPhrase), each checked against its text as the trigram index would
// check it (matchesFold, case-folded and as typed), so that the results
// are the trigram index's. When at most rankWindow events hold the pairs,
// those holding q are all the matches, ranked (OrderBest); else the
// newest n matches (OrderNewest). It reports !ok when it met more than
// pairMisses events that did not hold q.
//
// Checking an event costs its payload's decoding, which the hits need for
// their snippets anyway; the trigram index's own check of a phrase of
// common trigrams, by rowid, costs several milliseconds an event.
func pairMatches(ctx context.Context, tx *sql.Tx, q, pairs string, f SearchFilter, n int, loadOne func(int64) (match, bool, error)) (ms []match, order string, ok bool, err error) {
	fetch := rankWindow + 1
	sqlText, args := newestPairsSQL(pairs, f, fetch)
	ids, err := readIDs(ctx, tx, sqlText, args...)
	if err != nil {
		return nil, "", false, err
	}
	order = OrderNewest
	if len(ids) <= rankWindow {
		order, n = OrderBest, len(ids) // every event holding the pairs
	}
	misses := 0
	for next := 0; ; {
		for ; next < len(ids) && len(ms) < n; next++ {
			m, ok, err := loadOne(ids[next])
			if err != nil {
				return nil, "", false, err
			}
			if !ok {
				continue
			}
			if m.first = matchesFold(m.text, q, 1); len(m.first) == 0 {
				if misses++; misses > pairMisses {
					return nil, "", false, nil
				}
				continue
			}
			ms = append(ms, m)
		}
		if len(ms) >= n || len(ids) < fetch {
			break
		}
		// The misses took the place of matches: read further.
		fetch *= 4
		sqlText, args := newestPairsSQL(pairs, f, fetch)
		if ids, err = readIDs(ctx, tx, sqlText, args...); err != nil {
			return nil, "", false, err
		}
	}
	if order == OrderBest {
		rankMatches(ms, q)
	}
	return ms, order, true, nil
}
