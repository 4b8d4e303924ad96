// What a search query may be, and the SQL that reads its hits.

package store

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
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

// filterSQL is what f asks of an event, as conditions on search_docs d and
// events e: the session's model, workspace and outcome (an IN over
// sessions, which SQLite reads once) and the event's time.
func filterSQL(f SearchFilter) (where []string, args []any) {
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
	return where, args
}

// docEventSQL reads the event of one search_docs id, if f lets it through:
// what a hit shows, found by primary keys.
func docEventSQL(f SearchFilter) (string, []any) {
	where, args := filterSQL(f)
	return `SELECT d.session_id, d.seq, e.kind, e.time, e.run, e.round, e.payload FROM search_docs d
		CROSS JOIN events e ON e.session_id = d.session_id AND e.seq = d.seq
		WHERE ` + strings.Join(append([]string{`d.id = ?`}, where...), ` AND `), args
}

// newestSQL is the query of the newest events that the FTS5 query phrase
// matches in the trigram index (or, when pairs is set, in the pairs
// index), that f lets through (of the FTS table alone without filters):
// FTS5 is the outer loop (CROSS JOIN keeps it there), read in descending
// rowid order, which is the order the events were written (see
// insertDocSQL), and it stops at the limit; a filter is an IN over
// sessions or the event's time, looked up by primary key
// (TestSearchQueryPlans checks the plan).
func newestSQL(phrase string, f SearchFilter, limit int) (string, []any) {
	return newestOf(`search_text`, phrase, f, limit)
}

// newestPairsSQL is newestSQL of the pairs index.
func newestPairsSQL(pairs string, f SearchFilter, limit int) (string, []any) {
	return newestOf(`search_pairs`, pairs, f, limit)
}

func newestOf(table, phrase string, f SearchFilter, limit int) (string, []any) {
	if f == (SearchFilter{}) {
		return `SELECT rowid FROM ` + table + ` f WHERE ` + table + ` MATCH ? ORDER BY rowid DESC LIMIT ?`, []any{phrase, limit}
	}
	sqlText := `SELECT f.rowid FROM ` + table + ` f CROSS JOIN search_docs d ON d.id = f.rowid`
	where, fargs := filterSQL(f)
	if !f.From.IsZero() || !f.To.IsZero() {
		sqlText += ` CROSS JOIN events e ON e.session_id = d.session_id AND e.seq = d.seq`
	}
	where = append([]string{table + ` MATCH ?`}, where...)
	args := append([]any{phrase}, fargs...)
	return sqlText + ` WHERE ` + strings.Join(where, ` AND `) + ` ORDER BY f.rowid DESC LIMIT ?`, append(args, limit)
}
