package store

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/trace"
)

// The search benchmarks read a database of 500 sessions of 400 events
// each, generated from a fixed seed: what a year of use might hold. It is
// made once and kept in the user's cache folder (its name carries
// benchCorpusVersion: change that when the generator or the schema
// changes), since writing 200,000 events with their index takes a minute.
const (
	benchSessions      = 500
	benchEventsPerSess = 400
	benchCorpusVersion = 1
)

// The words the generated texts are made of. "error" ends up in 38 % of
// the events; "xylophone" in five; "parse_args(" in one tool result in a
// hundred (429 events).
var benchWords = strings.Fields(`the a to of and in is it for on with that this as be are was by not or
	file line function return value test build run go code main package import type func var const
	struct string int map slice error nil if else for range defer context server client request response
	handler config path read write open close name list find update delete create check path status
	output input result data cache index query table row column session event model tool call args
	module version release commit branch merge diff patch fix bug issue feature refactor rename move
	install dependency lint format vet compile link binary docker image container deploy service log`)

func benchText(r *rand.Rand, words int) string {
	var b strings.Builder
	for i := range words {
		if i > 0 {
			if i%12 == 0 {
				b.WriteByte('\n')
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString(benchWords[r.IntN(len(benchWords))])
		if r.IntN(40) == 0 {
			fmt.Fprintf(&b, "_%s%d", benchWords[r.IntN(len(benchWords))], r.IntN(100))
		}
	}
	return b.String()
}

// benchCode is a made-up source file or command output of about n lines.
func benchCode(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := range n {
		switch r.IntN(6) {
		case 0:
			fmt.Fprintf(&b, "func %s%d(ctx context.Context, %s string) error {\n", benchWords[r.IntN(len(benchWords))], i, benchWords[r.IntN(len(benchWords))])
		case 1:
			fmt.Fprintf(&b, "\tif err := %s.%s(); err != nil {\n", benchWords[r.IntN(len(benchWords))], benchWords[r.IntN(len(benchWords))])
		case 2:
			fmt.Fprintf(&b, "src/%s/%s.go:%d: %s\n", benchWords[r.IntN(len(benchWords))], benchWords[r.IntN(len(benchWords))], r.IntN(900), benchText(r, 6))
		default:
			fmt.Fprintf(&b, "\t%s\n", benchText(r, 8))
		}
	}
	return b.String()
}

// benchSession is the log of one generated session: runs of a user
// message, rounds of request, answer, call, (sometimes a permission),
// result, and a run_end.
func benchSession(r *rand.Rand, n int) []trace.Event {
	var evs []trace.Event
	run, round := 0, 0
	for len(evs) < n {
		if round == 0 || r.IntN(8) == 0 || len(evs) >= n-1 {
			if run > 0 {
				evs = append(evs, trace.New(trace.KindRunEnd, run, round, trace.RunEnd{Reason: trace.EndAnswered, FinalText: benchText(r, 40), Rounds: round}))
			}
			run++
			round = 1
			evs = append(evs, trace.New(trace.KindUserMessage, run, 0, trace.UserMessage{Text: benchText(r, 20)}))
			continue
		}
		args, _ := json.Marshal(map[string]string{"command": "go test ./" + benchWords[r.IntN(len(benchWords))] + "/...", "path": "src/" + benchWords[r.IntN(len(benchWords))] + ".go"})
		evs = append(evs,
			trace.New(trace.KindModelRequest, run, round, trace.ModelRequest{Model: "qwen3:8b", HistoryAdded: []int64{int64(len(evs))}}),
			trace.New(trace.KindModelResponse, run, round, trace.ModelResponse{
				Content: benchText(r, 30), Thinking: benchText(r, 80),
				ToolCalls: []llm.ToolCall{{ID: "c1", Name: "run_command", Args: args}},
			}),
			trace.New(trace.KindToolCall, run, round, trace.ToolCall{CallID: "c1", Name: "run_command", Args: args, Valid: true}),
		)
		if r.IntN(4) == 0 {
			evs = append(evs, trace.New(trace.KindPermission, run, round, trace.Permission{CallID: "c1", Tool: "run_command", Decision: trace.Allow, By: "user", Reasons: []string{benchText(r, 8)}}))
		}
		lines := 5 + r.IntN(60)
		if r.IntN(50) == 0 {
			lines = 1500 // a long build log now and then
		}
		out := benchCode(r, lines)
		if r.IntN(100) == 0 {
			out += "    opts = parse_args(sys.argv[1:])\n"
		}
		evs = append(evs, trace.New(trace.KindToolResult, run, round, trace.ToolResult{CallID: "c1", Name: "run_command", Content: out, Bytes: len(out)}))
		round++
	}
	return evs[:n]
}

// benchCorpus returns the path of the generated database, making it the
// first time.
func benchCorpus(b *testing.B) string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	dir = filepath.Join(dir, "loupe-bench")
	path := filepath.Join(dir, fmt.Sprintf("search-v%d-%d.db", benchCorpusVersion, len(mustMigrations(b))))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	tmp := path + ".part"
	os.Remove(tmp)
	s, err := Open(tmp)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, 2))
	rare := map[int]bool{}
	for len(rare) < 5 {
		rare[r.IntN(benchSessions*benchEventsPerSess)] = true
	}
	start := time.Now()
	for i := range benchSessions {
		sess, err := s.CreateSession(ctx, Session{Model: []string{"qwen3:8b", "llama3.1:8b", "gpt-oss:20b"}[i%3], Workspace: fmt.Sprintf("/home/u/src/project%d", i%20)})
		if err != nil {
			b.Fatal(err)
		}
		tx, err := s.w.BeginTx(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		st := s.appendStmts(ctx, tx)
		for j, e := range benchSession(r, benchEventsPerSess) {
			if rare[i*benchEventsPerSess+j] {
				e = trace.New(trace.KindUserMessage, e.Run, 0, trace.UserMessage{Text: "tune the xylophone module"})
			}
			e.SessionID = sess.ID
			e.Time = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i*benchEventsPerSess+j) * time.Minute)
			if _, err := s.appendTx(ctx, st, e); err != nil {
				b.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	b.Logf("generated %s in %v", path, time.Since(start))
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	return path
}

func mustMigrations(b testing.TB) []migration {
	migs, err := loadMigrations()
	if err != nil {
		b.Fatal(err)
	}
	return migs
}

// BenchmarkSearch measures Store.Search (hits, their sessions, events and
// snippets) over 200,000 events in 500 sessions, per kind of query, and
// reports each one's median and 95th percentile of wall time, and the
// process's CPU time per query (which the machine's load inflates less).
//
// The phrases run twice: as Search finds them, with the index of word
// pairs, and with the trigram index alone, as before that index ("trigram
// only"), in the same run.
func BenchmarkSearch(b *testing.B) {
	s := openAt(b, benchCorpus(b))
	ctx := b.Context()
	benchPairs(b, s)
	for _, c := range []struct {
		name, q     string
		f           SearchFilter
		trigramOnly bool
	}{
		{"common word", "error", SearchFilter{}, false},
		{"common word, model filter", "error", SearchFilter{Model: "llama3.1:8b"}, false},
		{"rare word", "xylophone", SearchFilter{}, false},
		{"code substring", "parse_args(", SearchFilter{}, false},
		{"phrase", "return value", SearchFilter{}, false},
		{"phrase, trigram only", "return value", SearchFilter{}, true},
		{"phrase, model filter", "return value", SearchFilter{Model: "llama3.1:8b"}, false},
		{"phrase, few matches", "test error nil", SearchFilter{}, false},
		{"phrase, few matches, trigram only", "test error nil", SearchFilter{}, true},
		{"code phrase", "err != nil", SearchFilter{}, false},
		{"code phrase, trigram only", "err != nil", SearchFilter{}, true},
		{"no match", "zebra crossing", SearchFilter{}, false},
	} {
		b.Run(c.name, func(b *testing.B) {
			s.trigramOnly = c.trigramOnly
			defer func() { s.trigramOnly = false }()
			var took []time.Duration
			hits := 0
			cpu0 := cpuTime()
			for b.Loop() {
				start := time.Now()
				res, err := s.Search(ctx, c.q, c.f, 50)
				took = append(took, time.Since(start))
				if err != nil {
					b.Fatal(err)
				}
				hits = len(hitSeqs(res))
			}
			cpu := cpuTime() - cpu0
			sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(took)), "cpu-ms")
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(took[len(took)*95/100].Microseconds())/1000, "p95-ms")
			b.ReportMetric(float64(hits), "hits")
		})
	}
}

// benchPairs writes the word pairs of a corpus made before the pairs
// index (a copy of the previous schema's corpus, migrated), as
// IndexBacklog does but without its waits, and logs how fast.
func benchPairs(b *testing.B, s *Store) {
	st, err := s.SearchStatus(b.Context())
	if err != nil || st.PairsPending == 0 {
		return
	}
	start := time.Now()
	for {
		done, err := s.indexPairsBatch(b.Context(), pairsBatch)
		if err != nil {
			b.Fatal(err)
		}
		if done {
			break
		}
	}
	took := time.Since(start)
	b.Logf("wrote the pairs of about %d events in %v: %.0f events/s", st.PairsPending, took, float64(st.PairsPending)/took.Seconds())
}

// BenchmarkSearchIndexSize reports the size of the generated database, of
// the same database without the pairs index, and without either index
// (their tables dropped, then VACUUM), in MB.
func BenchmarkSearchIndexSize(b *testing.B) {
	path := benchCorpus(b)
	s := openAt(b, path)
	benchPairs(b, s)
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	bare := filepath.Join(b.TempDir(), "bare.db")
	trigrams := filepath.Join(b.TempDir(), "trigrams.db")
	full := filepath.Join(b.TempDir(), "full.db")
	for _, p := range []string{bare, trigrams, full} {
		db := rawDB(b, path)
		exec(b, db, fmt.Sprintf(`VACUUM INTO '%s'`, p))
		db.Close()
	}
	db := rawDB(b, trigrams)
	exec(b, db, `DROP TABLE search_pairs; DROP TABLE search_pairs_backlog; VACUUM`)
	db.Close()
	db = rawDB(b, bare)
	exec(b, db, `DROP TRIGGER events_unindexed; DROP TABLE search_docs; DROP TABLE search_text; DROP TABLE search_backlog;
		DROP TABLE search_pairs; DROP TABLE search_pairs_backlog; VACUUM`)
	db.Close()
	size := func(p string) float64 {
		fi, err := os.Stat(p)
		if err != nil {
			b.Fatal(err)
		}
		return float64(fi.Size()) / 1e6
	}
	for b.Loop() {
	}
	b.ReportMetric(size(full), "with-index-MB")
	b.ReportMetric(size(trigrams), "without-pairs-MB")
	b.ReportMetric(size(bare), "without-MB")
	b.ReportMetric(size(full)/size(bare), "ratio")
	b.ReportMetric(size(trigrams)/size(bare), "ratio-without-pairs")
}

// BenchmarkAppendIndexed measures the cost per event of keeping the index:
// the same generated events (a session's mix: messages, requests, answers
// with thinking, calls, results of a few lines to 1,500) appended as the
// loop appends them, Append (a commit and an fsync each) and AppendSoon
// (a commit each, no fsync: where the statements' own work shows most),
// to two stores at once, one with the index and one without (its index
// statements and trigger left out). Each iteration appends the event to
// both, in turn, so that whatever else the machine does weighs on both
// alike; it reports the median wall time and the CPU time per event of
// each, and their ratios.
func BenchmarkAppendIndexed(b *testing.B) {
	evs := benchSession(rand.New(rand.NewPCG(3, 4)), 2000)
	for _, durable := range []bool{true, false} {
		b.Run(fmt.Sprintf("durable=%v", durable), func(b *testing.B) {
			ctx := b.Context()
			with, without := openTemp(b), openTemp(b)
			exec(b, without.w, `DROP TRIGGER events_unindexed`)
			without.stmt.insertDoc.Close()
			without.stmt.insertText.Close()
			without.stmt.insertDoc, without.stmt.insertText = nil, nil
			stores := []*Store{with, without}
			ids := []string{mustCreate(b, with, Session{}).ID, mustCreate(b, without, Session{}).ID}
			var wall [2][]time.Duration
			var cpu [2]time.Duration
			i := 0
			for b.Loop() {
				e := evs[i%len(evs)]
				for k := range 2 {
					// Alternate which store goes first.
					k = (k + i) % 2
					s := stores[k]
					appendOne := s.AppendSoon
					if durable {
						appendOne = s.Append
					}
					e.SessionID = ids[k]
					c0, t0 := cpuTime(), time.Now()
					if _, err := appendOne(ctx, e); err != nil {
						b.Fatal(err)
					}
					wall[k] = append(wall[k], time.Since(t0))
					cpu[k] += cpuTime() - c0
				}
				i++
			}
			median := func(d []time.Duration) float64 {
				sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
				return float64(d[len(d)/2].Microseconds())
			}
			w0, w1 := median(wall[0]), median(wall[1])
			c0, c1 := float64(cpu[0].Microseconds())/float64(i), float64(cpu[1].Microseconds())/float64(i)
			b.ReportMetric(w0, "with-µs")
			b.ReportMetric(w1, "without-µs")
			b.ReportMetric(w0/w1, "wall-ratio")
			b.ReportMetric(c0, "with-cpu-µs")
			b.ReportMetric(c1, "without-cpu-µs")
			b.ReportMetric(c0/c1, "cpu-ratio")
		})
	}
}

// BenchmarkIndexFlush measures the indexer's part of the cost per event:
// the same generated events as BenchmarkAppendIndexed, appended with the
// indexer stopped, then their text written into the FTS table in batches
// of flushEvents, as the indexer writes it. It reports the wall and CPU
// time per event of the flushes.
func BenchmarkIndexFlush(b *testing.B) {
	evs := benchSession(rand.New(rand.NewPCG(3, 4)), 2000)
	ctx := b.Context()
	s := openTemp(b)
	if err := s.ix.close(); err != nil {
		b.Fatal(err)
	}
	s.ix = nil // appends count nothing, and nothing flushes on its own
	id := mustCreate(b, s, Session{}).ID
	i := 0
	for b.Loop() {
		e := evs[i%len(evs)]
		e.SessionID = id
		b.StopTimer()
		if _, err := s.AppendSoon(ctx, e); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		i++
	}
	c0, t0 := cpuTime(), time.Now()
	for {
		n, err := s.flushBatch(ctx, flushEvents)
		if err != nil {
			b.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	wall, cpu := time.Since(t0), cpuTime()-c0
	b.ReportMetric(float64(wall.Microseconds())/float64(i), "flush-µs/event")
	b.ReportMetric(float64(cpu.Microseconds())/float64(i), "flush-cpu-µs/event")
}

// cpuTime is the CPU time this process has used (user and system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkIndexBacklog measures how fast an older database is indexed:
// 20 generated sessions of 400 events written without the index, then
// IndexBacklog over them, batch after batch (with its waits between
// batches, as the window runs it). It reports events indexed per second.
func BenchmarkIndexBacklog(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	var logs [][]trace.Event
	for range 20 {
		logs = append(logs, benchSession(r, benchEventsPerSess))
	}
	var events int
	var took time.Duration
	for b.Loop() {
		b.StopTimer()
		s := openTemp(b)
		ctx := b.Context()
		exec(b, s.w, `DROP TRIGGER events_unindexed`)
		doc, text := s.stmt.insertDoc, s.stmt.insertText
		s.stmt.insertDoc, s.stmt.insertText = nil, nil
		for _, evs := range logs {
			sess := mustCreate(b, s, Session{})
			tx, err := s.w.BeginTx(ctx, nil)
			if err != nil {
				b.Fatal(err)
			}
			st := s.appendStmts(ctx, tx)
			for _, e := range evs {
				e.SessionID = sess.ID
				if _, err := s.appendTx(ctx, st, e); err != nil {
					b.Fatal(err)
				}
			}
			if err := tx.Commit(); err != nil {
				b.Fatal(err)
			}
		}
		s.stmt.insertDoc, s.stmt.insertText = doc, text
		exec(b, s.w, `INSERT INTO search_backlog SELECT id, 1, last_seq FROM sessions`)
		b.StartTimer()
		start := time.Now()
		if err := s.IndexBacklog(ctx, nil); err != nil {
			b.Fatal(err)
		}
		took += time.Since(start)
		events += 20 * benchEventsPerSess
		if st, err := s.SearchStatus(ctx); err != nil || st.Partial() {
			b.Fatalf("after IndexBacklog: %+v, %v", st, err)
		}
	}
	b.ReportMetric(float64(events)/took.Seconds(), "events/s")
}

// BenchmarkSearchIndexDetail measures what the FTS5 table's detail option
// costs and saves: the text of 20,000 generated events (the corpus's mix)
// indexed in three contentless trigram tables, detail=full (Loupe's),
// detail=column and detail=none, each in a database of its own, vacuumed.
// It reports each one's size against the text it indexes, and what a
// phrase of common trigrams (`return value`) costs on each: on full, the
// phrase query and its matches; on the others, which cannot run a phrase,
// the AND of its trigrams and how many events it leaves to check in Go.
func BenchmarkSearchIndexDetail(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	var texts []string
	textBytes := 0
	for range 50 {
		for _, e := range benchSession(r, benchEventsPerSess) {
			if t := trace.SearchText(e); t != "" {
				texts = append(texts, t)
				textBytes += len(t)
			}
		}
	}
	const q = "return value"
	var grams []string
	for i := 0; i+3 <= len(q); i++ {
		grams = append(grams, ftsPhrase(q[i:i+3]))
	}
	metrics := map[string]float64{"text-MB": float64(textBytes) / 1e6}
	for _, detail := range []string{"full", "column", "none"} {
		path := filepath.Join(b.TempDir(), detail+".db")
		db := rawDB(b, path)
		exec(b, db, `CREATE VIRTUAL TABLE t USING fts5(text, content='', contentless_delete=1, tokenize='trigram', detail=`+detail+`)`)
		tx, err := db.Begin()
		if err != nil {
			b.Fatal(err)
		}
		for i, t := range texts {
			if _, err := tx.Exec(`INSERT INTO t (rowid, text) VALUES (?, ?)`, i+1, t); err != nil {
				b.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		exec(b, db, `INSERT INTO t (t) VALUES ('optimize'); VACUUM`)
		fi, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		metrics[detail+"-MB"] = float64(fi.Size()) / 1e6
		metrics[detail+"/text"] = float64(fi.Size()) / float64(textBytes)
		match := ftsPhrase(q)
		if detail != "full" {
			match = strings.Join(grams, " AND ")
		}
		start := time.Now()
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM t WHERE t MATCH ?`, match).Scan(&n); err != nil {
			b.Fatalf("detail=%s: %v", detail, err)
		}
		metrics[detail+"-query-ms"] = float64(time.Since(start).Microseconds()) / 1000
		metrics[detail+"-events"] = float64(n)
		db.Close()
	}
	for b.Loop() {
	}
	for k, v := range metrics {
		b.ReportMetric(v, k)
	}
}
