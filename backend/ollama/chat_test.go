package ollama_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
)

const model = "tiny:latest"

func setup(t *testing.T, caps ...string) (*ollamatest.Server, *ollama.Client) {
	t.Helper()
	srv := ollamatest.New(t)
	if caps == nil {
		caps = []string{"completion", "tools", "thinking"}
	}
	srv.AddModel(ollamatest.ModelSpec{Name: model, Family: "qwen3", ContextLength: 32768, Capabilities: caps})
	return srv, ollama.New(srv.URL(), nil)
}

func request(text string) llm.Request {
	return llm.Request{
		Model:    model,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: text}},
		Options:  llm.Options{NumCtx: 8192, Temperature: 0.2},
	}
}

// collect records the deltas Chat hands out.
type collect struct{ chunks []llm.Chunk }

func (c *collect) on(ch llm.Chunk) { c.chunks = append(c.chunks, ch) }

func TestChatStreamsDeltasInOrder(t *testing.T) {
	srv, c := setup(t)
	metrics := &ollamatest.Metrics{
		TotalDuration: 900 * time.Millisecond, LoadDuration: 100 * time.Millisecond,
		PromptEvalCount: 42, PromptEvalDuration: 200 * time.Millisecond,
		EvalCount: 5, EvalDuration: 500 * time.Millisecond,
	}
	srv.Script(ollamatest.Reply{
		Chunks: []ollamatest.Chunk{
			{Thinking: "Let me "}, {Thinking: "think."},
			{Content: "Hel"}, {Content: "lo, "}, {Content: "world"},
		},
		Metrics: metrics,
		Delay:   2 * time.Millisecond,
	})
	var got collect
	resp, err := c.Chat(context.Background(), request("hi"), got.on)
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	want := []llm.Chunk{{Thinking: "Let me "}, {Thinking: "think."}, {Content: "Hel"}, {Content: "lo, "}, {Content: "world"}}
	if !equalChunks(got.chunks, want) {
		t.Errorf("deltas = %+v, want %+v", got.chunks, want)
	}
	if resp.Message.Role != llm.RoleAssistant || resp.Message.Content != "Hello, world" || resp.Message.Thinking != "Let me think." {
		t.Errorf("message = %+v", resp.Message)
	}
	if !resp.Done || resp.DoneReason != "stop" || !resp.Complete() {
		t.Errorf("done=%v reason=%q complete=%v, want a complete stop", resp.Done, resp.DoneReason, resp.Complete())
	}
	if resp.Chunks != 6 {
		t.Errorf("Chunks = %d, want 6 (5 deltas + done line)", resp.Chunks)
	}
	m := resp.Metrics
	if m.PromptEvalCount != 42 || m.EvalCount != 5 || m.TotalDuration != 900*time.Millisecond ||
		m.LoadDuration != 100*time.Millisecond || m.PromptEvalDuration != 200*time.Millisecond || m.EvalDuration != 500*time.Millisecond {
		t.Errorf("metrics = %+v", m)
	}
	if m.TimeToFirstToken <= 0 || m.TimeToFirstToken > 5*time.Second {
		t.Errorf("TimeToFirstToken = %v", m.TimeToFirstToken)
	}

	// Raw is Ollama's wire form of the whole message.
	var raw map[string]any
	if err := json.Unmarshal(resp.Raw, &raw); err != nil {
		t.Fatalf("Raw is not JSON: %v\n%s", err, resp.Raw)
	}
	msg, _ := raw["message"].(map[string]any)
	if raw["model"] != model || raw["done"] != true || raw["done_reason"] != "stop" ||
		msg["role"] != "assistant" || msg["content"] != "Hello, world" || msg["thinking"] != "Let me think." ||
		raw["prompt_eval_count"] != 42.0 || raw["eval_count"] != 5.0 || raw["total_duration"] != float64(900*time.Millisecond) {
		t.Errorf("Raw = %s", resp.Raw)
	}
	if _, err := time.Parse(time.RFC3339Nano, raw["created_at"].(string)); err != nil {
		t.Errorf("Raw created_at: %v", err)
	}
}

func equalChunks(a, b []llm.Chunk) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestChatToolCallsKeepIDsIndexAndArgOrder(t *testing.T) {
	for _, split := range []bool{false, true} {
		t.Run(map[bool]string{false: "one line", true: "line per call"}[split], func(t *testing.T) {
			srv, c := setup(t)
			srv.Script(ollamatest.Reply{
				Chunks: []ollamatest.Chunk{{Content: "Reading."}},
				ToolCalls: []ollamatest.Call{
					// Keys deliberately out of alphabetical order. Nested
					// objects are sorted, as Ollama's server sends them.
					{ID: "call_zz9", Name: "read_file", Args: `{"path":"b.go","offset":10,"limit":5}`},
					{ID: "call_aa1", Name: "grep", Args: `{"pattern":"x","include":"*.go","opts":{"a":1,"b":[true,null]}}`},
				},
				SplitToolCalls: split,
			})
			var got collect
			resp, err := c.Chat(context.Background(), request("go"), got.on)
			if err != nil {
				t.Fatalf("Chat: %v", err)
			}
			want := []llm.ToolCall{
				{ID: "call_zz9", Index: 0, Name: "read_file", Args: json.RawMessage(`{"path":"b.go","offset":10,"limit":5}`)},
				{ID: "call_aa1", Index: 1, Name: "grep", Args: json.RawMessage(`{"pattern":"x","include":"*.go","opts":{"a":1,"b":[true,null]}}`)},
			}
			if len(resp.Message.ToolCalls) != len(want) {
				t.Fatalf("tool calls = %+v", resp.Message.ToolCalls)
			}
			for i, w := range want {
				g := resp.Message.ToolCalls[i]
				if g.ID != w.ID || g.Index != w.Index || g.Name != w.Name || string(g.Args) != string(w.Args) {
					t.Errorf("call %d = {%s %d %s %s}, want {%s %d %s %s}", i, g.ID, g.Index, g.Name, g.Args, w.ID, w.Index, w.Name, w.Args)
				}
			}
			if len(got.chunks) != 1 {
				t.Errorf("deltas = %+v; a tool-call line is not a delta", got.chunks)
			}
			if !resp.Complete() {
				t.Errorf("response not complete: %+v", resp)
			}
			// Raw keeps the calls in wire form.
			if !bytes.Contains(resp.Raw, []byte(`"tool_calls":[{"id":"call_zz9","function":{"index":0,"name":"read_file","arguments":{"path":"b.go","offset":10,"limit":5}}}`)) {
				t.Errorf("Raw = %s", resp.Raw)
			}
		})
	}
}

func TestChatGivesIDsToCallsWithout(t *testing.T) {
	srv, c := setup(t)
	srv.Script(ollamatest.Reply{RawLines: []string{
		`{"model":"tiny","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":"","tool_calls":[{"function":{"index":0,"name":"list_dir","arguments":{"path":"."}}},{"function":{"index":1,"name":"list_dir","arguments":{"path":"src"}}}]},"done":false}`,
		`{"model":"tiny","created_at":"2026-01-01T00:00:01Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}`,
	}})
	resp, err := c.Chat(context.Background(), request("ls"), nil)
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Message.ToolCalls
	if len(calls) != 2 || calls[0].ID == "" || calls[1].ID == "" || calls[0].ID == calls[1].ID {
		t.Fatalf("calls = %+v, want two distinct ids", calls)
	}
	if !bytes.Contains(resp.Raw, []byte(calls[0].ID)) {
		t.Errorf("Raw lacks the given id: %s", resp.Raw)
	}
}

func TestChatDoneReasonLengthIsNotComplete(t *testing.T) {
	srv, c := setup(t)
	srv.Script(ollamatest.Reply{
		Chunks:     []ollamatest.Chunk{{Content: "I will call"}},
		ToolCalls:  []ollamatest.Call{{Name: "read_file", Args: `{"path":"a"}`}},
		DoneReason: "length",
	})
	resp, err := c.Chat(context.Background(), request("x"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Done || resp.DoneReason != "length" || resp.Complete() {
		t.Errorf("done=%v reason=%q complete=%v", resp.Done, resp.DoneReason, resp.Complete())
	}
}

func TestChatFaults(t *testing.T) {
	three := []ollamatest.Chunk{{Content: "one "}, {Content: "two "}, {Content: "three"}}
	tests := []struct {
		name        string
		reply       ollamatest.Reply
		model       string
		ctxTimeout  time.Duration
		check       func(t *testing.T, err error)
		wantContent string
		wantCalls   int
	}{
		{
			name:  "http 500 with error body",
			reply: ollamatest.Reply{Fault: ollamatest.HTTPStatus(500, `{"error":"llama runner process has terminated"}`)},
			check: wantStatus(500, "llama runner process has terminated"),
		},
		{
			name:  "http 503 busy",
			reply: ollamatest.Reply{Fault: ollamatest.HTTPStatus(503, `{"error":"server busy, please try again.  maximum pending requests exceeded"}`)},
			check: wantStatus(503, "server busy, please try again.  maximum pending requests exceeded"),
		},
		{
			name:  "http 502 without body",
			reply: ollamatest.Reply{Fault: ollamatest.HTTPStatus(502, "")},
			check: wantStatus(502, ""),
		},
		{
			name:  "http 500 with a body that is not JSON",
			reply: ollamatest.Reply{Fault: ollamatest.HTTPStatus(500, "upstream exploded")},
			check: wantStatus(500, "upstream exploded"),
		},
		{
			name:  "unknown model",
			model: "nope:7b",
			check: func(t *testing.T, err error) {
				var nf *ollama.ModelNotFoundError
				if !errors.As(err, &nf) || nf.Model != "nope:7b" {
					t.Fatalf("err = %#v, want ModelNotFoundError", err)
				}
				if want := "model \"nope:7b\" is not installed in Ollama — run `ollama pull nope:7b`"; err.Error() != want {
					t.Errorf("message = %q, want %q", err.Error(), want)
				}
			},
		},
		{
			name:        "error line mid-stream",
			reply:       ollamatest.Reply{Chunks: three, Fault: ollamatest.ErrorLineAfter(2, "an error was encountered while running the model: CUDA error")},
			check:       wantStream("an error was encountered while running the model: CUDA error", false),
			wantContent: "one two ",
		},
		{
			name:  "error before any line becomes a status",
			reply: ollamatest.Reply{Chunks: three, Fault: ollamatest.ErrorLineAfter(0, "out of memory")},
			check: wantStatus(500, "out of memory"),
		},
		{
			name:        "line that is not JSON mid-stream",
			reply:       ollamatest.Reply{RawLines: []string{`{"model":"tiny","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":"ok"},"done":false}`, `<html>proxy error</html>`}},
			check:       wantStream("<html>proxy error</html>", false),
			wantContent: "ok",
		},
		{
			name:        "connection cut mid-stream",
			reply:       ollamatest.Reply{Chunks: three, Fault: ollamatest.CutAfter(2)},
			check:       wantStream("", true),
			wantContent: "one two ",
		},
		{
			name: "cut after the tool calls, before done",
			reply: ollamatest.Reply{
				Chunks:    three[:1],
				ToolCalls: []ollamatest.Call{{ID: "call_1", Name: "run_command", Args: `{"command":"rm -rf /"}`}},
				Fault:     ollamatest.CutAfter(2),
			},
			check:       wantStream("", true),
			wantContent: "one ",
			wantCalls:   1,
		},
		{
			name:  "connection cut before headers",
			reply: ollamatest.Reply{Chunks: three, Fault: ollamatest.CutAfter(0)},
			check: wantStream("", true),
		},
		{
			// What Ollama does when it stops a model that repeats a token.
			name:  "stream ends cleanly without done",
			reply: ollamatest.Reply{RawLines: []string{`{"model":"tiny","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":"half"},"done":false}`}},
			check: func(t *testing.T, err error) {
				var se *ollama.StreamError
				if !errors.As(err, &se) || !se.Ended || se.Cut {
					t.Fatalf("err = %#v (%v), want a StreamError that ended without done", err, err)
				}
				if msg := err.Error(); !strings.Contains(msg, "repeats the same token") || strings.Contains(msg, "still running") {
					t.Errorf("message = %q; want it to name a repeating model, not a stopped Ollama", msg)
				}
			},
			wantContent: "half",
		},
		{
			name:        "stall until the deadline",
			reply:       ollamatest.Reply{Chunks: three, Fault: ollamatest.StallAfter(1)},
			ctxTimeout:  150 * time.Millisecond,
			wantContent: "one ",
			check: func(t *testing.T, err error) {
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("err = %v, want deadline exceeded", err)
				}
			},
		},
		{
			name:       "stall before headers",
			reply:      ollamatest.Reply{Chunks: three, Fault: ollamatest.StallAfter(0)},
			ctxTimeout: 100 * time.Millisecond,
			check: func(t *testing.T, err error) {
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("err = %v, want deadline exceeded", err)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, c := setup(t)
			srv.Script(tt.reply)
			ctx := context.Background()
			if tt.ctxTimeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.ctxTimeout)
				defer cancel()
			}
			req := request("hi")
			if tt.model != "" {
				req.Model = tt.model
			}
			var got collect
			resp, err := c.Chat(ctx, req, got.on)
			if err == nil {
				t.Fatalf("no error; response %+v", resp)
			}
			tt.check(t, err)
			if resp.Done || resp.Complete() {
				t.Errorf("Done = true for a failed answer")
			}
			if resp.Message.Content != tt.wantContent {
				t.Errorf("partial content = %q, want %q", resp.Message.Content, tt.wantContent)
			}
			if len(resp.Message.ToolCalls) != tt.wantCalls {
				t.Errorf("partial tool calls = %+v, want %d", resp.Message.ToolCalls, tt.wantCalls)
			}
		})
	}
}

func wantStatus(code int, msg string) func(*testing.T, error) {
	return func(t *testing.T, err error) {
		t.Helper()
		var se *ollama.StatusError
		if !errors.As(err, &se) {
			t.Fatalf("err = %#v (%v), want StatusError", err, err)
		}
		if se.Code != code || se.Message != msg {
			t.Errorf("StatusError = {%d %q}, want {%d %q}", se.Code, se.Message, code, msg)
		}
		if !strings.Contains(err.Error(), "HTTP ") {
			t.Errorf("message %q does not name the status", err)
		}
	}
}

func wantStream(msg string, cut bool) func(*testing.T, error) {
	return func(t *testing.T, err error) {
		t.Helper()
		var se *ollama.StreamError
		if !errors.As(err, &se) {
			t.Fatalf("err = %#v (%v), want StreamError", err, err)
		}
		if se.Cut != cut || se.Message != msg {
			t.Errorf("StreamError = {cut %v %q}, want {cut %v %q}", se.Cut, se.Message, cut, msg)
		}
		if cut && !strings.Contains(err.Error(), "the connection to Ollama closed before the answer finished") {
			t.Errorf("message = %q", err)
		}
		if !cut && !strings.Contains(err.Error(), msg) {
			t.Errorf("message %q lacks the server's %q", err, msg)
		}
	}
}

func TestChatCancelKeepsPartialAnswer(t *testing.T) {
	srv, c := setup(t)
	srv.Script(ollamatest.Reply{
		Chunks: []ollamatest.Chunk{{Content: "a"}, {Content: "b"}, {Content: "c"}, {Content: "d"}},
		Delay:  100 * time.Millisecond,
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, err := c.Chat(ctx, request("x"), func(ch llm.Chunk) {
		if ch.Content == "b" {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if resp.Done || resp.Message.Content != "ab" || resp.Chunks != 2 {
		t.Errorf("partial = done %v %q chunks %d, want not done \"ab\" 2", resp.Done, resp.Message.Content, resp.Chunks)
	}
}

func TestEncodeChatRequestIsTheBodySent(t *testing.T) {
	srv, c := setup(t)
	srv.Script(ollamatest.Text("ok"))
	think := true
	req := llm.Request{
		Model: model,
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You are a coding agent. <b>&</b>"},
			{Role: llm.RoleUser, Content: "fix the bug in \"main.go\""},
			{Role: llm.RoleAssistant, Content: "Looking.", Thinking: "hmm", ToolCalls: []llm.ToolCall{
				{ID: "call_b", Index: 0, Name: "read_file", Args: json.RawMessage(`{"path":"main.go","offset":1,"limit":20}`)},
				{ID: "call_a", Index: 1, Name: "edit_file", Args: json.RawMessage(` {"path":"main.go","old_string":"x","new_string":"y","replace_all":false}`)},
			}},
			{Role: llm.RoleTool, Content: "package main", ToolCallID: "call_b", ToolName: "read_file"},
			{Role: llm.RoleTool, Content: "edited", ToolCallID: "call_a", ToolName: "edit_file"},
		},
		Tools: []llm.ToolSpec{
			{Name: "read_file", Description: "Read a file.", Parameters: json.RawMessage(
				`{"type":"object","properties":{"path":{"type":"string","description":"file path"},"offset":{"type":"integer"},"limit":{"type":"integer"}},"required":["path"]}`)},
			{Name: "list_dir", Description: "List a directory.", Parameters: nil},
		},
		Options: llm.Options{NumCtx: 16384, Temperature: 0.7},
		Think:   &think,
	}
	want, err := ollama.EncodeChatRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Chat(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	got := srv.Requests()
	if len(got) != 1 {
		t.Fatalf("%d requests", len(got))
	}
	if !bytes.Equal(got[0].Body, want) {
		t.Fatalf("body sent differs from EncodeChatRequest:\nsent:    %s\nencoded: %s", got[0].Body, want)
	}

	// And the body says what it should, read by the fake's own structs.
	r := got[0].Chat
	if !r.Streaming() || !r.ThinkOn() || r.Options["num_ctx"] != 16384.0 || r.Options["temperature"] != 0.7 {
		t.Errorf("stream/think/options wrong: %s", got[0].Body)
	}
	if len(r.Messages) != 5 {
		t.Fatalf("messages = %+v", r.Messages)
	}
	a := r.Messages[2]
	if a.Thinking != "hmm" || len(a.ToolCalls) != 2 || a.ToolCalls[0].ID != "call_b" || a.ToolCalls[1].Function.Index != 1 ||
		string(a.ToolCalls[0].Function.Arguments) != `{"path":"main.go","offset":1,"limit":20}` ||
		string(a.ToolCalls[1].Function.Arguments) != `{"path":"main.go","old_string":"x","new_string":"y","replace_all":false}` {
		t.Errorf("assistant message = %+v", a)
	}
	if tm := r.Messages[3]; tm.Role != "tool" || tm.ToolCallID != "call_b" || tm.ToolName != "read_file" {
		t.Errorf("tool message = %+v", tm)
	}
	if len(r.Tools) != 2 || r.Tools[0].Type != "function" || r.Tools[0].Function.Name != "read_file" ||
		string(r.Tools[0].Function.Parameters) != `{"type":"object","required":["path"],"properties":{"path":{"type":"string","description":"file path"},"offset":{"type":"integer"},"limit":{"type":"integer"}}}` {
		t.Errorf("tools = %s", got[0].Body)
	}
	if string(r.Tools[1].Function.Parameters) != `{"type":"object","properties":{}}` {
		t.Errorf("tool without schema got parameters %s", r.Tools[1].Function.Parameters)
	}
}

func TestEncodeChatRequestRejects(t *testing.T) {
	base := request("x")
	tests := map[string]func(r *llm.Request){
		"no model":          func(r *llm.Request) { r.Model = "" },
		"no num_ctx":        func(r *llm.Request) { r.Options.NumCtx = 0 },
		"args not object":   func(r *llm.Request) { r.Messages = append(r.Messages, assistantCall(`["a"]`)) },
		"args invalid":      func(r *llm.Request) { r.Messages = append(r.Messages, assistantCall(`{"a":`)) },
		"schema not object": func(r *llm.Request) { r.Tools = []llm.ToolSpec{{Name: "t", Parameters: json.RawMessage(`"x"`)}} },
	}
	for name, mod := range tests {
		t.Run(name, func(t *testing.T) {
			r := base
			r.Messages = append([]llm.Message(nil), base.Messages...)
			mod(&r)
			if b, err := ollama.EncodeChatRequest(r); err == nil {
				t.Errorf("no error; encoded %s", b)
			}
		})
	}
	// Missing or null arguments are an empty object.
	r := base
	r.Messages = append(r.Messages, assistantCall(""), assistantCall("null"))
	b, err := ollama.EncodeChatRequest(r)
	if err != nil || bytes.Count(b, []byte(`"arguments":{}`)) != 2 {
		t.Errorf("empty args: %v %s", err, b)
	}
}

func assistantCall(args string) llm.Message {
	return llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c", Name: "t", Args: json.RawMessage(args)}}}
}

func TestChatCapabilityErrors(t *testing.T) {
	srv, c := setup(t, "completion")
	_ = srv
	think := true
	r := request("x")
	r.Think = &think
	_, err := c.Chat(context.Background(), r, nil)
	var se *ollama.StatusError
	if !errors.As(err, &se) || se.Code != http.StatusBadRequest || !strings.Contains(err.Error(), "turn thinking off") {
		t.Errorf("think on a non-thinking model: %v", err)
	}
	r = request("x")
	r.Tools = []llm.ToolSpec{{Name: "t", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}}
	_, err = c.Chat(context.Background(), r, nil)
	if !errors.As(err, &se) || se.Code != http.StatusBadRequest || !strings.Contains(err.Error(), "choose a model that supports tools") {
		t.Errorf("tools on a model without tools: %v", err)
	}
}

func TestChatRunsOutOfScript(t *testing.T) {
	_, c := setup(t)
	_, err := c.Chat(context.Background(), request("x"), nil)
	var se *ollama.StreamError
	if !errors.As(err, &se) || !strings.Contains(se.Message, "the script ran out") {
		t.Errorf("err = %v, want a stream error saying the script ran out", err)
	}
}

// Arguments are kept as the model wrote them: a shell command's > and &
// are not turned into \u003e and \u0026 on the timeline or in the log.
func TestChatKeepsArgumentTextPlain(t *testing.T) {
	srv, c := setup(t)
	srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.Call{{ID: "call_1", Name: "run_command", Args: `{"command":"ls > out.txt && cat <in"}`}}})
	resp, err := c.Chat(context.Background(), request("go"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(resp.Message.ToolCalls[0].Args); got != `{"command":"ls > out.txt && cat <in"}` {
		t.Fatalf("args = %s", got)
	}
}

func TestChatArgumentEscapesStayValid(t *testing.T) {
	srv, c := setup(t)
	// A literal backslash followed by "u003e" must not become ">".
	srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.Call{{ID: "call_1", Name: "run_command", Args: `{"command":"printf '\\u003e' \"q\" <x"}`}}})
	resp, err := c.Chat(context.Background(), request("go"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Command string }
	if err := json.Unmarshal(resp.Message.ToolCalls[0].Args, &got); err != nil {
		t.Fatalf("args are not valid JSON: %s: %v", resp.Message.ToolCalls[0].Args, err)
	}
	if got.Command != `printf '\u003e' "q" <x` {
		t.Fatalf("command = %q", got.Command)
	}
}
