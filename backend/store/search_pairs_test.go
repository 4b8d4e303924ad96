package store

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	execpkg "os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/loupe-dev/loupe/backend/trace"
)

// pairRows counts the rows of the pairs index, once what is pending is
// written.
func pairRows(t testing.TB, s *Store) int {
	t.Helper()
	if s.ix != nil {
		if err := s.ix.flush(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	var n int
	if err := s.r.QueryRow(`SELECT count(*) FROM search_pairs`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A phrase is found through the index of word pairs exactly as the
// trigram index alone finds it: as typed, ignoring case, with the words
// at its ends possibly parts of longer ones, with punctuation, in a
// megabyte of output. A space in the query is a space: a phrase broken
// by a line break in the text is not found by it, as an editor's find
// does not (the search box is one line; either line's words find it).
func TestPhrasesThroughWordPairsAreFoundAsTyped(t *testing.T) {
	s := openTemp(t)
	sess := mustCreate(t, s, Session{})
	big := strings.Repeat("ok  	github.com/x/y  0.01s return values\n", 1<<20/40) + "exit status 1: the return value was -1\n"
	texts := []string{
		1:  "the function should return value, not error",
		2:  "return\nvalue on the next line",
		3:  "RETURN VALUE in capitals",
		4:  "we return values here",
		5:  "a noreturn value",
		6:  "return  value with two spaces",
		7:  "turn valid is not it",
		8:  "if err != nil { return err }",
		9:  "error: open .env: no such file (ENOENT)",
		10: "Größe ÄNDERN jetzt",
		11: big,
	}
	for i := 1; i < len(texts); i++ {
		e := trace.New(trace.KindToolResult, 1, 1, trace.ToolResult{CallID: "c", Name: "run_command", Content: texts[i]})
		if got := mustAppend(t, s, in(sess.ID, e)); got.Seq != int64(i) {
			t.Fatalf("seq %d, want %d", got.Seq, i)
		}
	}
	if n := pairRows(t, s); n != len(texts)-1 {
		t.Fatalf("%d rows of pairs; want one per event, %d", n, len(texts)-1)
	}
	for _, c := range []struct {
		q    string
		want []int
	}{
		{"return value", []int{1, 3, 4, 5, 11}},
		{"Return Value", []int{1, 3, 4, 5, 11}},
		{"turn valu", []int{1, 3, 4, 5, 11}},
		{"return value,", []int{1}},
		{"value, not error", []int{1}},
		{"return  value", []int{6}},
		{"err != nil", []int{8}},
		{"if err != nil { return", []int{8}},
		{"open .env: no such", []int{9}},
		{"file (ENOENT)", []int{9}},
		{"größe ändern", []int{10}},
		{"return value was -1", []int{11}},
		{"next line", []int{2}},
		{"n value", []int{1, 3, 4, 5, 11}}, // too short an end for a pair: the trigrams alone
		{"return valid", nil},
	} {
		var want []string
		for _, seq := range c.want {
			want = append(want, fmt.Sprintf("%s:%d", sess.ID, seq))
		}
		res := search(t, s, c.q, SearchFilter{})
		if got := hitSeqs(res); !slices.Equal(got, want) {
			t.Errorf("%q: %v; want %v", c.q, got, want)
		}
		s.trigramOnly = true
		if got, alone := hitSeqs(res), hitSeqs(search(t, s, c.q, SearchFilter{})); !slices.Equal(got, alone) {
			t.Errorf("%q: %v, but the trigram index alone finds %v", c.q, got, alone)
		}
		s.trigramOnly = false
	}
	// The hit in the megabyte shows the phrase.
	res := search(t, s, "return value was", SearchFilter{})
	if hits := res.Sessions[0].Hits; len(hits) != 1 || marked(hits[0]) != "[return value was]" {
		t.Fatalf("the long output's snippet: %+v", hits)
	}

	// The phrases above were looked up through the pairs: without them
	// (the pairs index emptied behind the store's back) they are not found,
	// while a single word still is.
	exec(t, s.w, `INSERT INTO search_pairs (search_pairs) VALUES ('delete-all')`)
	if got := hitSeqs(search(t, s, "err != nil", SearchFilter{})); len(got) != 0 {
		t.Fatalf("found without its pairs: %v", got)
	}
	if got := hitSeqs(search(t, s, "ENOENT", SearchFilter{})); len(got) != 1 {
		t.Fatalf("a word: %v", got)
	}
}

// A deleted session's pairs go with it.
func TestDeletedSessionTakesItsPairs(t *testing.T) {
	s := openTemp(t)
	gone, kept := mustCreate(t, s, Session{}), mustCreate(t, s, Session{})
	for _, id := range []string{gone.ID, kept.ID} {
		mustAppend(t, s, in(id, trace.New(trace.KindUserMessage, 1, 0, trace.UserMessage{Text: "feed the quokka today"})))
	}
	if n := pairRows(t, s); n != 2 {
		t.Fatalf("%d rows of pairs; want 2", n)
	}
	if err := s.DeleteSession(t.Context(), gone.ID); err != nil {
		t.Fatal(err)
	}
	if n := pairRows(t, s); n != 1 {
		t.Fatalf("after the delete: %d rows of pairs; want 1", n)
	}
	if got := hitSeqs(search(t, s, "the quokka", SearchFilter{})); fmt.Sprint(got) != fmt.Sprintf("[%s:1]", kept.ID) {
		t.Fatalf("after the delete: %v", got)
	}
}

// schema10 makes a database as a Loupe of schema 10 left it (the last
// before the pairs index): n events of text in each of the given
// sessions, all of them in the trigram index.
func schema10(t *testing.T, path string, sessions []string, n int) {
	t.Helper()
	migs, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, path)
	defer db.Close()
	for _, m := range migs[:10] {
		exec(t, db, m.sql)
	}
	exec(t, db, fmt.Sprintf(`PRAGMA user_version = 10; PRAGMA application_id = %d;`, int32(ApplicationID)))
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	id := 0
	for i, sess := range sessions {
		if _, err := tx.Exec(`INSERT INTO sessions (id, title, created_at, updated_at, last_seq) VALUES (?, ?, 1, ?, ?)`, sess, sess, i+1, n); err != nil {
			t.Fatal(err)
		}
		for seq := 1; seq <= n; seq++ {
			id++
			e := in(sess, trace.New(trace.KindToolResult, 1, 1, trace.ToolResult{CallID: "c", Name: "grep", Content: fmt.Sprintf("old pangolin output of %s %d;", sess, seq)}))
			e.Seq = int64(seq)
			for _, q := range []struct {
				sql  string
				args []any
			}{
				{`INSERT INTO search_docs (id, session_id, seq) VALUES (?, ?, ?)`, []any{id, sess, seq}},
				{`INSERT INTO events (session_id, seq, kind, time, run, round, payload) VALUES (?, ?, ?, 1, 1, 1, ?)`, []any{sess, seq, string(e.Kind), string(e.Payload)}},
				{`INSERT INTO search_text (rowid, text) VALUES (?, ?)`, []any{id, trace.SearchText(e)}},
			} {
				if _, err := tx.Exec(q.sql, q.args...); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if _, err := tx.Exec(`UPDATE search_indexed SET upto = ?`, id); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// A database indexed before the pairs index opens at once and is whole:
// its phrases are found by the trigram index while the pairs of its
// events are written in the background, newest first, the progress told
// after each batch; then through the pairs, alike.
func TestOlderDatabaseGetsItsPairsInTheBackground(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loupe.db")
	schema10(t, path, []string{"s1", "s2", "s3"}, 250)
	s := openAt(t, path)
	ctx := t.Context()
	st, err := s.SearchStatus(ctx)
	if err != nil || st.Partial() || st.PairsPending != 750 {
		t.Fatalf("status after the migration: %+v, %v", st, err)
	}
	// A new event gets its pairs with its text.
	mustAppend(t, s, in("s1", trace.New(trace.KindUserMessage, 2, 0, trace.UserMessage{Text: "a new pangolin output of today"})))
	if n := pairRows(t, s); n != 1 {
		t.Fatalf("%d rows of pairs; want the new event's", n)
	}
	res, err := s.Search(ctx, "pangolin output of s2", SearchFilter{}, 1000)
	if err != nil || res.Partial || len(hitSeqs(res)) != 250 || res.Status.PairsPending != 750 {
		t.Fatalf("before the pairs: partial %v, %d hits, status %+v", res.Partial, len(hitSeqs(res)), res.Status)
	}

	var told []SearchStatus
	if err := s.IndexBacklog(ctx, func(st SearchStatus) { told = append(told, st) }); err != nil {
		t.Fatal(err)
	}
	var pending []int64
	for _, st := range told {
		pending = append(pending, st.PairsPending)
	}
	if fmt.Sprint(pending) != "[550 350 150 0]" {
		t.Fatalf("progress: %v; want the pairs pending after each batch of %d", pending, pairsBatch)
	}
	if n := pairRows(t, s); n != 751 {
		t.Fatalf("%d rows of pairs; want 751", n)
	}
	for _, q := range []string{"pangolin output of s2", "output of s3 17;", "new pangolin output"} {
		find := func() []string {
			res, err := s.Search(ctx, q, SearchFilter{}, 1000)
			if err != nil {
				t.Fatal(err)
			}
			return hitSeqs(res)
		}
		withPairs := find()
		s.trigramOnly = true
		alone := find()
		s.trigramOnly = false
		if len(withPairs) == 0 || !slices.Equal(withPairs, alone) {
			t.Errorf("%q: %d hits through the pairs, %d by the trigrams alone", q, len(withPairs), len(alone))
		}
	}
	if res := search(t, s, "output of s3 17;", SearchFilter{}); fmt.Sprint(hitSeqs(res)) != "[s3:17]" {
		t.Errorf("one old event: %v", hitSeqs(res))
	}
}

// A process killed while it writes the pairs of an older database leaves
// each batch whole or absent: the next one goes on where it stopped, and
// every event ends with its pairs once.
func TestKilledWhileWritingPairsLosesNone(t *testing.T) {
	if path := os.Getenv("LOUPE_PAIRS_CHILD"); path != "" {
		s, err := Open(path)
		if err == nil {
			err = s.IndexBacklog(context.Background(), func(st SearchStatus) { fmt.Println(st.PairsPending) })
		}
		fmt.Fprintln(os.Stderr, "the child ended:", err)
		os.Exit(1)
	}
	path := filepath.Join(t.TempDir(), "loupe.db")
	schema10(t, path, []string{"s1", "s2", "s3", "s4"}, 500)
	cmd := execpkg.Command(os.Args[0], "-test.run=^TestKilledWhileWritingPairsLosesNone$")
	cmd.Env = append(os.Environ(), "LOUPE_PAIRS_CHILD="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	for n := 0; n < 3 && lines.Scan(); n++ {
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()

	s := openAt(t, path)
	ctx := t.Context()
	st, err := s.SearchStatus(ctx)
	if err != nil || st.PairsPending == 0 || st.PairsPending >= 2000 {
		t.Fatalf("after the kill: %+v, %v; want some pairs written, not all", st, err)
	}
	if n := pairRows(t, s); int64(n) != 2000-st.PairsPending {
		t.Fatalf("after the kill: %d rows of pairs, %d pending, of 2000", n, st.PairsPending)
	}
	if got := len(hitSeqs(search(t, s, "pangolin output of s1", SearchFilter{}))); got != 100 {
		t.Fatalf("meanwhile: %d hits; want the limit, 100", got)
	}
	if err := s.IndexBacklog(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if n := pairRows(t, s); n != 2000 {
		t.Fatalf("%d rows of pairs; want 2000", n)
	}
	for _, q := range []string{"output of s1 1;", "output of s4 500;", "output of s2 250;"} {
		if got := hitSeqs(search(t, s, q, SearchFilter{})); len(got) != 1 {
			t.Errorf("%q: %v", q, got)
		}
	}
}

// matchesFold, which checks every event the pairs find and skips to the
// query's first character a word at a time, finds what a rune-by-rune
// comparison of the lowercased texts finds, non-ASCII runes that lower to
// ASCII (İ, the Kelvin sign) included.
func TestMatchesFoldIsTheRuneByRuneFold(t *testing.T) {
	slow := func(text, q string, max int) [][2]int {
		var out [][2]int
		qr := []rune(strings.ToLower(q))
		for i := 0; i < len(text) && len(out) < max; {
			j, k := i, 0
			for ; k < len(qr) && j < len(text); k++ {
				r, n := utf8.DecodeRuneInString(text[j:])
				if unicode.ToLower(r) != qr[k] {
					break
				}
				j += n
			}
			if k == len(qr) {
				out = append(out, [2]int{i, j})
				i = j
				continue
			}
			_, n := utf8.DecodeRuneInString(text[i:])
			i += n
		}
		return out
	}
	alphabet := []string{"a", "A", "k", "K", "\u212a", "i", "I", "\u0130", "é", "É", " ", "\n", "(", "x", "rn", "RN", "ß"}
	r := rand.New(rand.NewPCG(9, 10))
	for range 3000 {
		var text, q strings.Builder
		for range r.IntN(40) {
			text.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		for range 1 + r.IntN(3) {
			q.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		if got, want := matchesFold(text.String(), q.String(), 5), slow(text.String(), q.String(), 5); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("matchesFold(%q, %q) = %v; want %v", text.String(), q.String(), got, want)
		}
	}
}

// A phrase whose words mostly meet across a line break (its pairs are in
// hundreds of events, the phrase in one, the oldest) is still found: past
// pairMisses events without it, the trigram index finds it instead.
func TestPhraseWhosePairsAreCommonAndItselfRareIsFound(t *testing.T) {
	s := openTemp(t)
	sess := mustCreate(t, s, Session{})
	mustAppend(t, s, in(sess.ID, trace.New(trace.KindNotice, 1, 1, trace.Notice{Code: "x", Message: "the exit code was 3"})))
	for range pairMisses + rankWindow {
		mustAppend(t, s, in(sess.ID, trace.New(trace.KindNotice, 1, 1, trace.Notice{Code: "x", Message: "the exit\ncode was 0"})))
	}
	res := search(t, s, "exit code was", SearchFilter{})
	if fmt.Sprint(hitSeqs(res)) != fmt.Sprintf("[%s:1]", sess.ID) || res.Order != OrderBest {
		t.Fatalf("%v, order %s", hitSeqs(res), res.Order)
	}
}
