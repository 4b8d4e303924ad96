package ollama

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/llm"
)

// SetChatFields on a body EncodeChatRequest wrote is what it writes for the
// request so changed, for every combination of the fields; on any other
// body it changes those values and no other byte.
func TestSetChatFieldsChangesOnlyItsFields(t *testing.T) {
	base := llm.Request{
		Model:    "qwen3:4b",
		Messages: []llm.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "hi <b> & \"you\""}},
		Tools:    []llm.ToolSpec{{Name: "read_file", Description: "reads", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}},
		Options:  llm.Options{NumCtx: 4096, Temperature: 0.2},
	}
	temp := 1.25
	for _, c := range []BodyChanges{{}, {Model: "llama3.2"}, {Temperature: &temp}, {NumCtx: 32768}, {Model: "m", Temperature: &temp, NumCtx: 1024}} {
		body, err := EncodeChatRequest(base)
		if err != nil {
			t.Fatal(err)
		}
		got, err := SetChatFields(body, c)
		if err != nil {
			t.Fatal(err)
		}
		want := base
		if c.Model != "" {
			want.Model = c.Model
		}
		if c.Temperature != nil {
			want.Options.Temperature = *c.Temperature
		}
		if c.NumCtx != 0 {
			want.Options.NumCtx = c.NumCtx
		}
		wb, _ := EncodeChatRequest(want)
		if string(got) != string(wb) {
			t.Fatalf("%+v:\n got %s\nwant %s", c, got, wb)
		}
	}
	// A body as a person writes it: spacing kept, a missing options added.
	hand := "{\n  \"model\" : \"a\",\n  \"messages\": [ ],\n  \"keep_alive\": \"5m\"\n}\n"
	got, err := SetChatFields([]byte(hand), BodyChanges{Model: "b", NumCtx: 8})
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"model\" : \"b\",\n  \"messages\": [ ],\n  \"keep_alive\": \"5m\",\"options\":{\"num_ctx\":8}\n}\n"; string(got) != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if _, err := SetChatFields([]byte(`{"model":"a","messages":[]`), BodyChanges{Model: "b"}); err == nil || !strings.Contains(err.Error(), "can read") {
		t.Fatalf("a body cut short: %v", err)
	}
}
