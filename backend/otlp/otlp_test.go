package otlp_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/loupe-dev/loupe/backend/otlp"
	"github.com/loupe-dev/loupe/backend/trace"
)

// The recorded sessions: every golden event log the session scenarios
// write (approvals, denials, parallel calls, pauses and edits,
// compaction, cut streams, errors, caps).
const recordings = "../session/testdata/golden"

var base = time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)

// loadRecordings reads each golden log and gives its events the times a
// log has (the golden files leave them out) and durations: one event every 1.5 s, so
// each span's start and end can be told from its neighbours'.
func loadRecordings(t *testing.T) map[string][]trace.Event {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(recordings, "*.json"))
	if err != nil || len(files) < 10 {
		t.Fatalf("recordings: %v (%d files)", err, len(files))
	}
	out := map[string][]trace.Event{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// The golden files redact durations: put back a number, as the
		// log has one.
		b = bytes.ReplaceAll(b, []byte(`"\u003cduration\u003e"`), []byte("1234567"))
		var evs []trace.Event
		if err := json.Unmarshal(b, &evs); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for i := range evs {
			evs[i].SessionID = "session-1"
			evs[i].Time = at(evs[i].Seq)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = evs
	}
	return out
}

func at(seq int64) time.Time { return base.Add(time.Duration(seq) * 1500 * time.Millisecond) }

func session(name string) otlp.Session {
	return otlp.Session{ID: "session-1", Title: "Recorded " + name, Workspace: "/home/me/project", Model: "scripted"}
}

// export writes the log as the file and reads the file back with pdata's
// own JSON reader, one request per line.
func export(t *testing.T, name string, evs []trace.Event, opt otlp.Options) ([]byte, []ptrace.Traces) {
	t.Helper()
	ts, err := otlp.Build(session(name), evs, opt)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var b bytes.Buffer
	if err := otlp.WriteJSONL(&b, ts); err != nil {
		t.Fatal(err)
	}
	var back []ptrace.Traces
	sc := bufio.NewScanner(bytes.NewReader(b.Bytes()))
	sc.Buffer(nil, 64<<20)
	var u ptrace.JSONUnmarshaler
	for sc.Scan() {
		td, err := u.UnmarshalTraces(sc.Bytes())
		if err != nil {
			t.Fatalf("%s: a line is not an OTLP request: %v", name, err)
		}
		back = append(back, td)
	}
	return b.Bytes(), back
}

type span struct {
	ptrace.Span
	attrs map[string]any
}

func spans(td ptrace.Traces) []span {
	var out []span
	rss := td.ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		sss := rss.At(i).ScopeSpans()
		for j := 0; j < sss.Len(); j++ {
			ss := sss.At(j).Spans()
			for k := 0; k < ss.Len(); k++ {
				out = append(out, span{ss.At(k), ss.At(k).Attributes().AsRaw()})
			}
		}
	}
	return out
}

func ts(t time.Time) pcommon.Timestamp { return pcommon.NewTimestampFromTime(t) }

// The tree of every recording: a trace per run, its invoke_agent span from
// the run's first event to its run_end, a chat span per request and an
// execute_tool span per call under it, each from the event that began it
// to the one that ended it, with the semantic conventions' attributes
// taken from the log.
func TestTheSpanTreeOfEveryRecording(t *testing.T) {
	for name, evs := range loadRecordings(t) {
		t.Run(name, func(t *testing.T) {
			_, back := export(t, name, evs, otlp.Options{})
			runs := map[int][]trace.Event{}
			var order []int
			for _, e := range evs {
				if _, ok := runs[e.Run]; !ok {
					order = append(order, e.Run)
				}
				runs[e.Run] = append(runs[e.Run], e)
			}
			if len(back) != len(order) {
				t.Fatalf("%d lines for %d runs", len(back), len(order))
			}
			seen := map[pcommon.SpanID]bool{}
			for i, run := range order {
				checkRun(t, back[i], run, runs[run], seen)
			}
		})
	}
}

func checkRun(t *testing.T, td ptrace.Traces, run int, evs []trace.Event, seen map[pcommon.SpanID]bool) {
	t.Helper()
	all := spans(td)
	if res := td.ResourceSpans().At(0).Resource().Attributes().AsRaw(); res["service.name"] != "loupe" || res["gen_ai.conversation.id"] != "session-1" {
		t.Errorf("run %d: resource %v", run, res)
	}
	root := all[0]
	if root.Name() != "invoke_agent loupe" || !root.ParentSpanID().IsEmpty() || root.attrs["gen_ai.operation.name"] != "invoke_agent" || root.attrs["loupe.run"] != int64(run) {
		t.Fatalf("run %d: first span %q parent %v attrs %v", run, root.Name(), root.ParentSpanID(), root.attrs)
	}
	if root.StartTimestamp() != ts(evs[0].Time) || root.EndTimestamp() != ts(evs[len(evs)-1].Time) {
		t.Errorf("run %d: root from %v to %v; the run's events from %v to %v", run, root.StartTimestamp(), root.EndTimestamp(), evs[0].Time, evs[len(evs)-1].Time)
	}
	byID := map[pcommon.SpanID]span{}
	for _, s := range all {
		if seen[s.SpanID()] {
			t.Errorf("run %d: span id %v twice", run, s.SpanID())
		}
		seen[s.SpanID()] = true
		byID[s.SpanID()] = s
		if s.TraceID() != otlp.TraceID("session-1", run) {
			t.Errorf("run %d: span %q in trace %v", run, s.Name(), s.TraceID())
		}
		if s.SpanID() != root.SpanID() && s.ParentSpanID() != root.SpanID() {
			t.Errorf("run %d: span %q's parent is not the run's span", run, s.Name())
		}
		if s.EndTimestamp() < s.StartTimestamp() {
			t.Errorf("run %d: span %q ends before it starts", run, s.Name())
		}
	}
	if len(byID) != len(all) {
		t.Fatal("span ids repeat")
	}
	times := map[int64]time.Time{}
	for _, e := range evs {
		times[e.Seq] = e.Time
	}
	spanOf := func(seq int64) span {
		s, ok := byID[otlp.SpanID("session-1", seq)]
		if !ok {
			t.Fatalf("run %d: no span for event %d", run, seq)
		}
		return s
	}
	want := 1
	calls := map[string]span{}
	for _, e := range evs {
		switch e.Kind {
		case trace.KindModelRequest:
			want++
			p, _ := trace.Decode[trace.ModelRequest](e)
			s := spanOf(e.Seq)
			if s.Name() != "chat "+p.Model || s.Kind() != ptrace.SpanKindClient || s.attrs["gen_ai.operation.name"] != "chat" || s.attrs["gen_ai.request.model"] != p.Model || s.StartTimestamp() != ts(e.Time) {
				t.Errorf("run %d: request %d's span: %q %v %v", run, e.Seq, s.Name(), s.attrs, s.StartTimestamp())
			}
		case trace.KindModelResponse:
			p, _ := trace.Decode[trace.ModelResponse](e)
			s := spanOf(p.RequestSeq)
			if s.EndTimestamp() != ts(e.Time) {
				t.Errorf("run %d: request %d's span ends at %v, its answer at %v", run, p.RequestSeq, s.EndTimestamp().AsTime(), e.Time)
			}
			if s.attrs["gen_ai.usage.input_tokens"] != int64(p.Metrics.PromptEvalCount) || s.attrs["gen_ai.usage.output_tokens"] != int64(p.Metrics.EvalCount) || s.attrs["ollama.eval_duration_ns"] != int64(p.Metrics.EvalDuration) {
				t.Errorf("run %d: request %d's usage %v, the answer's metrics %+v", run, p.RequestSeq, s.attrs, p.Metrics)
			}
			if p.DoneReason != "" && !slices.Equal(s.attrs["gen_ai.response.finish_reasons"].([]any), []any{p.DoneReason}) {
				t.Errorf("run %d: finish reasons %v, want [%s]", run, s.attrs["gen_ai.response.finish_reasons"], p.DoneReason)
			}
		case trace.KindToolCall:
			want++
			p, _ := trace.Decode[trace.ToolCall](e)
			s := spanOf(e.Seq)
			if s.Name() != "execute_tool "+p.Name || s.attrs["gen_ai.operation.name"] != "execute_tool" || s.attrs["gen_ai.tool.name"] != p.Name || s.attrs["gen_ai.tool.call.id"] != p.CallID || s.StartTimestamp() != ts(e.Time) {
				t.Errorf("run %d: call %s's span: %q %v", run, p.CallID, s.Name(), s.attrs)
			}
			if string(p.Args) != s.attrs["gen_ai.tool.call.arguments"] {
				t.Errorf("run %d: call %s's arguments %v, want %s", run, p.CallID, s.attrs["gen_ai.tool.call.arguments"], p.Args)
			}
			calls[p.CallID] = s
		case trace.KindToolResult:
			p, _ := trace.Decode[trace.ToolResult](e)
			s, ok := calls[p.CallID]
			if !ok {
				continue
			}
			outcome := "ok"
			if p.ErrorKind != "" {
				outcome = p.ErrorKind
			} else if p.IsError {
				outcome = trace.ErrFailed
			}
			if s.EndTimestamp() != ts(e.Time) || s.attrs["loupe.tool.outcome"] != outcome || s.attrs["gen_ai.tool.call.result"] != p.Content {
				t.Errorf("run %d: call %s ends %v (result at %v), outcome %v want %s", run, p.CallID, s.EndTimestamp().AsTime(), e.Time, s.attrs["loupe.tool.outcome"], outcome)
			}
			if p.IsError != (s.Status().Code() == ptrace.StatusCodeError) {
				t.Errorf("run %d: call %s is_error %v, status %v", run, p.CallID, p.IsError, s.Status().Code())
			}
		case trace.KindPermission:
			p, _ := trace.Decode[trace.Permission](e)
			on := root
			if s, ok := calls[p.CallID]; ok {
				on = s
			}
			if !hasEvent(on.Span, "loupe.permission."+p.Decision, e) {
				t.Errorf("run %d: permission %d (%s %s) is not an event of %q", run, e.Seq, p.Decision, p.CallID, on.Name())
			}
		case trace.KindCheckpoint:
			p, _ := trace.Decode[trace.Checkpoint](e)
			on := root
			if s, ok := calls[p.CallID]; ok {
				on = s
			}
			name := map[string]string{trace.Paused: "loupe.pause", trace.Resumed: "loupe.resume"}[p.State]
			if !hasEvent(on.Span, name, e) {
				t.Errorf("run %d: checkpoint %d (%s %s) is not an event of %q", run, e.Seq, p.State, p.Point, on.Name())
			}
		case trace.KindRunEnd:
			p, _ := trace.Decode[trace.RunEnd](e)
			if root.attrs["loupe.run.end_reason"] != p.Reason || root.EndTimestamp() < ts(e.Time) {
				t.Errorf("run %d: end reason %v want %s", run, root.attrs["loupe.run.end_reason"], p.Reason)
			}
		case trace.KindUserMessage:
			p, _ := trace.Decode[trace.UserMessage](e)
			if !strings.Contains(root.attrs["gen_ai.input.messages"].(string), mustJSON(p.Text)) {
				t.Errorf("run %d: the user's message is not the run's input: %v", run, root.attrs["gen_ai.input.messages"])
			}
		}
	}
	if len(all) != want {
		t.Errorf("run %d: %d spans, want %d (the run's, one per request and one per call)", run, len(all), want)
	}
}

func hasEvent(s ptrace.Span, name string, e trace.Event) bool {
	for i := 0; i < s.Events().Len(); i++ {
		ev := s.Events().At(i)
		if ev.Name() == name && ev.Timestamp() == ts(e.Time) {
			if seq, ok := ev.Attributes().Get("loupe.seq"); ok && seq.Int() == e.Seq {
				return true
			}
		}
	}
	return false
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return strings.Trim(string(b), `"`)
}

// The same log gives the same file, byte for byte: ids come from the
// session and the seqs, times from the log.
func TestExportingTwiceGivesTheSameBytes(t *testing.T) {
	for name, evs := range loadRecordings(t) {
		a, _ := export(t, name, evs, otlp.Options{})
		b, _ := export(t, name, slices.Clone(evs), otlp.Options{})
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two exports differ", name)
		}
	}
}

// A chat span's input is the conversation the request sent, rebuilt by the
// projection that built the request: a later request carries the earlier
// answer and the tool's result.
func TestAChatSpanHoldsTheConversationItSent(t *testing.T) {
	evs := loadRecordings(t)["single_call"]
	_, back := export(t, "single_call", evs, otlp.Options{})
	var chats []span
	for _, s := range spans(back[0]) {
		if strings.HasPrefix(s.Name(), "chat ") {
			chats = append(chats, s)
		}
	}
	if len(chats) != 2 {
		t.Fatalf("%d chat spans", len(chats))
	}
	type msg struct {
		Role  string `json:"role"`
		Parts []struct {
			Type string `json:"type"`
			ID   string `json:"id"`
		} `json:"parts"`
	}
	var first, second []msg
	json.Unmarshal([]byte(chats[0].attrs["gen_ai.input.messages"].(string)), &first)
	json.Unmarshal([]byte(chats[1].attrs["gen_ai.input.messages"].(string)), &second)
	roles := func(ms []msg) (out []string) {
		for _, m := range ms {
			out = append(out, m.Role)
		}
		return out
	}
	if !slices.Equal(roles(first), []string{"user"}) || !slices.Equal(roles(second), []string{"user", "assistant", "tool"}) {
		t.Fatalf("inputs %v then %v", roles(first), roles(second))
	}
	if second[1].Parts[0].Type != "tool_call" || second[2].Parts[0].Type != "tool_call_response" || second[1].Parts[0].ID != second[2].Parts[0].ID {
		t.Errorf("the call and its result: %+v %+v", second[1], second[2])
	}
	if !strings.Contains(chats[0].attrs["gen_ai.system_instructions"].(string), "coding agent") {
		t.Errorf("system instructions %v", chats[0].attrs["gen_ai.system_instructions"])
	}
}

// Attributes that hold what a person, the model or a tool wrote.
var contentKeys = []string{
	"gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions",
	"gen_ai.tool.call.arguments", "gen_ai.tool.call.result", "loupe.session.title", "loupe.workspace",
	"loupe.edit.before", "loupe.edit.after", "loupe.compaction.summary", "loupe.permission.summary", "loupe.restore.paths",
}

// --no-content: the same spans, and nothing anyone wrote in them.
func TestNoContentLeavesOutEverythingWritten(t *testing.T) {
	for name, evs := range loadRecordings(t) {
		raw, back := export(t, name, evs, otlp.Options{NoContent: true})
		_, full := export(t, name, evs, otlp.Options{})
		var texts []string
		for _, e := range evs {
			switch e.Kind {
			case trace.KindUserMessage:
				p, _ := trace.Decode[trace.UserMessage](e)
				texts = append(texts, p.Text)
			case trace.KindModelResponse:
				p, _ := trace.Decode[trace.ModelResponse](e)
				texts = append(texts, p.Content, p.Thinking)
			case trace.KindToolResult:
				p, _ := trace.Decode[trace.ToolResult](e)
				texts = append(texts, p.Content)
			case trace.KindToolCall:
				p, _ := trace.Decode[trace.ToolCall](e)
				texts = append(texts, string(p.Args))
			case trace.KindModelRequest:
				p, _ := trace.Decode[trace.ModelRequest](e)
				texts = append(texts, p.System)
			}
		}
		texts = append(texts, "Recorded "+name, "/home/me/project")
		for _, s := range texts {
			// Short texts ("ok", "{}") can be a name or a number too.
			if len(s) >= 12 && bytes.Contains(raw, []byte(mustJSON(s))) {
				t.Errorf("%s: --no-content output holds %q", name, s)
			}
		}
		for i := range back {
			a, b := spans(back[i]), spans(full[i])
			if len(a) != len(b) {
				t.Fatalf("%s: %d spans without content, %d with", name, len(a), len(b))
			}
			for j, s := range a {
				if s.Name() != b[j].Name() || s.StartTimestamp() != b[j].StartTimestamp() || s.Events().Len() != b[j].Events().Len() {
					t.Errorf("%s: span %q differs from its content-ful twin", name, s.Name())
				}
				for _, k := range contentKeys {
					if _, ok := s.attrs[k]; ok {
						t.Errorf("%s: span %q has %s", name, s.Name(), k)
					}
				}
				for e := 0; e < s.Events().Len(); e++ {
					for _, k := range contentKeys {
						if _, ok := s.Events().At(e).Attributes().Get(k); ok {
							t.Errorf("%s: an event of %q has %s", name, s.Name(), k)
						}
					}
				}
			}
			res := back[i].ResourceSpans().At(0).Resource().Attributes()
			for _, k := range contentKeys {
				if _, ok := res.Get(k); ok {
					t.Errorf("%s: the resource has %s", name, k)
				}
			}
		}
	}
}

// Exporting one run gives that run's trace as the whole export has it
// (what the automatic push sends when a run ends).
func TestOneRunIsItsTraceOfTheWholeSession(t *testing.T) {
	for name, evs := range loadRecordings(t) {
		whole, err := otlp.Build(session(name), evs, otlp.Options{})
		if err != nil {
			t.Fatal(err)
		}
		last := evs[len(evs)-1].Run
		one, err := otlp.Build(session(name), evs, otlp.Options{Run: last})
		if err != nil {
			t.Fatal(err)
		}
		var m ptrace.JSONMarshaler
		a, _ := m.MarshalTraces(whole[len(whole)-1])
		if len(one) != 1 {
			t.Fatalf("%s: %d traces for run %d", name, len(one), last)
		}
		b, _ := m.MarshalTraces(one[0])
		if !bytes.Equal(a, b) {
			t.Errorf("%s: run %d alone differs from the whole export's", name, last)
		}
	}
}
