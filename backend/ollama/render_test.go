package ollama_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
)

// toolRound is a request after one tool call and its result.
func toolRound() llm.Request {
	return llm.Request{
		Model: model,
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You are a coding agent."},
			{Role: llm.RoleUser, Content: "what is here?"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "list_dir", Args: json.RawMessage(`{"path":"."}`)}}},
			{Role: llm.RoleTool, Content: "main.go\ngo.mod", ToolCallID: "call_1", ToolName: "list_dir"},
		},
		Tools: []llm.ToolSpec{{Name: "list_dir", Description: "List a directory.", Parameters: json.RawMessage(
			`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}},
		Options: llm.Options{NumCtx: 8192},
	}
}

func TestRenderShowsTheTemplatedPrompt(t *testing.T) {
	srv, c := setup(t, "completion", "tools")
	got, err := c.Render(context.Background(), toolRound())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"<|im_start|>system\nYou are a coding agent.",
		`{"type":"function","function":{"name":"list_dir","description":"List a directory.","parameters":{"type":"object","required":["path"],"properties":{"path":{"type":"string"}}}}}`,
		"<|im_start|>user\nwhat is here?<|im_end|>",
		"<tool_call>\n{\"name\": \"list_dir\", \"arguments\": {\"path\":\".\"}}\n</tool_call>",
		"<tool_response>\nmain.go\ngo.mod\n</tool_response>",
	} {
		if !strings.Contains(got.Text, want) {
			t.Errorf("rendered prompt lacks %q:\n%s", want, got.Text)
		}
	}
	if !strings.HasSuffix(got.Text, "<|im_start|>assistant\n") || got.Model != model {
		t.Errorf("rendered %q for %q", got.Text, got.Model)
	}
	// One request was sent, asking for the rendering and no stream, and no
	// scripted reply was taken.
	reqs := srv.Requests()
	if len(reqs) != 1 || !reqs[0].Chat.DebugRenderOnly || reqs[0].Chat.Streaming() {
		t.Fatalf("requests: %+v", reqs)
	}
	if !strings.Contains(string(reqs[0].Body), `"_debug_render_only":true`) {
		t.Errorf("body %s", reqs[0].Body)
	}
}

func TestRenderErrors(t *testing.T) {
	srv, c := setup(t, "completion")
	// Tools offered to a model without the capability: Ollama refuses
	// before it renders anything.
	_, err := c.Render(context.Background(), toolRound())
	var se *ollama.StatusError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "choose a model that supports tools") {
		t.Errorf("no tools capability: %v", err)
	}
	r := toolRound()
	r.Model = "gone:latest"
	_, err = c.Render(context.Background(), r)
	var nf *ollama.ModelNotFoundError
	if !errors.As(err, &nf) || !strings.Contains(err.Error(), "ollama pull gone:latest") {
		t.Errorf("missing model: %v", err)
	}
	// A template that does not execute: Ollama's 500 with its words.
	srv.AddModel(ollamatest.ModelSpec{Name: "broken", Template: "{{ .Nope.Deeper }}"})
	r = request("x")
	r.Model = "broken"
	if _, err = c.Render(context.Background(), r); err == nil || !strings.Contains(err.Error(), "HTTP 500") {
		t.Errorf("broken template: %v", err)
	}
	// Nothing listening.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, err = ollama.New(addr, nil).Render(context.Background(), request("x"))
	var un *ollama.UnreachableError
	if !errors.As(err, &un) || !strings.Contains(err.Error(), "ollama serve") {
		t.Errorf("not running: %v", err)
	}
}

func TestDigest(t *testing.T) {
	_, c := setup(t)
	d, err := c.Digest(context.Background(), "tiny")
	if err != nil || len(d) != 64 {
		t.Errorf("digest %q, %v", d, err)
	}
	var nf *ollama.ModelNotFoundError
	if _, err := c.Digest(context.Background(), "nope"); !errors.As(err, &nf) {
		t.Errorf("missing model: %v", err)
	}
}
