package trace

import (
	"encoding/json"
	"testing"

	"github.com/loupe-dev/loupe/backend/llm"
)

func seqd(events ...Event) []Event {
	for i := range events {
		events[i].Seq = int64(i + 1)
	}
	return events
}

func TestMessagesProjectsHistory(t *testing.T) {
	call := llm.ToolCall{ID: "c1", Name: "list_dir", Args: json.RawMessage(`{"path":"."}`)}
	evs := seqd(
		New(KindUserMessage, 1, 0, UserMessage{Text: "hi"}),
		New(KindModelRequest, 1, 1, ModelRequest{}),
		New(KindModelResponse, 1, 1, ModelResponse{Content: "looking", ToolCalls: []llm.ToolCall{call}}),
		New(KindToolCall, 1, 1, ToolCall{CallID: "c1"}),
		New(KindToolResult, 1, 1, ToolResult{CallID: "c1", Name: "list_dir", Content: "a\n"}),
		New(KindModelResponse, 1, 2, ModelResponse{Content: "half", ToolCalls: []llm.ToolCall{{ID: "c2", Name: "write_file"}}, Incomplete: true}),
		New(KindModelResponse, 1, 3, ModelResponse{Incomplete: true}),
	)
	seqs := HistorySeqs(evs)
	if want := []int64{1, 3, 5, 6, 7}; len(seqs) != len(want) {
		t.Fatalf("history seqs = %v, want %v", seqs, want)
	}
	msgs, err := Messages(evs, "sys", seqs)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, m := range msgs {
		got = append(got, m.Role+":"+m.Content)
	}
	want := []string{"system:sys", "user:hi", "assistant:looking", "tool:a\n", "assistant:half"}
	if len(got) != len(want) {
		t.Fatalf("messages = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("messages = %q, want %q", got, want)
		}
	}
	if msgs[2].ToolCalls[0].ID != "c1" || msgs[3].ToolCallID != "c1" || msgs[3].ToolName != "list_dir" {
		t.Fatalf("call and result not paired: %+v %+v", msgs[2], msgs[3])
	}
	if len(msgs[4].ToolCalls) != 0 {
		t.Fatal("an incomplete message's calls entered the history")
	}
	if _, err := Messages(evs, "", []int64{42}); err == nil {
		t.Fatal("a history naming a missing event must fail")
	}
}

func TestUnansweredAndOpenRun(t *testing.T) {
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
	if !OpenRun(evs) {
		t.Fatal("a run without run_end is open")
	}
	evs = append(evs, New(KindRunEnd, 1, 2, RunEnd{Reason: EndCancelled}))
	if OpenRun(evs) {
		t.Fatal("a run with run_end is closed")
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
