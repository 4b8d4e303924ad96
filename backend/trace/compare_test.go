package trace_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/golden"
)

// The window's recordings are logs the real engine wrote (backend/session
// records them against the fake Ollama): every kind of round Loupe makes
// is in one of them (calls that ran, were denied, failed, were skipped or
// stopped; compaction, Compact now after the end, a cut stream, a round
// cap, pauses and edits, several runs).
const recordings = "../../frontend/src/lib/replay/recordings"

// logsOf reads every session's log in every recording, by recording and
// session, each in seq order with each event once.
func logsOf(t *testing.T) map[string][]trace.Event {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(recordings, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recordings in %s: %v", recordings, err)
	}
	out := map[string][]trace.Event{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var rec golden.Recording
		if err := json.Unmarshal(b, &rec); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		seen := map[string]map[int64]bool{}
		for _, st := range rec.Steps {
			if st.Event == nil {
				continue
			}
			var e trace.Event
			if err := json.Unmarshal(st.Event, &e); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			key := rec.Scenario + "/" + e.SessionID
			if seen[key] == nil {
				seen[key] = map[int64]bool{}
			}
			if seen[key][e.Seq] {
				continue
			}
			seen[key][e.Seq] = true
			out[key] = append(out[key], e)
		}
	}
	for k := range out {
		evs := out[k]
		sort.SliceStable(evs, func(i, j int) bool { return evs[i].Seq < evs[j].Seq })
	}
	return out
}

// The figures of every recorded log agree with the log read another way:
// the rounds are the requests the session list counts (compaction's left
// out), the calls are the answers' calls, the denials and errors are the
// results and errors the log holds, and the end is the last run_end's. A
// log compared with itself never diverges, and every round it has ended
// is the same on both sides.
func TestFiguresAgreeWithEveryRecordedLog(t *testing.T) {
	logs := logsOf(t)
	kinds := map[string]bool{}
	for name, evs := range logs {
		f := trace.FiguresOf(evs)
		var rounds, calls, denials, errs int
		end := ""
		open := false
		for _, e := range evs {
			if e.Agent != "" {
				continue // a sub-agent's events are its task call's
			}
			switch e.Kind {
			case trace.KindModelRequest:
				p, _ := trace.Decode[trace.ModelRequest](e)
				if p.Purpose != trace.PurposeCompaction {
					rounds++
				}
			case trace.KindModelResponse:
				p, _ := trace.Decode[trace.ModelResponse](e)
				calls += len(p.ToolCalls)
			case trace.KindToolResult:
				p, _ := trace.Decode[trace.ToolResult](e)
				kinds[p.ErrorKind] = true
				switch {
				case p.ErrorKind == trace.ErrDenied:
					denials++
				case p.ErrorKind == trace.ErrSkipped:
				case p.IsError:
					errs++
				}
			case trace.KindError:
				errs++
			case trace.KindUserMessage:
				open, end = true, ""
			case trace.KindRunEnd:
				p, _ := trace.Decode[trace.RunEnd](e)
				open, end = false, p.Reason
			}
		}
		tt := f.Totals
		// Compact now after a run's end asks for a summary: its answer's
		// calls (none) do not make a round.
		if tt.Rounds != rounds || tt.Calls != calls || tt.Denials != denials || tt.Errors != errs || tt.End != end || f.Open != open {
			t.Errorf("%s: totals %+v open %v; the log holds %d rounds, %d calls, %d denials, %d errors, end %q, open %v",
				name, tt, f.Open, rounds, calls, denials, errs, end, open)
		}
		for _, r := range f.Rounds {
			if r.Seq == 0 || r.Round == 0 || r.Outcome == "" {
				t.Errorf("%s: round %d.%d has no request or outcome: %+v", name, r.Run, r.Round, r)
			}
		}
		al := trace.Align(evs, evs)
		if al.Diverge != -1 {
			t.Errorf("%s compared with itself diverges at %d: %s", name, al.Diverge, al.Why)
		}
		for _, row := range al.Rows {
			if !row.Same && row.A.Outcome != trace.OutcomeRunning {
				t.Errorf("%s compared with itself: round %d.%d is not the same", name, row.Run, row.Round)
			}
		}
	}
	// The recordings hold the outcomes the figures tell apart.
	for _, k := range []string{"", trace.ErrDenied, trace.ErrFailed, trace.ErrSkipped} {
		if !kinds[k] {
			t.Errorf("no recorded result of error kind %q: the test no longer walks it", k)
		}
	}
}

// Every recorded log against every other: the divergence is the first
// row that differs, and no row before it does; Align is the same read
// from either side.
func TestAlignEveryPairOfRecordedLogs(t *testing.T) {
	logs := logsOf(t)
	names := make([]string, 0, len(logs))
	for k := range logs {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, x := range names {
		for _, y := range names {
			if x >= y {
				continue
			}
			ab, ba := trace.Align(logs[x], logs[y]), trace.Align(logs[y], logs[x])
			if ab.Diverge != ba.Diverge || len(ab.Rows) != len(ba.Rows) {
				t.Errorf("%s, %s: diverge %d (%d rows) one way, %d (%d rows) the other", x, y, ab.Diverge, len(ab.Rows), ba.Diverge, len(ba.Rows))
			}
			for i, r := range ab.Rows {
				if ab.Diverge >= 0 && i < ab.Diverge && !r.Same && r.A != nil && r.B != nil && r.A.Outcome != trace.OutcomeRunning && r.B.Outcome != trace.OutcomeRunning {
					t.Errorf("%s, %s: row %d differs before the divergence at %d", x, y, i, ab.Diverge)
				}
				if r.Same != ba.Rows[i].Same {
					t.Errorf("%s, %s: row %d same %v one way, %v the other", x, y, i, r.Same, ba.Rows[i].Same)
				}
			}
			if ab.Diverge >= 0 && ab.Rows[ab.Diverge].Same {
				t.Errorf("%s, %s: the divergence is on a row that is the same", x, y)
			}
		}
	}
}

// Arguments are compared as JSON values.
func TestCanonicalArgs(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"b":1,"a":"x"}`, `{"a":"x","b":1}`},
		{` { "a" : [1, 2.50, {"z":true,"y":null}] } `, `{"a":[1,2.50,{"y":null,"z":true}]}`},
		{``, `{}`},
		{`{"a":"<&>"}`, `{"a":"<&>"}`},
		{`not json`, `not json`},
		{`{"a":1} {"b":2}`, `{"a":1} {"b":2}`},
	} {
		if got := trace.CanonicalArgs(json.RawMessage(c.in)); got != c.want {
			t.Errorf("CanonicalArgs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
