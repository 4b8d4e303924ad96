package realollama

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/testkit/gguf"
)

// These tests talk raw HTTP to a real Ollama server, to pin down what the
// scripted models make it send: they check the test kit, not Loupe.

type toolCall struct {
	ID       string `json:"id,omitempty"`
	Function struct {
		Index     int             `json:"index"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

type message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	Thinking   string     `json:"thinking,omitempty"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolName   string     `json:"tool_name,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

type chunk struct {
	Message    message `json:"message"`
	Done       bool    `json:"done"`
	DoneReason string  `json:"done_reason"`
	EvalCount  int     `json:"eval_count"`
	Error      string  `json:"error"`
}

// tool is a function tool with a single string parameter.
func tool(name, param string) map[string]any {
	return map[string]any{"type": "function", "function": map[string]any{
		"name":        name,
		"description": "test tool " + name,
		"parameters": map[string]any{
			"type":       "object",
			"required":   []string{param},
			"properties": map[string]any{param: map[string]any{"type": "string"}},
		},
	}}
}

var agentTools = []map[string]any{tool("list_dir", "path"), tool("read_file", "path")}

// reply is one streamed /api/chat answer, merged the way a client merges it.
type reply struct {
	message
	chunks     int
	doneReason string
}

// chat streams an /api/chat request and merges the chunks. A status other than
// 200 is returned as an error with the server's message.
func chat(t *testing.T, s *Server, req map[string]any) (reply, error) {
	t.Helper()
	req["stream"] = true
	body, _ := json.Marshal(req)
	resp, err := http.Post(s.URL()+"/api/chat", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("POST /api/chat: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return reply{}, errors.New(resp.Status + ": " + string(bytes.TrimSpace(b)))
	}
	var r reply
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c chunk
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("bad NDJSON line %q: %v", sc.Text(), err)
		}
		if c.Error != "" {
			t.Fatalf("stream error: %s", c.Error)
		}
		r.chunks++
		r.Role = c.Message.Role
		r.Content += c.Message.Content
		r.Thinking += c.Message.Thinking
		r.ToolCalls = append(r.ToolCalls, c.Message.ToolCalls...)
		if c.Done {
			r.doneReason = c.DoneReason
			return r, nil
		}
	}
	t.Fatalf("stream ended without done: %v", sc.Err())
	return r, nil
}

func mustChat(t *testing.T, s *Server, req map[string]any) reply {
	t.Helper()
	r, err := chat(t, s, req)
	if err != nil {
		t.Fatalf("/api/chat: %v", err)
	}
	return r
}

func capabilities(t *testing.T, s *Server, model string) []string {
	t.Helper()
	body, err := s.post(t.Context(), "/api/show", "application/json", []byte(`{"model":"`+model+`"}`))
	if err != nil {
		t.Fatalf("/api/show %s: %v", model, err)
	}
	var show struct{ Capabilities []string }
	if err := json.Unmarshal(body, &show); err != nil {
		t.Fatal(err)
	}
	slices.Sort(show.Capabilities)
	return show.Capabilities
}

func args(t *testing.T, c toolCall) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(c.Function.Arguments, &m); err != nil {
		t.Fatalf("arguments %s: %v", c.Function.Arguments, err)
	}
	return m
}

func TestRealOllama(t *testing.T) {
	Require(t)

	t0 := time.Now()
	s := Start(t)
	t.Logf("server up in %v at %s", time.Since(t0).Round(time.Millisecond), s.URL())
	if v, err := s.Version(); err != nil || !strings.HasPrefix(v, "0.") || v == "0.0.0" {
		t.Fatalf("/api/version = %q, %v; want the pinned version", v, err)
	}

	s.CreateModel(t, "scripted-tools", gguf.Script{Steps: []gguf.Step{
		{Call: []gguf.Call{{Name: "list_dir", Args: `{"path": "."}`}}},
		{Answer: "Reading both.", Call: []gguf.Call{
			{Name: "read_file", Args: `{"path": "README.md"}`},
			{Name: "read_file", Args: `{"path": "go.mod"}`},
		}},
		{Answer: "The workspace has README.md."},
	}})
	s.CreateModel(t, "scripted-think", gguf.Script{Thinking: true, Steps: []gguf.Step{
		{Think: "I should look around first.", Call: []gguf.Call{{Name: "list_dir", Args: `{"path": "."}`}}},
		{Think: "Now I know.", Answer: "Done."},
	}})
	s.CreateModel(t, "scripted-plain", gguf.Script{NoTools: true, Steps: []gguf.Step{
		{Answer: "Hello there."},
	}})

	t.Run("capabilities", func(t *testing.T) {
		for model, want := range map[string][]string{
			"scripted-tools": {"completion", "tools"},
			"scripted-think": {"completion", "thinking", "tools"},
			"scripted-plain": {"completion"},
		} {
			if got := capabilities(t, s, model); !slices.Equal(got, want) {
				t.Errorf("%s: capabilities %v, want %v", model, got, want)
			}
		}
	})

	user := message{Role: "user", Content: "What is in the workspace?"}

	t.Run("tool calls then answer", func(t *testing.T) {
		msgs := []message{user}
		start := time.Now()

		// Turn 1: one call, parsed by Ollama, with an id.
		r := mustChat(t, s, map[string]any{"model": "scripted-tools", "messages": msgs, "tools": agentTools})
		if len(r.ToolCalls) != 1 {
			t.Fatalf("turn 1: %d tool calls, want 1: %+v", len(r.ToolCalls), r)
		}
		c := r.ToolCalls[0]
		if c.Function.Name != "list_dir" || args(t, c)["path"] != "." || c.Function.Index != 0 {
			t.Errorf("turn 1: call %s %s index %d", c.Function.Name, c.Function.Arguments, c.Function.Index)
		}
		if !strings.HasPrefix(c.ID, "call_") {
			t.Errorf("turn 1: call id %q", c.ID)
		}
		if r.Content != "" || r.doneReason != "stop" || r.Role != "assistant" {
			t.Errorf("turn 1: content %q, done_reason %q, role %q", r.Content, r.doneReason, r.Role)
		}
		msgs = append(msgs, r.message,
			message{Role: "tool", ToolName: "list_dir", ToolCallID: c.ID, Content: "README.md\ngo.mod\n"})

		// Turn 2: text, then two calls in one message.
		r = mustChat(t, s, map[string]any{"model": "scripted-tools", "messages": msgs, "tools": agentTools})
		if r.Content != "Reading both." {
			t.Errorf("turn 2: content %q", r.Content)
		}
		if len(r.ToolCalls) != 2 {
			t.Fatalf("turn 2: %d tool calls, want 2: %+v", len(r.ToolCalls), r)
		}
		for i, want := range []string{"README.md", "go.mod"} {
			c := r.ToolCalls[i]
			if c.Function.Name != "read_file" || args(t, c)["path"] != want || c.Function.Index != i {
				t.Errorf("turn 2: call %d is %s %s index %d", i, c.Function.Name, c.Function.Arguments, c.Function.Index)
			}
		}
		if a, b := r.ToolCalls[0].ID, r.ToolCalls[1].ID; a == "" || a == b {
			t.Errorf("turn 2: ids %q and %q, want distinct", a, b)
		}
		msgs = append(msgs, r.message,
			message{Role: "tool", ToolName: "read_file", ToolCallID: r.ToolCalls[0].ID, Content: "# Demo\n"},
			message{Role: "tool", ToolName: "read_file", ToolCallID: r.ToolCalls[1].ID, Content: "module demo\n"})

		// Turn 3: after the tool results, the final answer.
		r = mustChat(t, s, map[string]any{"model": "scripted-tools", "messages": msgs, "tools": agentTools})
		if r.Content != "The workspace has README.md." || len(r.ToolCalls) != 0 || r.doneReason != "stop" {
			t.Errorf("turn 3: %+v", r)
		}
		t.Logf("three turns in %v", time.Since(start).Round(time.Millisecond))

		// A turn past the script says so instead of improvising.
		msgs = append(msgs, r.message, message{Role: "user", Content: "And?"})
		r = mustChat(t, s, map[string]any{"model": "scripted-tools", "messages": msgs, "tools": agentTools})
		if r.Content != gguf.OverText {
			t.Errorf("past the script: %q", r.Content)
		}
	})

	t.Run("thinking", func(t *testing.T) {
		msgs := []message{user}
		r := mustChat(t, s, map[string]any{"model": "scripted-think", "messages": msgs, "tools": agentTools, "think": true})
		if strings.TrimSpace(r.Thinking) != "I should look around first." {
			t.Errorf("turn 1: thinking %q", r.Thinking)
		}
		if len(r.ToolCalls) != 1 || r.ToolCalls[0].Function.Name != "list_dir" || strings.TrimSpace(r.Content) != "" {
			t.Fatalf("turn 1: %+v", r)
		}
		msgs = append(msgs, r.message,
			message{Role: "tool", ToolName: "list_dir", ToolCallID: r.ToolCalls[0].ID, Content: "README.md\n"})
		r = mustChat(t, s, map[string]any{"model": "scripted-think", "messages": msgs, "tools": agentTools, "think": true})
		if strings.TrimSpace(r.Thinking) != "Now I know." || r.Content != "Done." {
			t.Errorf("turn 2: thinking %q, content %q", r.Thinking, r.Content)
		}
	})

	t.Run("plain chat without tools", func(t *testing.T) {
		r := mustChat(t, s, map[string]any{"model": "scripted-plain", "messages": []message{user}})
		if r.Content != "Hello there." || r.Thinking != "" || len(r.ToolCalls) != 0 {
			t.Errorf("%+v", r)
		}
		// A model whose template has no tools refuses requests with tools.
		_, err := chat(t, s, map[string]any{"model": "scripted-plain", "messages": []message{user}, "tools": agentTools})
		if err == nil || !strings.Contains(err.Error(), "does not support tools") {
			t.Errorf("tools to a model without tools: %v", err)
		}
		// And one without thinking refuses think.
		_, err = chat(t, s, map[string]any{"model": "scripted-plain", "messages": []message{user}, "think": true})
		if err == nil || !strings.Contains(err.Error(), "does not support thinking") {
			t.Errorf("think to a model without thinking: %v", err)
		}
	})

	t.Run("num_predict cuts a long stream", func(t *testing.T) {
		s.CreateModel(t, "scripted-long", gguf.Script{Steps: []gguf.Step{{Answer: "Counting:", Repeat: " and on"}}})
		r := mustChat(t, s, map[string]any{"model": "scripted-long", "messages": []message{user},
			"options": map[string]any{"num_predict": 5}})
		if r.Content != "Counting: and on and on and on and on" || r.doneReason != "length" {
			t.Errorf("content %q, done_reason %q", r.Content, r.doneReason)
		}
	})

	t.Run("kill mid-stream and restart", func(t *testing.T) {
		body, _ := json.Marshal(map[string]any{"model": "scripted-long", "messages": []message{user}, "stream": true})
		resp, err := http.Post(s.URL()+"/api/chat", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for range 3 {
			if !sc.Scan() {
				t.Fatalf("stream ended early: %v", sc.Err())
			}
		}
		s.Kill()
		if s.Running() {
			t.Fatal("still running after Kill")
		}
		// The stream breaks off without a done chunk.
		for sc.Scan() {
			var c chunk
			if json.Unmarshal(sc.Bytes(), &c) == nil && c.Done {
				t.Fatalf("got a done chunk after the kill: %s", sc.Text())
			}
		}
		if _, err := s.Version(); err == nil {
			t.Fatal("/api/version answers after Kill")
		}

		s.Restart(t)
		r := mustChat(t, s, map[string]any{"model": "scripted-plain", "messages": []message{user}})
		if r.Content != "Hello there." {
			t.Errorf("after restart: %+v", r)
		}
	})
}
