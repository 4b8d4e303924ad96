package ollamatest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// These tests read the fake's bytes with plain net/http and encoding/json,
// so they check the wire format itself, not how some client reads it.

func post(t *testing.T, url, path, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func readLines(t *testing.T, r io.Reader) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %q is not JSON: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

func newWithModel(t *testing.T) *Server {
	s := New(t)
	s.AddModel(ModelSpec{Name: "tiny", Family: "qwen3", ContextLength: 4096, Capabilities: []string{"completion", "tools", "thinking"}})
	return s
}

const chatBody = `{"model":"tiny","messages":[{"role":"user","content":"hi"}],"stream":true,"options":{"num_ctx":4096}}`

func TestStreamWireFormat(t *testing.T) {
	s := newWithModel(t)
	fixed := time.Date(2026, 2, 3, 4, 5, 6, 789, time.UTC)
	s.SetClock(func() time.Time { return fixed })
	s.Script(Reply{
		Chunks:    []Chunk{{Thinking: "hm"}, {Content: "Hi"}},
		ToolCalls: []Call{{ID: "call_x", Name: "list_dir", Args: `{"path":".", "all":true}`}, {Name: "glob", Args: `{"pattern":"*.go"}`}},
		Metrics:   &Metrics{TotalDuration: 5, LoadDuration: 1, PromptEvalCount: 7, PromptEvalDuration: 2, EvalCount: 3, EvalDuration: 2},
	})
	resp := post(t, s.URL(), "/api/chat", chatBody)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/x-ndjson" {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	body, _ := io.ReadAll(resp.Body)
	lines := strings.Split(strings.TrimSuffix(string(body), "\n"), "\n")
	want := []string{
		`{"model":"tiny","created_at":"2026-02-03T04:05:06.000000789Z","message":{"role":"assistant","content":"","thinking":"hm"},"done":false}`,
		`{"model":"tiny","created_at":"2026-02-03T04:05:06.000000789Z","message":{"role":"assistant","content":"Hi"},"done":false}`,
		`{"model":"tiny","created_at":"2026-02-03T04:05:06.000000789Z","message":{"role":"assistant","content":"","tool_calls":[{"id":"call_x","function":{"index":0,"name":"list_dir","arguments":{"path":".","all":true}}},{"id":"call_00000001","function":{"index":1,"name":"glob","arguments":{"pattern":"*.go"}}}]},"done":false}`,
		`{"model":"tiny","created_at":"2026-02-03T04:05:06.000000789Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","total_duration":5,"load_duration":1,"prompt_eval_count":7,"prompt_eval_duration":2,"eval_count":3,"eval_duration":2}`,
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines:\n%s", len(lines), body)
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i, lines[i], want[i])
		}
	}
}

func TestNonStreamingJoinsTheAnswer(t *testing.T) {
	s := newWithModel(t)
	s.Script(Reply{Chunks: []Chunk{{Thinking: "a"}, {Thinking: "b"}, {Content: "x"}, {Content: "y"}},
		ToolCalls: []Call{{ID: "c1", Name: "glob", Args: `{"pattern":"*"}`}}, SplitToolCalls: true, DoneReason: "length"})
	resp := post(t, s.URL(), "/api/chat", `{"model":"tiny","messages":[{"role":"user","content":"hi"}],"stream":false}`)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("content type %q", ct)
	}
	var cr ChatResponse
	if err := json.NewDecoder(resp.Body).Decode(&cr); err != nil {
		t.Fatal(err)
	}
	if !cr.Done || cr.DoneReason != "length" || cr.Message.Content != "xy" || cr.Message.Thinking != "ab" ||
		len(cr.Message.ToolCalls) != 1 || cr.Message.ToolCalls[0].ID != "c1" || cr.EvalCount == 0 {
		t.Errorf("answer = %+v", cr)
	}
}

func TestChatErrorsAreWordedLikeOllama(t *testing.T) {
	s := New(t)
	s.AddModel(ModelSpec{Name: "plain", Capabilities: []string{"completion"}})
	tests := []struct {
		body   string
		status int
		msg    string
	}{
		{``, 400, "missing request body"},
		{`{"model":`, 400, "unexpected EOF"},
		{`{"messages":[]}`, 400, "model is required"},
		{`{"model":"nope","messages":[{"role":"user","content":"x"}]}`, 404, "model 'nope' not found"},
		{`{"model":"plain","think":true,"messages":[{"role":"user","content":"x"}]}`, 400, `"plain" does not support thinking`},
		{`{"model":"plain","tools":[{"type":"function","function":{"name":"t","parameters":{"type":"object"}}}],"messages":[{"role":"user","content":"x"}]}`, 400, "registry.ollama.ai/library/plain:latest does not support tools"},
	}
	for _, tt := range tests {
		resp := post(t, s.URL(), "/api/chat", tt.body)
		var e errorBody
		json.NewDecoder(resp.Body).Decode(&e)
		if resp.StatusCode != tt.status || e.Error != tt.msg {
			t.Errorf("%s → %d %q, want %d %q", tt.body, resp.StatusCode, e.Error, tt.status, tt.msg)
		}
	}
	// No messages: Ollama loads the model and answers done_reason "load"
	// without taking a reply from the script.
	resp := post(t, s.URL(), "/api/chat", `{"model":"plain","messages":[]}`)
	var cr ChatResponse
	json.NewDecoder(resp.Body).Decode(&cr)
	if !cr.Done || cr.DoneReason != "load" {
		t.Errorf("load answer = %+v", cr)
	}
	if got := len(s.Requests()); got != len(tests)+1 {
		t.Errorf("recorded %d requests, want %d", got, len(tests)+1)
	}
}

func TestScriptRunsOut(t *testing.T) {
	s := newWithModel(t)
	resp := post(t, s.URL(), "/api/chat", chatBody)
	lines := readLines(t, resp.Body)
	if resp.StatusCode != 200 || len(lines) != 1 || !strings.Contains(lines[0]["error"].(string), "the script ran out: chat request #1") {
		t.Errorf("status %d lines %v", resp.StatusCode, lines)
	}
}

// A one-token request (a prompt-count probe) is answered with one token
// cut at the limit and leaves the script for the scenario's own requests.
func TestOneTokenProbeLeavesTheScript(t *testing.T) {
	s := newWithModel(t)
	s.Script(Text("scripted"))
	probe := strings.Replace(chatBody, `"num_ctx":4096`, `"num_ctx":4096,"num_predict":1`, 1)
	if probe == chatBody {
		t.Fatal("the test body has no num_ctx to add num_predict beside")
	}
	var got []string
	for _, body := range []string{probe, chatBody} {
		var sb strings.Builder
		var reason string
		for _, l := range readLines(t, post(t, s.URL(), "/api/chat", body).Body) {
			sb.WriteString(l["message"].(map[string]any)["content"].(string))
			if r, ok := l["done_reason"].(string); ok {
				reason = r
			}
		}
		got = append(got, sb.String()+"/"+reason)
	}
	if strings.Join(got, "|") != "./length|scripted/stop" || s.Pending() != 0 {
		t.Errorf("answers = %q, pending %d", got, s.Pending())
	}
}

func TestQueueThenResponder(t *testing.T) {
	s := newWithModel(t)
	s.Script(Text("first"))
	s.Respond(func(req ChatRequest) Reply {
		return Text("echo: " + req.Messages[len(req.Messages)-1].Content)
	})
	var got []string
	for range 3 {
		resp := post(t, s.URL(), "/api/chat", chatBody)
		var sb strings.Builder
		for _, l := range readLines(t, resp.Body) {
			sb.WriteString(l["message"].(map[string]any)["content"].(string))
		}
		got = append(got, sb.String())
	}
	if strings.Join(got, "|") != "first|echo: hi|echo: hi" || s.Pending() != 0 {
		t.Errorf("answers = %q, pending %d", got, s.Pending())
	}
	reqs := s.Requests()
	if len(reqs) != 3 || reqs[2].Seq != 3 || string(reqs[0].Body) != chatBody || reqs[0].Chat.Options["num_ctx"] != 4096.0 {
		t.Errorf("requests = %+v", reqs)
	}
}

func TestFaultsOnTheWire(t *testing.T) {
	t.Run("error line", func(t *testing.T) {
		s := newWithModel(t)
		s.Script(Reply{Chunks: []Chunk{{Content: "a"}, {Content: "b"}}, Fault: ErrorLineAfter(1, "boom")})
		lines := readLines(t, post(t, s.URL(), "/api/chat", chatBody).Body)
		if len(lines) != 2 || lines[1]["error"] != "boom" || len(lines[1]) != 1 {
			t.Errorf("lines = %v", lines)
		}
	})
	t.Run("http status", func(t *testing.T) {
		s := newWithModel(t)
		s.Script(Reply{Fault: HTTPStatus(503, `{"error":"busy"}`)})
		resp := post(t, s.URL(), "/api/chat", chatBody)
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 503 || string(b) != `{"error":"busy"}` {
			t.Errorf("%d %s", resp.StatusCode, b)
		}
	})
	t.Run("cut", func(t *testing.T) {
		s := newWithModel(t)
		s.Script(Reply{Chunks: []Chunk{{Content: "a"}, {Content: "b"}}, Fault: CutAfter(1)})
		resp := post(t, s.URL(), "/api/chat", chatBody)
		b, err := io.ReadAll(resp.Body)
		if !errors.Is(err, io.ErrUnexpectedEOF) || bytes.Count(b, []byte("\n")) != 1 {
			t.Errorf("read %q, err %v; want one line then unexpected EOF", b, err)
		}
	})
	t.Run("stall released by cancel", func(t *testing.T) {
		s := newWithModel(t)
		s.Script(Reply{Chunks: []Chunk{{Content: "a"}, {Content: "b"}}, Fault: StallAfter(1)})
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "POST", s.URL()+"/api/chat", strings.NewReader(chatBody))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		br := bufio.NewReader(resp.Body)
		if _, err := br.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		time.AfterFunc(50*time.Millisecond, cancel)
		start := time.Now()
		_, err = br.ReadString('\n')
		if err == nil || time.Since(start) < 40*time.Millisecond {
			t.Errorf("second read returned %v after %v; want to wait for the cancel", err, time.Since(start))
		}
	})
	t.Run("stall released by Close", func(t *testing.T) {
		s, err := Start("127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		s.AddModel(ModelSpec{Name: "tiny"})
		s.Script(Reply{Fault: StallAfter(0)})
		done := make(chan error, 1)
		go func() {
			resp, err := http.Post(s.URL()+"/api/chat", "application/json", strings.NewReader(chatBody))
			if err == nil {
				resp.Body.Close()
			}
			done <- err
		}()
		for len(s.Requests()) == 0 {
			time.Sleep(time.Millisecond)
		}
		closed := make(chan struct{})
		go func() { s.Close(); close(closed) }()
		select {
		case <-closed:
		case <-time.After(5 * time.Second):
			t.Fatal("Close hung on a stalled reply")
		}
		<-done
	})
}

func TestEndpoints(t *testing.T) {
	s := New(t)
	s.AddModel(ModelSpec{Name: "a", Family: "llama", ContextLength: 8192})
	s.AddModel(ModelSpec{Name: "b:1b", Family: "gemma3", Capabilities: []string{"completion", "vision"}})

	for _, m := range []string{"GET", "HEAD"} {
		req, _ := http.NewRequest(m, s.URL()+"/", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || (m == "GET" && string(b) != "Ollama is running") {
			t.Errorf("%s / = %d %q", m, resp.StatusCode, b)
		}
	}

	resp, err := http.Get(s.URL() + "/api/version")
	if err != nil {
		t.Fatal(err)
	}
	var v versionBody
	json.NewDecoder(resp.Body).Decode(&v)
	resp.Body.Close()
	if v.Version != DefaultVersion {
		t.Errorf("version = %q", v.Version)
	}

	resp, err = http.Get(s.URL() + "/api/tags")
	if err != nil {
		t.Fatal(err)
	}
	var tags struct {
		Models []struct {
			Name, Model, Digest string
			ModifiedAt          time.Time `json:"modified_at"`
			Size                int64
			Details             struct{ Family, Format string }
		}
	}
	json.NewDecoder(resp.Body).Decode(&tags)
	resp.Body.Close()
	if len(tags.Models) != 2 || tags.Models[0].Name != "a:latest" || tags.Models[1].Name != "b:1b" ||
		tags.Models[1].Details.Family != "gemma3" || tags.Models[0].Size == 0 || len(tags.Models[0].Digest) != 64 {
		t.Errorf("tags = %+v", tags)
	}

	var show struct {
		Capabilities []string
		ModelInfo    map[string]any `json:"model_info"`
		Template     string
		Details      struct{ Family string }
	}
	json.NewDecoder(post(t, s.URL(), "/api/show", `{"model":"a"}`).Body).Decode(&show)
	if show.ModelInfo["llama.context_length"] != 8192.0 || show.ModelInfo["general.architecture"] != "llama" ||
		strings.Join(show.Capabilities, ",") != "completion,tools" || show.Template == "" || show.Details.Family != "llama" {
		t.Errorf("show a = %+v", show)
	}
	show.ModelInfo = nil
	json.NewDecoder(post(t, s.URL(), "/api/show", `{"model":"b:1b"}`).Body).Decode(&show)
	if _, ok := show.ModelInfo["gemma3.context_length"]; ok {
		t.Errorf("a model without context length reports one: %v", show.ModelInfo)
	}
	resp = post(t, s.URL(), "/api/show", `{"model":"zzz"}`)
	var e errorBody
	json.NewDecoder(resp.Body).Decode(&e)
	if resp.StatusCode != 404 || e.Error != "model 'zzz' not found" {
		t.Errorf("show zzz = %d %q", resp.StatusCode, e.Error)
	}
}

// load_ms delays the first byte of a reply, headers included.
func TestScriptedLoadDelaysTheFirstByte(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.json")
	os.WriteFile(path, []byte(`{"models": [{"name": "tiny"}], "replies": [{"chunks": [{"content": "hi"}], "load_ms": 200}]}`), 0o600)
	f, err := LoadScript(path)
	if err != nil {
		t.Fatal(err)
	}
	s := New(t)
	s.Load(f)
	start := time.Now()
	resp := post(t, s.URL(), "/api/chat", chatBody)
	if took := time.Since(start); took < 200*time.Millisecond {
		t.Errorf("headers came after %v, want 200ms or more", took)
	}
	if lines := readLines(t, resp.Body); len(lines) != 2 {
		t.Errorf("%d lines, want the chunk and done", len(lines))
	}
}

func TestLoadScript(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.json")
	os.WriteFile(path, []byte(`{
		"version": "9.9.9",
		"models": [{"name": "tiny", "context_length": 2048}],
		"replies": [
			{"chunks": [{"content": "one"}], "delay_ms": 1},
			{"tool_calls": [{"id": "c1", "name": "list_dir", "args": {"path": "."}}]}
		],
		"repeat": true
	}`), 0o600)
	f, err := LoadScript(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Replies[1].ToolCalls[0].Args; got != `{"path": "."}` {
		t.Errorf("args written as an object = %q", got)
	}
	os.WriteFile(path, []byte(`{
		"version": "9.9.9",
		"models": [{"name": "tiny", "context_length": 2048}],
		"replies": [
			{"chunks": [{"content": "one"}], "delay_ms": 1},
			{"tool_calls": [{"id": "c1", "name": "list_dir", "args": "{\"path\":\".\"}"}]}
		],
		"repeat": true
	}`), 0o600)
	f, err = LoadScript(path)
	if err != nil {
		t.Fatal(err)
	}
	s := New(t)
	s.Load(f)
	var contents []string
	for range 3 {
		lines := readLines(t, post(t, s.URL(), "/api/chat", chatBody).Body)
		b, _ := json.Marshal(lines[0]["message"])
		contents = append(contents, string(b))
	}
	want := []string{
		`{"content":"one","role":"assistant"}`,
		`{"content":"","role":"assistant","tool_calls":[{"function":{"arguments":{"path":"."},"index":0,"name":"list_dir"},"id":"c1"}]}`,
		`{"content":"one","role":"assistant"}`,
	}
	if strings.Join(contents, "\n") != strings.Join(want, "\n") {
		t.Errorf("repeated script answers:\n%s", strings.Join(contents, "\n"))
	}
	os.WriteFile(path, []byte(`{"models": [], "replies": []}`), 0o600)
	if _, err := LoadScript(path); err == nil {
		t.Error("a script without models loaded")
	}
}
