package store

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	execpkg "os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/trace"
)

// search runs a query that must succeed.
func search(t testing.TB, s *Store, q string, f SearchFilter) SearchResults {
	t.Helper()
	res, err := s.Search(t.Context(), q, f, 100)
	if err != nil {
		t.Fatalf("Search(%q): %v", q, err)
	}
	return res
}

// hitSeqs lists the hits as "session:seq".
func hitSeqs(res SearchResults) []string {
	var out []string
	for _, sh := range res.Sessions {
		for _, h := range sh.Hits {
			out = append(out, fmt.Sprintf("%s:%d", sh.SessionID, h.Seq))
		}
	}
	return out
}

// marked is the text of a snippet's matched pieces.
func marked(h Hit) string {
	var b strings.Builder
	for _, p := range h.Snippet {
		if p.Match {
			b.WriteString("[" + p.Text + "]")
		}
	}
	return b.String()
}

func TestSearchFindsTheWholeToolOutputAndThinking(t *testing.T) {
	s := openTemp(t)
	sess := mustCreate(t, s, Session{Title: "big", Model: "qwen3", Workspace: "/w"})
	// A megabyte of output whose only mention of the word is at its end,
	// far past anything a preview keeps.
	big := strings.Repeat("0123456789abcdef log line of a long build\n", 1<<20/42) + "FATAL: cannot open parse_config.yaml\n"
	mustAppend(t, s, in(sess.ID, trace.New(trace.KindUserMessage, 1, 0, trace.UserMessage{Text: "build it"})))
	mustAppend(t, s, in(sess.ID, trace.New(trace.KindModelResponse, 1, 1, trace.ModelResponse{
		Content: "Running the build.", Thinking: "the user wants the zanzibar target built first",
		ToolCalls: []llm.ToolCall{{ID: "c1", Name: "run_command", Args: json.RawMessage(`{"command":"make"}`)}},
	})))
	out := mustAppend(t, s, in(sess.ID, trace.New(trace.KindToolResult, 1, 1, trace.ToolResult{CallID: "c1", Name: "run_command", Content: big, Bytes: len(big)})))

	res := search(t, s, "parse_config.YAML", SearchFilter{})
	if got := hitSeqs(res); len(got) != 1 || got[0] != fmt.Sprintf("%s:%d", sess.ID, out.Seq) {
		t.Fatalf("hits %v, want the tool result %d", got, out.Seq)
	}
	sh := res.Sessions[0]
	if sh.Title != "big" || sh.Model != "qwen3" || sh.Workspace != "/w" || res.Partial {
		t.Errorf("session of the hit: %+v, partial %v", sh, res.Partial)
	}
	h := sh.Hits[0]
	if h.Kind != trace.KindToolResult || h.Run != 1 || h.Round != 1 || marked(h) != "[parse_config.yaml]" {
		t.Errorf("hit %+v, marked %q", h, marked(h))
	}
	if len(h.Snippet[0].Text) > 200 {
		t.Errorf("snippet starts with %d bytes: it should be cut near the match", len(h.Snippet[0].Text))
	}

	res = search(t, s, "zanzibar", SearchFilter{})
	if got := hitSeqs(res); len(got) != 1 || res.Sessions[0].Hits[0].Kind != trace.KindModelResponse || marked(res.Sessions[0].Hits[0]) != "[zanzibar]" {
		t.Fatalf("thinking: hits %v %+v", got, res.Sessions)
	}
}

func TestSearchMatchesCodeSubstringsIgnoringCase(t *testing.T) {
	s := openTemp(t)
	sess := mustCreate(t, s, Session{})
	texts := []string{
		"def main():\n    opts = parse_args(sys.argv)\n",                 // 1
		"open config: enoent: no such file or directory",                 // 2
		"loaded .env from the workspace",                                 // 3
		"parse_args is documented in README",                             // 4: no "("
		"the environment is clean",                                       // 5: no ".env"
		`grep -rn "ENOENT" src/ && echo 'quote''s' and 100% of a_b_c ok`, // 6
	}
	for _, text := range texts {
		mustAppend(t, s, in(sess.ID, trace.New(trace.KindToolResult, 1, 1, trace.ToolResult{CallID: "c", Name: "read_file", Content: text})))
	}
	for q, want := range map[string][]int64{
		"parse_args(":     {1},
		"ENOENT":          {2, 6},
		".env":            {3},
		"PARSE_ARGS":      {1, 4},
		`"ENOENT"`:        {6},
		`'quote''s'`:      {6},
		"100%":            {6},
		"a_b_c":           {6},
		"no such thing":   nil,
		"  .env  ":        {3},
		"OR parse_args":   nil, // FTS5 syntax is text here
		"parse_args NEAR": nil,
	} {
		res := search(t, s, q, SearchFilter{})
		var got []int64
		for _, sh := range res.Sessions {
			for _, h := range sh.Hits {
				got = append(got, h.Seq)
				if marked(h) == "" {
					t.Errorf("%q: hit %d has no marked match: %+v", q, h.Seq, h.Snippet)
				}
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%q: hits %v, want %v", q, got, want)
		}
	}
}

func TestBadQueriesSayWhatToType(t *testing.T) {
	s := openTemp(t)
	sess := mustCreate(t, s, Session{})
	mustAppend(t, s, in(sess.ID, trace.New(trace.KindUserMessage, 1, 0, trace.UserMessage{Text: `"" a ab '''`})))
	for _, q := range []string{"", " ", "a", "ab", " ab ", `"`, `""`, `"""`, `''''`, "`\"'", "é"} {
		_, err := s.Search(t.Context(), q, SearchFilter{}, 10)
		if !errors.Is(err, ErrQuery) || !strings.Contains(err.Error(), "at least 3 characters") {
			t.Errorf("Search(%q): %v; want ErrQuery saying to type at least 3 characters", q, err)
		}
	}
	for _, q := range []string{"ab\x00cd", "\x00\x00\x00"} {
		if _, err := s.Search(t.Context(), q, SearchFilter{}, 10); !errors.Is(err, ErrQuery) || !strings.Contains(err.Error(), "NUL") {
			t.Errorf("Search(%q): %v; want ErrQuery naming the NUL", q, err)
		}
	}
	from := time.Date(2026, 5, 2, 0, 0, 0, 0, time.UTC)
	if _, err := s.Search(t.Context(), "abc", SearchFilter{From: from, To: from.AddDate(0, 0, -1)}, 10); !errors.Is(err, ErrQuery) {
		t.Errorf("a date range that ends before it starts: %v", err)
	}
	// Three characters, one of them not a quote, is a query.
	if _, err := s.Search(t.Context(), `"a"`, SearchFilter{}, 10); err != nil {
		t.Errorf(`Search("a" quoted): %v`, err)
	}
}

func TestSearchFilters(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	mk := func(model, ws, reason string, at time.Time) Session {
		sess := mustCreate(t, s, Session{Model: model, Workspace: ws})
		e := in(sess.ID, trace.New(trace.KindUserMessage, 1, 0, trace.UserMessage{Text: "fix the flaky widget test"}))
		e.Time = at
		mustAppend(t, s, e)
		e = in(sess.ID, trace.New(trace.KindRunEnd, 1, 1, trace.RunEnd{Reason: reason}))
		e.Time = at
		mustAppend(t, s, e)
		return sess
	}
	a := mk("qwen3", "/src/a", trace.EndAnswered, t0)
	b := mk("llama3", "/src/a", trace.EndError, t0.AddDate(0, 0, 1))
	c := mk("qwen3", "/src/b", trace.EndAnswered, t0.AddDate(0, 0, 2))
	ids := func(res SearchResults) string {
		var out []string
		for _, sh := range res.Sessions {
			out = append(out, sh.SessionID)
		}
		sort.Strings(out)
		return strings.Join(out, ",")
	}
	join := func(ss ...Session) string {
		var out []string
		for _, x := range ss {
			out = append(out, x.ID)
		}
		sort.Strings(out)
		return strings.Join(out, ",")
	}
	for name, c := range map[string]struct {
		f    SearchFilter
		want string
	}{
		"none":              {SearchFilter{}, join(a, b, c)},
		"model":             {SearchFilter{Model: "qwen3"}, join(a, c)},
		"workspace":         {SearchFilter{Workspace: "/src/a"}, join(a, b)},
		"outcome":           {SearchFilter{Outcome: trace.EndError}, join(b)},
		"model and outcome": {SearchFilter{Model: "qwen3", Outcome: trace.EndError}, ""},
		"from":              {SearchFilter{From: t0.AddDate(0, 0, 1)}, join(b, c)},
		"to":                {SearchFilter{To: t0.AddDate(0, 0, 1)}, join(a)},
		"range":             {SearchFilter{From: t0.AddDate(0, 0, 1), To: t0.AddDate(0, 0, 2)}, join(b)},
		"range and model":   {SearchFilter{From: t0, To: t0.AddDate(0, 0, 3), Model: "llama3"}, join(b)},
	} {
		res, err := s.Search(ctx, "flaky widget", c.f, 10)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := ids(res); got != c.want {
			t.Errorf("%s: sessions %q, want %q", name, got, c.want)
		}
	}
}

// countRows counts what the index holds once what is pending is written:
// its docs and the FTS rows.
func countRows(t testing.TB, s *Store) (docs, texts int) {
	t.Helper()
	if err := s.ix.flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := s.r.QueryRow(`SELECT (SELECT count(*) FROM search_docs), (SELECT count(*) FROM search_text)`).Scan(&docs, &texts); err != nil {
		t.Fatal(err)
	}
	return docs, texts
}

func TestDeletedSessionLeavesNothingToFind(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	gone := mustCreate(t, s, Session{})
	kept := mustCreate(t, s, Session{})
	for _, id := range []string{gone.ID, kept.ID} {
		mustAppend(t, s, in(id, trace.New(trace.KindUserMessage, 1, 0, trace.UserMessage{Text: "rename the quokka module in " + id})))
		mustAppend(t, s, in(id, trace.New(trace.KindModelRequest, 1, 1, trace.ModelRequest{Model: "m"}))) // no text: a doc, no FTS row
		mustAppend(t, s, in(id, trace.New(trace.KindToolResult, 1, 1, trace.ToolResult{CallID: "c", Name: "grep", Content: "quokka.go:1"})))
	}
	if docs, texts := countRows(t, s); docs != 6 || texts != 4 {
		t.Fatalf("before: %d docs, %d texts; want 6, 4", docs, texts)
	}
	if err := s.DeleteSession(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	res := search(t, s, "quokka", SearchFilter{})
	if len(res.Sessions) != 1 || res.Sessions[0].SessionID != kept.ID || len(res.Sessions[0].Hits) != 2 {
		t.Fatalf("after the delete: %v", hitSeqs(res))
	}
	// Its rows are gone from the index, not only hidden: the FTS table's
	// own count says so.
	if docs, texts := countRows(t, s); docs != 3 || texts != 2 {
		t.Fatalf("after: %d docs, %d texts; want 3, 2", docs, texts)
	}
	if res := search(t, s, gone.ID, SearchFilter{}); len(res.Sessions) != 0 {
		t.Fatalf("the deleted session's own id is still found: %v", hitSeqs(res))
	}
}

// The event and its index row are written in one transaction: when either
// insert fails, neither is stored, and the session is as it was.
func TestEventAndItsIndexRowAreOneTransaction(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loupe.db")
	s := openAt(t, path)
	ctx := t.Context()
	sess := mustCreate(t, s, Session{})
	mustAppend(t, s, in(sess.ID, trace.New(trace.KindUserMessage, 1, 0, trace.UserMessage{Text: "first message"})))
	db := rawDB(t, path)
	// A failure after the index rows are in (the event's insert), and one
	// before the event (the index's).
	exec(t, db, `CREATE TRIGGER fail_event BEFORE INSERT ON events WHEN new.kind = 'notice'
		BEGIN SELECT RAISE(ABORT, 'event refused'); END`)
	exec(t, db, `CREATE TRIGGER fail_doc BEFORE INSERT ON search_docs WHEN new.seq = 2 AND
		(SELECT count(*) FROM sessions WHERE id = new.session_id AND title = 'fail doc') > 0
		BEGIN SELECT RAISE(ABORT, 'index refused'); END`)
	if _, err := s.Append(ctx, in(sess.ID, trace.New(trace.KindNotice, 1, 1, trace.Notice{Code: "x", Message: "wombat notice"}))); err == nil {
		t.Fatal("Append through a failing event insert succeeded")
	}
	title := "fail doc"
	if _, err := s.UpdateSession(ctx, sess.ID, SessionUpdate{Title: &title}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, in(sess.ID, trace.New(trace.KindError, 1, 1, trace.Error{Code: "x", Message: "wombat error"}))); err == nil {
		t.Fatal("Append through a failing index insert succeeded")
	}
	if docs, texts := countRows(t, s); docs != 1 || texts != 1 {
		t.Errorf("after two failed appends: %d docs, %d texts; want 1, 1", docs, texts)
	}
	if res := search(t, s, "wombat", SearchFilter{}); len(res.Sessions) != 0 {
		t.Errorf("a failed append is found: %v", hitSeqs(res))
	}
	if evs, err := s.Events(ctx, sess.ID); err != nil || len(evs) != 1 {
		t.Errorf("events after the failed appends: %d, %v", len(evs), err)
	}
	if st, err := s.SearchStatus(ctx); err != nil || st.Partial() || st.Total != 1 {
		t.Errorf("status %+v, %v", st, err)
	}
}

// A process killed at any moment of appending leaves every committed event
// with its index row: the child appends events as fast as it can and is
// killed with SIGKILL while at it; the parent reopens the file.
func TestKilledWhileAppendingEveryEventHasItsIndexRow(t *testing.T) {
	if path := os.Getenv("LOUPE_SEARCH_APPEND_CHILD"); path != "" {
		appendForever(path)
		return
	}
	path := filepath.Join(t.TempDir(), "loupe.db")
	for round := range 3 {
		cmd := execpkg.Command(os.Args[0], "-test.run=^TestKilledWhileAppendingEveryEventHasItsIndexRow$")
		cmd.Env = append(os.Environ(), "LOUPE_SEARCH_APPEND_CHILD="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill it after a different number of commits each round.
		lines := bufio.NewScanner(out)
		for n := 0; n < 40+round*37 && lines.Scan(); n++ {
		}
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
	}
	// A kill leaves the text of its last events pending (written to the
	// index in batches): a store that cannot write the index, as a
	// read-only one, finds them from their payloads.
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	var pending int
	if err := ro.r.QueryRow(`SELECT count(*) FROM search_docs WHERE id > (SELECT upto FROM search_indexed)`).Scan(&pending); err != nil {
		t.Fatal(err)
	}
	if pending == 0 {
		t.Fatal("the kills left no event pending; the test does not reach what it is for")
	}
	findEachOnce(t, ro)
	ro.Close()

	s := openAt(t, path)
	var events, unindexed, backlog int
	if err := s.r.QueryRow(`SELECT (SELECT count(*) FROM events),
		(SELECT count(*) FROM events e WHERE NOT EXISTS (SELECT 1 FROM search_docs d WHERE d.session_id = e.session_id AND d.seq = e.seq)),
		(SELECT count(*) FROM search_backlog)`).Scan(&events, &unindexed, &backlog); err != nil {
		t.Fatal(err)
	}
	if events < 100 || unindexed != 0 || backlog != 0 {
		t.Fatalf("%d events, %d without an index row, %d backlog rows", events, unindexed, backlog)
	}
	findEachOnce(t, s)
	// Search wrote what was pending into the index.
	if docs, texts := countRows(t, s); docs != events || texts != events {
		t.Fatalf("%d events, %d docs, %d texts", events, docs, texts)
	}
}

// findEachOnce checks that each event appendForever wrote is found by its
// own word, and only it.
func findEachOnce(t *testing.T, s *Store) {
	t.Helper()
	sessions, err := s.ListSessions(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, sess := range sessions {
		evs, err := s.Events(t.Context(), sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			word := fmt.Sprintf("word%sx%dz", sess.ID, e.Seq)
			if res := search(t, s, word, SearchFilter{}); len(hitSeqs(res)) != 1 {
				t.Fatalf("%s: %v", word, hitSeqs(res))
			}
		}
	}
}

// An appended event's text waits for a batch; a session deleted before
// its batch takes its pending rows with it, and a store closed cleanly
// leaves nothing pending.
func TestPendingTextIsWrittenInBatchesAndDeletedWithItsSession(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loupe.db")
	s := openAt(t, path)
	ctx := t.Context()
	gone, kept := mustCreate(t, s, Session{}), mustCreate(t, s, Session{})
	count := func(s *Store) (pending, texts int) {
		t.Helper()
		if err := s.r.QueryRow(`SELECT (SELECT count(*) FROM search_docs WHERE id > (SELECT upto FROM search_indexed)), (SELECT count(*) FROM search_text)`).Scan(&pending, &texts); err != nil {
			t.Fatal(err)
		}
		return pending, texts
	}
	for i := range 3 {
		for _, id := range []string{gone.ID, kept.ID} {
			mustAppend(t, s, in(id, trace.New(trace.KindNotice, 1, 1, trace.Notice{Code: "x", Message: fmt.Sprintf("narwhal %d", i)})))
		}
	}
	// Fewer than a batch: the text is pending, and found all the same.
	if pending, texts := count(s); pending != 6 || texts != 0 {
		t.Fatalf("after 6 appends: %d pending, %d texts; want 6, 0", pending, texts)
	}
	if err := s.DeleteSession(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	if pending, _ := count(s); pending != 3 {
		t.Fatalf("after the delete: %d pending; want 3", pending)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if pending, texts := count(ro); pending != 0 || texts != 3 {
		t.Fatalf("after Close: %d pending, %d texts; want 0, 3", pending, texts)
	}
	if res := search(t, ro, "narwhal", SearchFilter{}); len(res.Sessions) != 1 || res.Sessions[0].SessionID != kept.ID || len(res.Sessions[0].Hits) != 3 {
		t.Fatalf("after Close: %v", hitSeqs(res))
	}
}

// appendForever is the child of TestKilledWhileAppendingEveryEventHasItsIndexRow:
// it prints a line after each committed event until it is killed.
func appendForever(path string) {
	s, err := Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctx := context.Background()
	sess, err := s.CreateSession(ctx, Session{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	filler := strings.Repeat("output line\n", 2000)
	for seq := int64(1); ; seq++ {
		text := fmt.Sprintf("word%sx%dz\n%s", sess.ID, seq, filler)
		if _, err := s.Append(ctx, in(sess.ID, trace.New(trace.KindToolResult, 1, 1, trace.ToolResult{CallID: "c", Name: "run_command", Content: text}))); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(seq)
	}
}

// schema6 makes a database as a Loupe of schema 6 left it, with n events
// of text in each of the given sessions.
func schema6(t *testing.T, path string, sessions []string, n int) {
	t.Helper()
	migs, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, path)
	for _, m := range migs[:6] {
		exec(t, db, m.sql)
	}
	exec(t, db, fmt.Sprintf(`PRAGMA user_version = 6; PRAGMA application_id = %d;`, int32(ApplicationID)))
	var sqlText strings.Builder
	sqlText.WriteString("BEGIN;\n")
	for i, id := range sessions {
		fmt.Fprintf(&sqlText, "INSERT INTO sessions (id, title, created_at, updated_at, last_seq) VALUES ('%s', '%s', 1, %d, %d);\n", id, id, i+1, n)
		for seq := 1; seq <= n; seq++ {
			p, _ := json.Marshal(trace.ToolResult{CallID: "c", Name: "grep", Content: fmt.Sprintf("old pangolin output %s %d;", id, seq)})
			fmt.Fprintf(&sqlText, "INSERT INTO events (session_id, seq, kind, time, run, round, payload) VALUES ('%s', %d, 'tool_result', 1, 1, 1, '%s');\n", id, seq, p)
		}
	}
	sqlText.WriteString("COMMIT;")
	exec(t, db, sqlText.String())
	db.Close()
}

// A database of schema 6 opens at once; its events are found as they are
// indexed in the background, the results marked partial until all are.
func TestOlderEventsAreIndexedInTheBackground(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loupe.db")
	schema6(t, path, []string{"s1", "s2", "s3"}, 250)
	s := openAt(t, path)
	ctx := t.Context()

	st, err := s.SearchStatus(ctx)
	if err != nil || st.Total != 750 || st.Indexed != 0 || !st.Partial() {
		t.Fatalf("status after the migration: %+v, %v", st, err)
	}
	// A new event is indexed as it is appended, older ones not yet.
	mustAppend(t, s, in("s1", trace.New(trace.KindUserMessage, 2, 0, trace.UserMessage{Text: "new pangolin question"})))
	res := search(t, s, "pangolin", SearchFilter{})
	if !res.Partial || len(hitSeqs(res)) != 1 || res.Status.Indexed != 1 || res.Status.Total != 751 {
		t.Fatalf("before indexing: partial %v, hits %v, status %+v", res.Partial, hitSeqs(res), res.Status)
	}

	// One batch: the most recently updated session first, part of it.
	if done, err := s.indexBatch(ctx, 100, backlogBytes); err != nil || done {
		t.Fatal(done, err)
	}
	res = search(t, s, "old pangolin output s", SearchFilter{})
	if !res.Partial || len(hitSeqs(res)) != 100 || res.Status.Indexed != 101 {
		t.Fatalf("after a batch: partial %v, %d hits, status %+v", res.Partial, len(hitSeqs(res)), res.Status)
	}
	if res.Sessions[0].SessionID != "s1" {
		t.Errorf("first indexed %s; want s1, updated last", res.Sessions[0].SessionID)
	}

	// Two processes index the rest at once: each event once.
	other := openAt(t, path)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, x := range []*Store{s, other} {
		wg.Go(func() { errs[i] = x.IndexBacklog(ctx, nil) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	res, err = s.Search(ctx, "old pangolin output", SearchFilter{}, 1000)
	if err != nil || res.Partial || len(hitSeqs(res)) != 750 || res.Status != (SearchStatus{Indexed: 751, Total: 751}) {
		t.Fatalf("after indexing: partial %v, %d hits, status %+v, %v", res.Partial, len(hitSeqs(res)), res.Status, err)
	}
	if docs, texts := countRows(t, s); docs != 751 || texts != 751 {
		t.Fatalf("%d docs, %d texts; want 751 of each", docs, texts)
	}
	if res := search(t, s, "old pangolin output s2 17;", SearchFilter{}); len(hitSeqs(res)) != 1 || res.Order != OrderBest {
		t.Fatalf("one old event: %v, order %s", hitSeqs(res), res.Order)
	}
	// Too many matches to rank: the newest, and an event indexed late from
	// the backlog is still older than the one appended after it.
	res, err = s.Search(ctx, "pangolin", SearchFilter{}, 3)
	if err != nil || res.Order != OrderNewest || !res.More || fmt.Sprint(hitSeqs(res)) != "[s1:249 s1:250 s1:251]" {
		t.Fatalf("newest: %v, order %s, more %v, %v", hitSeqs(res), res.Order, res.More, err)
	}
}

// An event written without its text (an older Loupe still running on the
// file, or SQL outside Append) goes to the backlog and is indexed there.
func TestEventWrittenWithoutTheIndexIsIndexedLater(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loupe.db")
	s := openAt(t, path)
	ctx := t.Context()
	sess := mustCreate(t, s, Session{})
	mustAppend(t, s, in(sess.ID, trace.New(trace.KindUserMessage, 1, 0, trace.UserMessage{Text: "axolotl one"})))
	db := rawDB(t, path)
	exec(t, db, fmt.Sprintf(`UPDATE sessions SET last_seq = 3 WHERE id = '%s'`, sess.ID))
	exec(t, db, fmt.Sprintf(`INSERT INTO events (session_id, seq, kind, time, run, round, payload) VALUES
		('%[1]s', 2, 'notice', 1, 1, 1, '{"code":"c","message":"axolotl two"}'),
		('%[1]s', 3, 'notice', 1, 1, 1, '{"code":"c","message":"axolotl three"}')`, sess.ID))
	if st, _ := s.SearchStatus(ctx); !st.Partial() || st.Indexed != 1 {
		t.Fatalf("status %+v", st)
	}
	mustAppend(t, s, in(sess.ID, trace.New(trace.KindUserMessage, 2, 0, trace.UserMessage{Text: "axolotl four"})))
	if err := s.IndexBacklog(ctx, nil); err != nil {
		t.Fatal(err)
	}
	res := search(t, s, "axolotl", SearchFilter{})
	if got := len(hitSeqs(res)); got != 4 || res.Partial {
		t.Fatalf("hits %v, partial %v", hitSeqs(res), res.Partial)
	}
}

func TestSnippet(t *testing.T) {
	long := strings.Repeat("x", 300)
	for _, c := range []struct {
		text, q, want string
	}{
		{"open .ENV now", ".env", "open [.ENV] now"},
		{"a\n\n\tb ENOENT  c", "enoent", "a b [ENOENT] c"},
		{long + " needle " + long, "needle", "…" + long[:59] + " [needle] " + long[:119] + "…"},
		{"needle and NEEDLE", "needle", "[needle] and [NEEDLE]"},
		{"Straße STRASSE", "straße", "[Straße] STRASSE"},
		{"no match here", "zzz", "no match here"},
		{"ééé needle", "NEEDLE", "ééé [needle]"},
	} {
		var b strings.Builder
		for _, p := range Snippet(c.text, c.q) {
			if p.Match {
				b.WriteString("[" + p.Text + "]")
			} else {
				b.WriteString(p.Text)
			}
		}
		if b.String() != c.want {
			t.Errorf("Snippet(%.40q, %q) = %q, want %q", c.text, c.q, b.String(), c.want)
		}
	}
}

// A search reads the index first and finds everything else by key: no
// step scans the events or the docs, whatever the filters.
func TestSearchQueryPlans(t *testing.T) {
	s := openTemp(t)
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	plan := func(q string, args []any) []string {
		t.Helper()
		rows, err := s.r.QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+q, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var steps []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			steps = append(steps, detail)
		}
		return steps
	}
	for _, f := range []SearchFilter{{}, {Model: "m", Workspace: "/w", Outcome: "answered"}, {From: day, To: day.AddDate(0, 0, 1)}, {Model: "m", From: day}} {
		for _, sq := range []func() (string, []any){
			func() (string, []any) { return newestSQL(ftsPhrase("abc"), f, 51) },
			func() (string, []any) { return newestPairsSQL(pairPhrase("return value"), f, 51) },
		} {
			q, args := sq()
			steps := plan(q, args)
			if len(steps) == 0 || !strings.HasPrefix(steps[0], "SCAN f VIRTUAL TABLE") {
				t.Errorf("%+v: the index is not the outer loop: %q", f, steps)
			}
			for _, st := range steps[1:] {
				if strings.HasPrefix(st, "SCAN") && !strings.HasPrefix(st, "SCAN sessions") || strings.Contains(st, "TEMP B-TREE") {
					t.Errorf("%+v: plan step %q (of %q)", f, st, steps)
				}
			}
		}
		q, args := docEventSQL(f)
		for _, st := range plan(q, append([]any{int64(1)}, args...)) {
			if strings.HasPrefix(st, "SCAN") && !strings.HasPrefix(st, "SCAN sessions") {
				t.Errorf("%+v: a hit's event is read with a scan: %q", f, st)
			}
		}
	}
}

// An event appended after the events with the highest ids were deleted,
// their text already in the index, is found: its id is above every id
// the indexer has passed.
func TestEventAfterDeletedNewestIsIndexed(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	a, b := mustCreate(t, s, Session{}), mustCreate(t, s, Session{})
	for _, id := range []string{a.ID, a.ID, b.ID, b.ID} {
		mustAppend(t, s, in(id, trace.New(trace.KindNotice, 1, 1, trace.Notice{Code: "x", Message: "okapi"})))
	}
	countRows(t, s) // writes the text of all four
	if err := s.DeleteSession(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, in(a.ID, trace.New(trace.KindNotice, 1, 1, trace.Notice{Code: "x", Message: "okapi and tapir"})))
	if res := search(t, s, "tapir", SearchFilter{}); fmt.Sprint(hitSeqs(res)) != fmt.Sprintf("[%s:3]", a.ID) {
		t.Fatalf("tapir: %v", hitSeqs(res))
	}
	if docs, texts := countRows(t, s); docs != 3 || texts != 3 {
		t.Fatalf("%d docs, %d texts; want 3, 3", docs, texts)
	}
}

// A query that matches few events gives them best first: the text that
// holds it most often for its length first, the newest first among equals.
func TestFewMatchesAreRankedBestFirst(t *testing.T) {
	s := openTemp(t)
	say := func(text string) string {
		sess := mustCreate(t, s, Session{})
		mustAppend(t, s, in(sess.ID, trace.New(trace.KindUserMessage, 1, 0, trace.UserMessage{Text: text})))
		return sess.ID
	}
	long := say("an okapi " + strings.Repeat("and then a long story about something else ", 50))
	once := say("one okapi here")
	thrice := say("okapi, okapi and OKAPI")
	again := say("one okapi here")
	res := search(t, s, "okapi", SearchFilter{})
	var got []string
	for _, sh := range res.Sessions {
		got = append(got, sh.SessionID)
	}
	if want := []string{thrice, again, once, long}; res.Order != OrderBest || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("order %s, sessions %v; want %v", res.Order, got, want)
	}
}
