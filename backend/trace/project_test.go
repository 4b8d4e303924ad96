package trace

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/loupe-dev/loupe/backend/llm"
)

func seqd(events ...Event) []Event {
	for i := range events {
		events[i].Seq = int64(i + 1)
	}
	return events
}

func roles(msgs []llm.Message) []string {
	out := []string{}
	for _, m := range msgs {
		out = append(out, m.Role+":"+m.Content)
	}
	return out
}

func replay(t *testing.T, evs []Event) *History {
	t.Helper()
	h, err := Replay(evs)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestHistoryProjectsTheConversation(t *testing.T) {
	call := llm.ToolCall{ID: "c1", Name: "list_dir", Args: json.RawMessage(`{"path":"."}`)}
	evs := seqd(
		New(KindUserMessage, 1, 0, UserMessage{Text: "hi"}),
		New(KindModelRequest, 1, 1, ModelRequest{}),
		New(KindModelResponse, 1, 1, ModelResponse{Content: "looking", ToolCalls: []llm.ToolCall{call}}),
		New(KindToolCall, 1, 1, ToolCall{CallID: "c1"}),
		New(KindPermission, 1, 1, Permission{CallID: "c1", Decision: Allow}),
		New(KindToolResult, 1, 1, ToolResult{CallID: "c1", Name: "list_dir", Content: "a\n"}),
		New(KindModelRequest, 1, 2, ModelRequest{}),
		New(KindModelResponse, 1, 2, ModelResponse{Content: "half", ToolCalls: []llm.ToolCall{{ID: "c2", Name: "write_file"}}, Incomplete: true}),
		New(KindModelResponse, 1, 3, ModelResponse{Incomplete: true}),
	)
	h := replay(t, evs)
	msgs := h.Messages("sys")
	want := []string{"system:sys", "user:hi", "assistant:looking", "tool:a\n", "assistant:half"}
	if got := roles(msgs); !slices.Equal(got, want) {
		t.Fatalf("messages = %q, want %q", got, want)
	}
	if msgs[2].ToolCalls[0].ID != "c1" || msgs[3].ToolCallID != "c1" || msgs[3].ToolName != "list_dir" {
		t.Fatalf("call and result not paired: %+v %+v", msgs[2], msgs[3])
	}
	if len(msgs[4].ToolCalls) != 0 {
		t.Fatal("an incomplete message's calls entered the history")
	}
	if got := roles(h.Messages("")); !slices.Equal(got, want[1:]) {
		t.Fatalf("without a system prompt: %q", got)
	}
	// The next request extends the one of event 7 with what came after
	// it, the empty answer included (it is part of the log's history,
	// only not sent).
	base, added := h.Delta()
	if base != 7 || !slices.Equal(added, []int64{8, 9}) {
		t.Fatalf("delta = %d %v, want 7 [8 9]", base, added)
	}
	if h.Len() != 5 || !h.Has(6) || h.Has(9) || h.Has(4) {
		t.Fatalf("Len %d, Has(6) %v, Has(9) %v, Has(4) %v", h.Len(), h.Has(6), h.Has(9), h.Has(4))
	}
	src := h.Sourced()
	if len(src) != 4 || src[0].Seq != 1 || src[1].Seq != 3 || src[2].Seq != 6 || src[3].Seq != 8 {
		t.Fatalf("sourced = %+v", src)
	}
}

func TestHistoryAppliesEditsFromThenOn(t *testing.T) {
	calls := []llm.ToolCall{{ID: "c1", Name: "read_file", Args: json.RawMessage(`{"path":"a"}`)}}
	resp := ModelResponse{Content: "reading", ToolCalls: calls}
	h := NewHistory()
	h.AddUser(1, UserMessage{Text: "hi"})
	h.AddResponse(2, resp)
	h.AddResult(3, ToolResult{CallID: "c1", Name: "read_file", Content: "old"})
	for _, ed := range []Edit{
		{Target: EditMessage, Seq: 1, After: json.RawMessage(`"hello"`)},
		{Target: EditArgs, CallID: "c1", After: json.RawMessage(`{"path":"b"}`)},
		{Target: EditResult, CallID: "c1", After: json.RawMessage(`"new"`)},
		{Target: EditSystem, After: json.RawMessage(`"not history"`)},
		{Target: EditMessage, Seq: 99, After: json.RawMessage(`"nothing there"`)},
	} {
		if err := h.ApplyEdit(ed); err != nil {
			t.Fatal(err)
		}
	}
	msgs := h.Messages("")
	if msgs[0].Content != "hello" || string(msgs[1].ToolCalls[0].Args) != `{"path":"b"}` || msgs[2].Content != "new" {
		t.Fatalf("edited history = %+v", msgs)
	}
	if string(calls[0].Args) != `{"path":"a"}` || string(resp.ToolCalls[0].Args) != `{"path":"a"}` {
		t.Fatal("an args edit changed the answer's own calls")
	}
	if c, ok := h.ResultContent("c1"); !ok || c != "new" {
		t.Fatalf("ResultContent = %q %v", c, ok)
	}
	if err := h.ApplyEdit(Edit{Target: EditResult, CallID: "c1", After: json.RawMessage(`{}`)}); err == nil {
		t.Fatal("a result edit that is not a string was applied")
	}
}

// The sizes kept as messages come and change are those of the messages
// as they are sent: the whole conversation's JSON, and of it the tool
// results and user messages added since the last request (the new
// observations); the model's answers count as history.
func TestPartBytesKeptAsItGrows(t *testing.T) {
	h := NewHistory()
	check := func(step string, fresh ...int) {
		t.Helper()
		total, want := 0, 0
		for i, m := range h.Messages("") {
			b, _ := json.Marshal(m)
			total += len(b)
			if slices.Contains(fresh, i) {
				want += len(b)
			}
		}
		hist, got := h.PartBytes()
		if hist+got != total || got != want {
			t.Fatalf("%s: history %d + new %d bytes, want %d of %d new", step, hist, got, want, total)
		}
	}
	check("empty")
	h.AddUser(1, UserMessage{Text: "hi \u2603 <b>"})
	check("user", 0)
	h.Requested(2)
	check("requested")
	h.AddResponse(3, ModelResponse{Content: "x", Thinking: "hmm", ToolCalls: []llm.ToolCall{{ID: "c", Name: "read_file", Args: json.RawMessage(`{ "path" : "a" }`)}}})
	check("answer")
	h.AddResult(4, ToolResult{CallID: "c", Name: "read_file", Content: "a & b"})
	check("result", 2)
	if err := h.ApplyEdit(Edit{Target: EditResult, CallID: "c", After: json.RawMessage(`"much longer than before"`)}); err != nil {
		t.Fatal(err)
	}
	check("edited", 2)
}

func TestRebuildFollowsTheHistoryRecord(t *testing.T) {
	tools := []llm.ToolSpec{{Name: "list_dir"}}
	call := llm.ToolCall{ID: "c1", Name: "list_dir", Args: json.RawMessage(`{}`)}
	evs := seqd(
		New(KindUserMessage, 1, 0, UserMessage{Text: "hi"}),
		New(KindModelRequest, 1, 1, ModelRequest{Model: "m", System: "s", ToolSet: 1, HistoryAdded: []int64{1}}),
		New(KindModelResponse, 1, 1, ModelResponse{ToolCalls: []llm.ToolCall{call}}),
		New(KindToolResult, 1, 1, ToolResult{CallID: "c1", Content: "a"}),
		New(KindEdit, 1, 1, Edit{Target: EditResult, CallID: "c1", After: json.RawMessage(`"b"`)}),
		New(KindModelRequest, 1, 2, ModelRequest{Model: "m", System: "s", ToolSet: 1, HistoryBase: 2, HistoryAdded: []int64{3, 4}}),
	)
	if got, err := RequestHistory(evs, 5); err != nil || !slices.Equal(got, []int64{1, 3, 4}) {
		t.Fatalf("history of request 6 = %v, %v", got, err)
	}
	req, err := Rebuild(evs, 5, tools)
	if err != nil {
		t.Fatal(err)
	}
	if got := roles(req.Messages); !slices.Equal(got, []string{"system:s", "user:hi", "assistant:", "tool:b"}) || req.Model != "m" || len(req.Tools) != 1 {
		t.Fatalf("rebuilt = %q %+v", got, req)
	}

	// A log written before history deltas lists every seq, and the tools.
	legacy := slices.Clone(evs)
	legacy[5] = New(KindModelRequest, 1, 2, ModelRequest{Model: "m", Tools: []llm.ToolSpec{{Name: "old"}}, HistorySeqs: []int64{1, 3, 4}})
	legacy[5].Seq = 6
	if req, err := Rebuild(legacy, 5, nil); err != nil || len(req.Tools) != 1 || req.Tools[0].Name != "old" || len(req.Messages) != 3 {
		t.Fatalf("legacy request rebuilt as %+v, %v", req, err)
	}
	// A new request may extend an old one.
	mixed := append(slices.Clone(legacy), New(KindModelRequest, 1, 3, ModelRequest{Model: "m", HistoryBase: 6, HistoryAdded: []int64{}}))
	mixed[6].Seq = 7
	if got, err := RequestHistory(mixed, 6); err != nil || !slices.Equal(got, []int64{1, 3, 4}) {
		t.Fatalf("history extending a legacy request = %v, %v", got, err)
	}

	// A record that does not match its log is refused.
	for name, mr := range map[string]ModelRequest{
		"missing seq":        {HistoryBase: 2, HistoryAdded: []int64{3}},
		"base not a request": {HistoryBase: 3, HistoryAdded: []int64{4}},
	} {
		bad := slices.Clone(evs)
		bad[5] = New(KindModelRequest, 1, 2, mr)
		bad[5].Seq = 6
		if _, err := Rebuild(bad, 5, tools); err == nil {
			t.Errorf("%s: rebuilt a request whose history does not match the log", name)
		} else if name == "missing seq" && !errors.Is(err, ErrHistoryMismatch) {
			t.Errorf("%s: %v, want ErrHistoryMismatch", name, err)
		}
	}
}

func TestUnanswered(t *testing.T) {
	evs := seqd(
		New(KindUserMessage, 1, 0, UserMessage{Text: "go"}),
		New(KindModelResponse, 1, 1, ModelResponse{ToolCalls: []llm.ToolCall{{ID: "a"}, {ID: "b"}, {ID: "c"}}}),
		New(KindToolResult, 1, 1, ToolResult{CallID: "b"}),
		New(KindModelResponse, 1, 2, ModelResponse{ToolCalls: []llm.ToolCall{{ID: "x"}}, Incomplete: true}),
	)
	open := Unanswered(evs)
	if len(open) != 2 || open[0].ID != "a" || open[1].ID != "c" {
		t.Fatalf("unanswered = %+v, want a and c in call order", open)
	}
}

func TestStateOf(t *testing.T) {
	paused := func(point, call string) Checkpoint { return Checkpoint{Point: point, State: Paused, CallID: call} }
	base := []Event{
		New(KindUserMessage, 1, 0, UserMessage{Text: "a"}),
		New(KindRunEnd, 1, 1, RunEnd{Reason: EndAnswered}),
		New(KindUserMessage, 2, 0, UserMessage{Text: "b"}),
		New(KindModelRequest, 2, 1, ModelRequest{}),
		New(KindModelResponse, 2, 1, ModelResponse{}),
	}
	for _, tc := range []struct {
		name string
		more []Event
		want RunState
	}{
		{"closed", []Event{New(KindRunEnd, 2, 1, RunEnd{})}, RunState{Run: 2, Round: 1}},
		{"running", nil, RunState{Open: true, Run: 2, Round: 1}},
		{"paused after a result", []Event{New(KindCheckpoint, 2, 1, paused(PointAfterResult, "c1"))}, RunState{Open: true, Run: 2, Round: 1, Paused: &Checkpoint{Point: PointAfterResult, State: Paused, CallID: "c1"}}},
		// A pause before a request comes before its round's request.
		{"paused before a request", []Event{New(KindCheckpoint, 2, 2, paused(PointBeforeRequest, ""))}, RunState{Open: true, Run: 2, Round: 1, Paused: &Checkpoint{Point: PointBeforeRequest, State: Paused}}},
		{"resumed", []Event{New(KindCheckpoint, 2, 1, paused(PointAfterResponse, "")), New(KindCheckpoint, 2, 1, Checkpoint{Point: PointAfterResponse, State: Resumed})}, RunState{Open: true, Run: 2, Round: 1}},
	} {
		got := StateOf(seqd(append(slices.Clone(base), tc.more...)...))
		if fmt.Sprint(got.Open, got.Run, got.Round) != fmt.Sprint(tc.want.Open, tc.want.Run, tc.want.Round) ||
			(got.Paused == nil) != (tc.want.Paused == nil) ||
			(got.Paused != nil && (got.Paused.Point != tc.want.Paused.Point || got.Paused.CallID != tc.want.Paused.CallID)) {
			t.Errorf("%s: %+v (paused %+v), want %+v (paused %+v)", tc.name, got, got.Paused, tc.want, tc.want.Paused)
		}
	}
}

func TestDecodeChecksKind(t *testing.T) {
	e := New(KindUserMessage, 1, 0, UserMessage{Text: "x"})
	if _, err := Decode[ToolResult](e); err == nil {
		t.Fatal("decoding a user_message as tool_result must fail")
	}
	if p, err := Decode[UserMessage](e); err != nil || p.Text != "x" {
		t.Fatalf("p=%+v err=%v", p, err)
	}
}

// The AGENTS.md part of a system prompt survives an edit elsewhere in the
// prompt (in place, or moved by text added before it) and is dropped when
// the edit changes it.
func TestInstructionsKeptThroughEdits(t *testing.T) {
	before := "base\n\n<p>notes</p>"
	in := &Instructions{Source: "AGENTS.md", Start: 6, Len: 12}
	for _, tt := range []struct {
		after string
		start int
		kept  bool
	}{
		{"base\n\n<p>notes</p> and more", 6, true},
		{"a longer base\n\n<p>notes</p>", 15, true},
		{"base\n\n<p>other</p>", 0, false},
		{"<p>notes</p><p>notes</p>", 0, false},
	} {
		got := in.Kept(before, tt.after)
		if (got != nil) != tt.kept || (got != nil && (got.Start != tt.start || tt.after[got.Start:got.Start+got.Len] != "<p>notes</p>")) {
			t.Errorf("Kept(%q) = %+v, want kept %v at %d", tt.after, got, tt.kept, tt.start)
		}
	}
	if (*Instructions)(nil).Kept(before, before) != nil {
		t.Error("nil kept")
	}
}
