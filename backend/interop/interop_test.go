package interop_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/interop"
	"github.com/loupe-dev/loupe/backend/trace"
)

var update = flag.Bool("update", false, "rewrite the golden event logs")

// record is a Sink that keeps what it is given.
type record struct {
	starts []interop.Meta
	events []trace.Event
}

func (r *record) Start(m interop.Meta) error { r.starts = append(r.starts, m); return nil }
func (r *record) Event(e trace.Event) error  { r.events = append(r.events, e); return nil }

var fallback = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func convert(t *testing.T, from, text string) (*record, interop.Meta, error) {
	t.Helper()
	rec := &record{}
	meta, err := interop.Convert(from, strings.NewReader(text), rec, fallback)
	return rec, meta, err
}

// logText is a log as the golden files hold it: an event a line.
func logText(meta interop.Meta, evs []trace.Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "source=%s id=%s title=%q workspace=%s model=%s agent=%q created=%s updated=%s\n",
		meta.Source, meta.SourceID, meta.Title, meta.Workspace, meta.Model, meta.Agent,
		meta.Created.Format(time.RFC3339Nano), meta.Updated.Format(time.RFC3339Nano))
	for _, e := range evs {
		fmt.Fprintf(&b, "%d run=%d round=%d %s %s %s\n", e.Seq, e.Run, e.Round, e.Time.Format(time.RFC3339Nano), e.Kind, e.Payload)
	}
	return b.String()
}

// The expected log of each fixture is the spec of its conversion.
func TestGoldenLogs(t *testing.T) {
	for _, c := range []struct{ file, from string }{
		{"claude-code.jsonl", interop.ClaudeCode},
		{"codex.jsonl", interop.Codex},
		{"atif.json", interop.ATIF},
	} {
		t.Run(c.from, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join("testdata", c.file))
			if err != nil {
				t.Fatal(err)
			}
			from, err := interop.Detect(interop.NewReader(bytes.NewReader(in)))
			if err != nil || from != c.from {
				t.Fatalf("Detect = %q, %v; want %q", from, err, c.from)
			}
			rec, meta, err := convert(t, c.from, string(in))
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, rec.events)
			got := logText(meta, rec.events)
			golden := filepath.Join("testdata", c.file+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("the log differs from %s (go test -update to rewrite it after checking):\n%s", golden, got)
			}
		})
	}
}

// checkInvariants checks what every Loupe log keeps: seqs from 1, each
// run opened by a user message and closed by a run_end, each call with
// exactly one result in its run, each answer after its request.
func checkInvariants(t *testing.T, evs []trace.Event) {
	t.Helper()
	open := map[string]bool{}
	run := 0
	inRun := false
	var lastReq int64
	for i, e := range evs {
		if e.Seq != int64(i+1) || e.Time.IsZero() {
			t.Fatalf("event %d: seq %d, time %v", i+1, e.Seq, e.Time)
		}
		switch e.Kind {
		case trace.KindUserMessage:
			if inRun {
				t.Fatalf("event %d: a user message in open run %d", e.Seq, run)
			}
			run++
			inRun = true
		case trace.KindRunEnd:
			if len(open) > 0 {
				t.Fatalf("event %d: run %d ends with calls %v unanswered", e.Seq, run, open)
			}
			inRun = false
		case trace.KindModelRequest:
			lastReq = e.Seq
		case trace.KindModelResponse:
			r, err := trace.Decode[trace.ModelResponse](e)
			if err != nil || r.RequestSeq != lastReq || lastReq != e.Seq-1 {
				t.Fatalf("event %d: answer to request %d, the last request is %d (%v)", e.Seq, r.RequestSeq, lastReq, err)
			}
		case trace.KindToolCall:
			c, _ := trace.Decode[trace.ToolCall](e)
			open[c.CallID] = true
		case trace.KindToolResult:
			r, _ := trace.Decode[trace.ToolResult](e)
			if !open[r.CallID] {
				t.Fatalf("event %d: a result for %q, which is not open", e.Seq, r.CallID)
			}
			delete(open, r.CallID)
		}
		if e.Run != run || !inRun && e.Kind != trace.KindRunEnd {
			t.Fatalf("event %d (%s) is in run %d, open %v; the log is in run %d", e.Seq, e.Kind, e.Run, inRun, run)
		}
	}
	if inRun {
		t.Fatalf("the log ends with run %d open", run)
	}
	if _, err := trace.Replay(evs); err != nil {
		t.Fatalf("the history does not replay: %v", err)
	}
}

func kinds(evs []trace.Event, k trace.Kind) []trace.Event {
	var out []trace.Event
	for _, e := range evs {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

func notices(t *testing.T, evs []trace.Event, code string) []trace.Notice {
	t.Helper()
	var out []trace.Notice
	for _, e := range kinds(evs, trace.KindNotice) {
		n, err := trace.Decode[trace.Notice](e)
		if err != nil {
			t.Fatal(err)
		}
		if n.Code == code {
			out = append(out, n)
		}
	}
	return out
}

// A call the file has no result for gets an interrupted result and a
// notice, and its run ends interrupted.
func TestCallWithNoResult(t *testing.T) {
	in, _ := os.ReadFile("testdata/claude-code.jsonl")
	rec, _, err := convert(t, interop.ClaudeCode, string(in))
	if err != nil {
		t.Fatal(err)
	}
	ns := notices(t, rec.events, interop.CodeNoResult)
	if len(ns) != 1 || !strings.Contains(ns[0].Message, `"toolu_03"`) {
		t.Fatalf("no-result notices = %+v", ns)
	}
	results := kinds(rec.events, trace.KindToolResult)
	last, _ := trace.Decode[trace.ToolResult](results[len(results)-1])
	if last.CallID != "toolu_03" || last.ErrorKind != trace.ErrInterrupted || !last.IsError {
		t.Errorf("last result = %+v", last)
	}
	ends := kinds(rec.events, trace.KindRunEnd)
	end, _ := trace.Decode[trace.RunEnd](ends[len(ends)-1])
	if end.Reason != trace.EndInterrupted {
		t.Errorf("last run ends %q", end.Reason)
	}
}

// What the converter does not map is a notice naming it, with its raw
// JSON, in each format.
func TestUnknownKeptAsNotices(t *testing.T) {
	for _, c := range []struct {
		file, from string
		want       []string // in the notices' messages, each with raw
	}{
		{"claude-code.jsonl", interop.ClaudeCode, []string{`"file-history-snapshot"`}},
		{"codex.jsonl", interop.Codex, []string{`"web_search_call"`, `"telepathy_update"`}},
		{"atif.json", interop.ATIF, []string{"rl_reward"}},
	} {
		in, _ := os.ReadFile(filepath.Join("testdata", c.file))
		rec, _, err := convert(t, c.from, string(in))
		if err != nil {
			t.Fatal(err)
		}
		ns := notices(t, rec.events, interop.CodeUnknown)
		for _, w := range c.want {
			found := false
			for _, n := range ns {
				if strings.Contains(n.Message, w) && len(n.Raw) > 0 && bytes.Contains(n.Raw, []byte(strings.Trim(w, `"`))) {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: no notice names %s with its raw JSON: %+v", c.from, w, ns)
			}
		}
	}
}

func TestBadInput(t *testing.T) {
	claude, _ := os.ReadFile("testdata/claude-code.jsonl")
	codex, _ := os.ReadFile("testdata/codex.jsonl")
	atif, _ := os.ReadFile("testdata/atif.json")
	cut := func(b []byte, n int) string { return string(b[:len(b)-n]) }
	for _, c := range []struct {
		name, from, in string
		want           []string
	}{
		{"claude truncated line", interop.ClaudeCode, cut(claude, 40), []string{"line 11", "cut short"}},
		{"codex truncated line", interop.Codex, cut(codex, 30), []string{"line 17", "cut short"}},
		{"atif truncated", interop.ATIF, cut(atif, 200), []string{"cut short"}},
		{"claude empty", interop.ClaudeCode, "", []string{"no message"}},
		{"codex empty", interop.Codex, "\n\n", []string{"no message"}},
		{"atif empty", interop.ATIF, "", []string{"empty"}},
		{"claude wrong type", interop.ClaudeCode, `{"type":"user","sessionId":"s","message":{"role":"user","content":42}}`, []string{"line 1", "content"}},
		{"claude message not an object", interop.ClaudeCode, `{"type":"assistant","message":"hi"}`, []string{"line 1", `"message" as an object`}},
		{"claude tool_use without id", interop.ClaudeCode, `{"type":"user","message":{"role":"user","content":"hi"}}` + "\n" + `{"type":"assistant","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","name":"Bash","input":{}}]}}`, []string{"line 2", `"id" and "name"`}},
		{"claude not JSON", interop.ClaudeCode, `{"type":"summary","summary":"s"}` + "\nhello there\n", []string{"line 2", "not a line of JSON"}},
		{"claude bad timestamp", interop.ClaudeCode, `{"type":"user","timestamp":"yesterday","message":{"role":"user","content":"hi"}}`, []string{"line 1", "RFC 3339"}},
		{"codex call without id", interop.Codex, `{"timestamp":"2025-10-21T14:00:00Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}"}}`, []string{"line 1", "call_id"}},
		{"codex payload not an object", interop.Codex, `{"timestamp":"2025-10-21T14:00:00Z","type":"response_item","payload":[1]}`, []string{"line 1", "payload"}},
		{"atif newer major", interop.ATIF, `{"schema_version":"ATIF-v2.0","session_id":"s","agent":{"name":"a","version":"1"},"steps":[]}`, []string{"ATIF-v2.0", "v1.4"}},
		{"atif bad source", interop.ATIF, `{"schema_version":"ATIF-v1.4","session_id":"s","agent":{"name":"a","version":"1"},"steps":[{"step_id":1,"source":"robot","message":"hi"}]}`, []string{"/steps/0", "robot"}},
		{"atif arguments not an object", interop.ATIF, `{"schema_version":"ATIF-v1.4","session_id":"s","agent":{"name":"a","version":"1"},"steps":[{"step_id":1,"source":"user","message":"hi"},{"step_id":2,"source":"agent","message":"","tool_calls":[{"tool_call_id":"c","function_name":"f","arguments":"x"}]}]}`, []string{"/steps/1", "arguments"}},
		{"atif no steps", interop.ATIF, `{"schema_version":"ATIF-v1.4","session_id":"s","agent":{"name":"a","version":"1"}}`, []string{`"steps"`}},
		// A file of another format, named wrongly.
		{"codex as claude", interop.ClaudeCode, string(codex), []string{"no message"}},
		{"claude as codex", interop.Codex, string(claude), []string{"line 1"}},
		{"atif as codex", interop.Codex, string(atif), []string{"line 1"}},
		{"claude as atif", interop.ATIF, string(claude), []string{"follows the end"}},
		{"loupe export as atif", interop.ATIF, `{"format":"loupe-session","version":1,"session":{},"events":[],"tool_sets":{}}`, []string{`"schema_version"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := convert(t, c.from, c.in)
			var ie *interop.Error
			if !errors.As(err, &ie) {
				t.Fatalf("err = %v (%T), want an *interop.Error", err, err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not say %q", err, w)
				}
			}
		})
	}
}

func TestDetect(t *testing.T) {
	for _, c := range []struct{ in, want, problem string }{
		{"{\n  \"format\": \"loupe-session\",\n  \"version\": 1\n}", interop.Loupe, ""},
		{`{"format":"loupe-session","version":1}`, interop.Loupe, ""},
		{"\n{\"type\":\"summary\",\"summary\":\"x\",\"leafUuid\":\"u\"}\n", interop.ClaudeCode, ""},
		{`{"type":"user","message":{"role":"user","content":"hi"},"sessionId":"s"}`, interop.ClaudeCode, ""},
		{`{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}`, interop.Codex, ""},
		{`{"id":"x","timestamp":"2025-01-01T00:00:00Z","instructions":null}`, interop.Codex, ""},
		{"{\n\"schema_version\": \"ATIF-v1.4\"}", interop.ATIF, ""},
		{"", "", "empty"},
		{"hello", "", "does not start with a JSON object"},
		{`{"name":"package.json"}`, "", "--from"},
		{"{\n\"name\": \"x\"\n}", "", "neither"},
	} {
		got, err := interop.Detect(interop.NewReader(strings.NewReader(c.in)))
		if got != c.want || (c.problem == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.problem) {
			t.Errorf("Detect(%.30q) = %q, %v; want %q, %q", c.in, got, err, c.want, c.problem)
		}
	}
}
