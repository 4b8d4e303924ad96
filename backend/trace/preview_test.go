package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/loupe-dev/loupe/backend/llm"
)

func lines(n int, line string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%d %s\n", i, line)
	}
	return b.String()
}

func TestPreviewLeavesSmallEventsAlone(t *testing.T) {
	for _, e := range []Event{
		New(KindUserMessage, 1, 0, UserMessage{Text: "hello"}),
		New(KindToolResult, 1, 1, ToolResult{CallID: "c", Name: "read_file", Content: strings.Repeat("x", PreviewBytes)}),
		New(KindToolCall, 1, 1, ToolCall{CallID: "c", Name: "write_file", Args: json.RawMessage(`{"path":"a","content":"short"}`)}),
	} {
		got := Preview(e)
		if !bytes.Equal(got.Payload, e.Payload) || got.Preview != nil {
			t.Errorf("%s: preview changed a small event: %s %v", e.Kind, got.Payload, got.Preview)
		}
	}
}

func TestPreviewCutsLongTexts(t *testing.T) {
	long := lines(400, "a line of a file that was read")
	wide := strings.Repeat("é", 3000) // 6,000 bytes, no newline, 2 bytes a character
	exit := 0
	cases := []struct {
		name string
		e    Event
		// cut are the pointers that must be cut, with the whole text.
		cut map[string]string
	}{
		{"result content", New(KindToolResult, 1, 1, ToolResult{CallID: "c1", Name: "read_file", Content: long, Bytes: len(long), ExitCode: &exit}),
			map[string]string{"/content": long}},
		{"user message", New(KindUserMessage, 1, 0, UserMessage{Text: wide}), map[string]string{"/text": wide}},
		{"response text, thinking and a call's argument", New(KindModelResponse, 1, 1, ModelResponse{Content: long, Thinking: wide,
			ToolCalls: []llm.ToolCall{{ID: "a", Name: "list_dir", Args: json.RawMessage(`{"path":"."}`)}, {ID: "b", Name: "write_file", Args: json.RawMessage(`{"path":"x.go","content":` + quote(long) + `}`)}}}),
			map[string]string{"/content": long, "/thinking": wide, "/tool_calls/1/args/content": long}},
		{"changed files", New(KindToolResult, 1, 1, ToolResult{CallID: "c1", Name: "edit_file", Changes: []FileChange{{Path: "a", Before: &long, After: &wide}}}),
			map[string]string{"/changes/0/before": long, "/changes/0/after": wide}},
		{"an edit's before and after", New(KindEdit, 1, 1, Edit{Target: EditResult, CallID: "c1", Before: json.RawMessage(quote(long)), After: json.RawMessage(quote(wide))}),
			map[string]string{"/before": long, "/after": wide}},
		{"a member whose name needs escaping", New(KindToolCall, 1, 1, ToolCall{CallID: "c", Name: "x", Args: json.RawMessage(`{"a/b~c":` + quote(long) + `}`)}),
			map[string]string{"/args/a~1b~0c": long}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Preview(c.e)
			if len(got.Payload) >= len(c.e.Payload) {
				t.Fatalf("the preview (%d bytes) is not smaller than the payload (%d)", len(got.Payload), len(c.e.Payload))
			}
			var whole, cut any
			if err := json.Unmarshal(c.e.Payload, &whole); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(got.Payload, &cut); err != nil {
				t.Fatalf("the preview is not JSON: %v\n%s", err, got.Payload)
			}
			if len(got.Preview) != len(c.cut) {
				t.Errorf("cut %v, want the %d fields %v", got.Preview, len(c.cut), keys(c.cut))
			}
			for ptr, full := range c.cut {
				m, ok := got.Preview[ptr]
				if !ok {
					t.Errorf("%s is not marked cut (marks: %v)", ptr, got.Preview)
					continue
				}
				if want := (Cut{Bytes: len(full), Lines: strings.Count(full, "\n") + 1}); m != want {
					t.Errorf("%s: mark %+v, want %+v", ptr, m, want)
				}
				s, _ := at(cut, ptr).(string)
				if s == "" || !strings.HasPrefix(full, s) || len(s) > PreviewBytes || strings.Count(s, "\n") > PreviewLines || !utf8.ValidString(s) {
					t.Errorf("%s: the preview keeps %d bytes, %d lines, valid %v: not the start of the text within the limits", ptr, len(s), strings.Count(s, "\n"), utf8.ValidString(s))
				}
				if at(whole, ptr) != full {
					t.Errorf("%s does not name the text in the payload", ptr)
				}
				setAt(cut, ptr, full)
			}
			// With the cut texts put back, the preview is the payload.
			if !equalJSON(t, cut, whole) {
				t.Errorf("the preview changed more than the cut texts:\n got %s\nwant %s", got.Payload, c.e.Payload)
			}
		})
	}
}

func TestPreviewKeepsTheBytesOfWhatItDoesNotCut(t *testing.T) {
	long := lines(600, "x")
	// Spaces, an HTML escape and a number that float64 would change.
	p := json.RawMessage(`{ "call_id" : "c1", "name":"run_command", "content" : ` + quote(long) + `, "bytes": 12345678901234567890, "display": {"command": "a \u003c b"} }`)
	got := Preview(Event{Kind: KindToolResult, Payload: p})
	want := strings.Replace(string(p), quote(long), quote(cutText(long)), 1)
	if string(got.Payload) != want {
		t.Errorf("got  %s\nwant %s", got.Payload, want)
	}
}

func TestPreviewLeavesOutARawResponse(t *testing.T) {
	raw := json.RawMessage(`{"model":"m","message":{"role":"assistant","content":"hi"},"done":true}`)
	e := New(KindModelResponse, 1, 1, ModelResponse{Content: "hi", DoneReason: "stop", Raw: raw})
	got := Preview(e)
	var p ModelResponse
	if err := json.Unmarshal(got.Payload, &p); err != nil {
		t.Fatal(err)
	}
	if (p.Raw != nil && string(p.Raw) != "null") || p.Content != "hi" || p.DoneReason != "stop" {
		t.Errorf("preview %s", got.Payload)
	}
	if m := got.Preview["/raw"]; m.Bytes != len(raw) || len(got.Preview) != 1 {
		t.Errorf("marks %v, want /raw of %d bytes", got.Preview, len(raw))
	}
	// A preview is its own preview.
	if again := Preview(got); !bytes.Equal(again.Payload, got.Payload) || len(again.Preview) != 1 {
		t.Errorf("preview of a preview: %s %v", again.Payload, again.Preview)
	}
	// A response without raw has nothing to leave out.
	bare := New(KindModelResponse, 1, 1, ModelResponse{Content: "hi"})
	if got := Preview(bare); got.Preview != nil || !bytes.Equal(got.Payload, bare.Payload) {
		t.Errorf("bare response: %s %v", got.Payload, got.Preview)
	}
}

func TestPreviewLeavesOutWhatOldRequestsRepeat(t *testing.T) {
	tools := []llm.ToolSpec{{Name: "read_file", Description: "Reads a file."}, {Name: "list_dir", Description: "Lists a folder."}}
	old := New(KindModelRequest, 1, 3, ModelRequest{Model: "m", System: "be brief", Tools: tools, HistorySeqs: []int64{1, 3, 4, 5}, MessageCount: 5})
	got := Preview(old)
	var p ModelRequest
	if err := json.Unmarshal(got.Payload, &p); err != nil {
		t.Fatal(err)
	}
	if p.Tools != nil || p.HistorySeqs != nil || strings.Join(p.ToolNames, ",") != "read_file,list_dir" || p.System != "be brief" || p.MessageCount != 5 {
		t.Errorf("preview of an old request: %s", got.Payload)
	}
	var whole map[string]json.RawMessage
	json.Unmarshal(old.Payload, &whole)
	if got.Preview["/tools"].Bytes != len(whole["tools"]) || got.Preview["/history_seqs"].Bytes != len(whole["history_seqs"]) || len(got.Preview) != 2 {
		t.Errorf("marks %v", got.Preview)
	}
	// A request as they are written now has nothing of the kind.
	now := New(KindModelRequest, 1, 3, ModelRequest{Model: "m", System: `use the "tools"`, ToolSet: 1, ToolNames: []string{"read_file"}, HistoryBase: 2, HistoryAdded: []int64{3}})
	if got := Preview(now); got.Preview != nil || !bytes.Equal(got.Payload, now.Payload) {
		t.Errorf("a request of now was changed: %s %v", got.Payload, got.Preview)
	}
}

func TestPreviewReturnsAPayloadItCannotReadWhole(t *testing.T) {
	long := strings.Repeat("x", 3000)
	for _, p := range []string{
		`{"content":"` + long,
		`{"content":"` + long + `"`,
		`{"content":"` + long + `",}`,
		`{"content" "` + long + `"}`,
		`["` + long + `" "b"]`,
		`{"content":"` + long + `"} x`,
		`{"a":` + strings.Repeat("[", maxDepth+2) + `"` + long + `"` + strings.Repeat("]", maxDepth+2) + `}`,
	} {
		e := Event{Kind: KindToolResult, Payload: json.RawMessage(p)}
		if got := Preview(e); !bytes.Equal(got.Payload, e.Payload) || got.Preview != nil {
			t.Errorf("a broken payload (%.40s…) was changed: %v", p, got.Preview)
		}
	}
}

// Any JSON, however it is written: nested lists, escapes in names and
// strings, white space everywhere. What is cut is the long strings, found
// by their pointers; the rest is the same value.
func TestPreviewWalksAnyJSON(t *testing.T) {
	long := lines(300, `a "quoted" line with a \ backslash and é`)
	q := quote(long)
	p := "{ \"a\" : [ 1 , -2.5e3 , true , null , [ [ " + q + " ] ] ] ,\n\t\"k\\\"ey\\u00e9\" : { \"x/y\" : " + q + " } , \"short\":\"\\\"\" , \"raw\" : " + q + " }"
	var v any
	if err := json.Unmarshal([]byte(p), &v); err != nil {
		t.Fatalf("the test's JSON: %v\n%s", err, p)
	}
	got := Preview(Event{Kind: KindToolCall, Payload: json.RawMessage(p)})
	want := []string{"/a/4/0/0", "/k\"eyé/x~1y", "/raw"}
	if len(got.Preview) != len(want) {
		t.Fatalf("marks %v, want %v", got.Preview, want)
	}
	var cut any
	if err := json.Unmarshal(got.Payload, &cut); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, got.Payload)
	}
	for _, ptr := range want {
		s, _ := at(cut, ptr).(string)
		if got.Preview[ptr].Bytes != len(long) || s != cutText(long) {
			t.Errorf("%s: mark %+v, text %q", ptr, got.Preview[ptr], s)
		}
		setAt(cut, ptr, long)
	}
	if !equalJSON(t, cut, v) {
		t.Errorf("the preview changed more than the long strings:\n%s", got.Payload)
	}
	// A response's raw goes whole, with what it holds.
	resp := Preview(Event{Kind: KindModelResponse, Payload: json.RawMessage(`{"content":"hi","raw":{"message":{"content":` + q + `}}}`)})
	if string(resp.Payload) != `{"content":"hi","raw":null}` || len(resp.Preview) != 1 || resp.Preview["/raw"].Bytes != len(`{"message":{"content":`+q+`}}`) {
		t.Errorf("raw: %s %v", resp.Payload, resp.Preview)
	}
}

func TestCutText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{lines(40, "ab"), lines(16, "ab")},
		{strings.Repeat("a", 5000), strings.Repeat("a", PreviewBytes)},
		{"a" + strings.Repeat("é", 2000), "a" + strings.Repeat("é", (PreviewBytes-1)/2)},
	} {
		if got := cutText(c.in); got != c.want {
			t.Errorf("cutText(%d bytes) = %d bytes, want %d", len(c.in), len(got), len(c.want))
		}
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// at and setAt follow a JSON Pointer into a decoded value.
func at(v any, ptr string) any {
	for _, tok := range strings.Split(ptr, "/")[1:] {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			var i int
			fmt.Sscan(tok, &i)
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func setAt(v any, ptr string, val any) {
	i := strings.LastIndexByte(ptr, '/')
	parent, tok := at(v, ptr[:i]), strings.NewReplacer("~1", "/", "~0", "~").Replace(ptr[i+1:])
	switch x := parent.(type) {
	case map[string]any:
		x[tok] = val
	case []any:
		var n int
		fmt.Sscan(tok, &n)
		x[n] = val
	}
}

func equalJSON(t *testing.T, a, b any) bool {
	t.Helper()
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// BenchmarkPreview previews the events of a round of a long session: a
// result of a few KB (cut) and a response (its raw left out).
func BenchmarkPreview(b *testing.B) {
	content := lines(120, "\treturn n*7 + len(\"parse.go\") // a line of Go")
	result := New(KindToolResult, 1, 1, ToolResult{CallID: "call_1", Name: "read_file", Content: content, Bytes: len(content)})
	raw := json.RawMessage(`{"model":"m","created_at":"2026-01-02T03:04:05Z","message":{"role":"assistant","content":"","tool_calls":[{"id":"call_1","function":{"index":0,"name":"read_file","arguments":{"path":"parse.go"}}}]},"done":true,"done_reason":"stop","total_duration":5000000,"load_duration":1000000,"prompt_eval_count":1576,"prompt_eval_duration":2000000,"eval_count":1,"eval_duration":1000000}`)
	response := New(KindModelResponse, 1, 1, ModelResponse{ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "read_file", Args: json.RawMessage(`{"path":"parse.go"}`)}}, DoneReason: "stop", Raw: raw})
	b.ReportAllocs()
	for b.Loop() {
		Preview(result)
		Preview(response)
	}
}

func TestUnquoteDecodesAsEncodingJSON(t *testing.T) {
	for _, q := range []string{
		`""`, `"plain"`, `"a\"b\\c\/d"`, `"\b\f\n\r\t"`, `"\u0041\u00e9\u20ac"`, `"\ud83d\ude00 smile"`,
		`"\u003c\u003e\u0026"`, `"é ü 日本"`, `"\ud83d alone"`, `"\ude00 low alone"`, `"\ud83d\u0041"`,
		`"\uD83D\uDE00"`, `"end \ud83d"`, `"\u0000"`,
	} {
		var want string
		if err := json.Unmarshal([]byte(q), &want); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if got, ok := unquote([]byte(q)); !ok || got != want {
			t.Errorf("unquote(%s) = %q, %v; encoding/json says %q", q, got, ok, want)
		}
	}
	for _, q := range []string{`"\x"`, `"\u12"`, `"\u12g4"`, `"a\"`, "\"\xff\""} {
		if _, ok := unquote([]byte(q)); ok {
			t.Errorf("unquote(%s) took an escape JSON does not have", q)
		}
	}
}
