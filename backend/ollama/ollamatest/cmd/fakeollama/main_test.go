package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
)

// The example script shipped beside the command must stay loadable.
func TestExampleScriptLoads(t *testing.T) {
	f, err := ollamatest.LoadScript("testdata/hello.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Models) != 1 || len(f.Replies) != 2 || f.Replies[1].DelayMS != 30 ||
		f.Replies[0].ToolCalls[0].Args != `{"path": "."}` {
		t.Errorf("loaded %+v", f)
	}
}

// chatLine is what the rounds test reads of a streamed answer.
type chatLine struct {
	Message         ollamatest.Message `json:"message"`
	Done            bool               `json:"done"`
	PromptEvalCount int                `json:"prompt_eval_count"`
}

// chat sends one streamed request and joins its lines into one message.
func chat(t *testing.T, url string, body []byte) (ollamatest.Message, chatLine) {
	t.Helper()
	resp, err := http.Post(url+"/api/chat", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var msg ollamatest.Message
	var last chatLine
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		var l chatLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		msg.Content += l.Message.Content
		msg.ToolCalls = append(msg.ToolCalls, l.Message.ToolCalls...)
		last = l
	}
	if !last.Done {
		t.Fatal("the stream has no done line")
	}
	msg.Role = "assistant"
	return msg, last
}

func startRounds(t *testing.T, n int, save string) *ollamatest.Server {
	srv, err := ollamatest.StartWrapped("127.0.0.1:0", reshape(save))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	srv.AddModel(roundsModel)
	srv.Respond(roundsResponder(srv, n, 1, 0))
	return srv
}

// Two conversations of 3 rounds each, interleaved, one sent compact and one
// indented: each gets two list_dir calls (of "." and "./", so that they do
// not repeat) and then a text answer; the metrics follow the size of the
// body sent; the first request with tools is saved byte for byte; no
// request is kept.
func TestRoundsAnswersConversationsOfNRounds(t *testing.T) {
	save := filepath.Join(t.TempDir(), "request.json")
	srv := startRounds(t, 3, save)

	tools := []ollamatest.Tool{{Type: "function", Function: ollamatest.ToolFunction{Name: "list_dir", Parameters: json.RawMessage(`{"type":"object"}`)}}}
	convs := make([]ollamatest.ChatRequest, 2)
	for i := range convs {
		convs[i] = ollamatest.ChatRequest{Model: "tiny", Tools: tools, Options: map[string]any{"num_ctx": 8192},
			Messages: []ollamatest.Message{{Role: "system", Content: `be "brief" ]}`}, {Role: "user", Content: "list"}}}
	}
	encode := []func(any) ([]byte, error){json.Marshal, func(v any) ([]byte, error) { return json.MarshalIndent(v, "", "  ") }}
	paths := []string{`{"path":"."}`, `{"path":"./"}`}
	var first []byte
	for round := 1; round <= 3; round++ {
		for i := range convs {
			body, err := encode[i](convs[i])
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = body
			}
			msg, done := chat(t, srv.URL(), body)
			if round < 3 {
				if len(msg.ToolCalls) != 1 || msg.ToolCalls[0].Function.Name != "list_dir" ||
					string(msg.ToolCalls[0].Function.Arguments) != paths[round-1] || msg.ToolCalls[0].ID == "" {
					t.Fatalf("round %d of conversation %d: %+v", round, i, msg)
				}
			} else if len(msg.ToolCalls) != 0 || msg.Content != "Listed the folder 2 times." {
				t.Fatalf("last round of conversation %d: %+v", i, msg)
			}
			if done.PromptEvalCount != len(body)/4 {
				t.Errorf("prompt_eval_count %d for a body of %d bytes", done.PromptEvalCount, len(body))
			}
			convs[i].Messages = append(convs[i].Messages, msg,
				ollamatest.Message{Role: "tool", Content: "a.txt\n\"quoted\" [x]\n", ToolName: "list_dir"})
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the fake kept %d requests", n)
	}
	if b, err := os.ReadFile(save); err != nil || !bytes.Equal(b, first) {
		t.Fatalf("saved request %s (%v), want %s", b, err, first)
	}
}

// What the fake checks still holds for a reshaped request, and a request it
// cannot reshape is answered as the fake always does.
func TestRoundsKeepsTheFakesChecks(t *testing.T) {
	srv := startRounds(t, 2, "")
	post := func(body string) (int, string) {
		resp, err := http.Post(srv.URL()+"/api/chat", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, c := range []struct{ body, want string }{
		{`{"model":"nope","messages":[{"role":"user","content":"hi"}]}`, `model 'nope' not found`},
		{`{"model":"tiny","messages":[{"role":"user","content":"hi"}],"think":true}`, `does not support thinking`},
		{`{"model":"tiny","messages":[{"role":"user","content":"hi"}`, `unexpected EOF`},
		{`{"model":"tiny","messages":[]}`, `"done_reason":"load"`},
		{`{"model":"tiny","messages":[{"role":"user","content":"hi"}],"stream":false}`, `"tool_calls"`},
	} {
		if _, got := post(c.body); !strings.Contains(got, c.want) {
			t.Errorf("%s: got %s, want %s", c.body, got, c.want)
		}
	}
}

func TestCompact(t *testing.T) {
	for _, c := range []struct {
		body     string
		ok       bool
		answered int
		tools    bool
	}{
		{`{"model":"m","messages":[{"role":"user","content":"x"}]}`, true, 0, false},
		{`{"messages":[{"role":"assistant","content":"a \"role\":\"assistant\" ]}"},{"role": "assistant"}],"tools":[{"type":"function"}],"model":"m"}`, true, 2, true},
		{` { "model" : "m" , "messages" : [ {"role":"tool","content":"[{"} ] , "tools" : null } `, true, 0, false},
		{`{"model":"m","messages":[{"role":"tool","content":"assistant","assistant":"role"},{"role":1,"x":"assistant"}]}`, true, 0, false},
		{`{"model":"m","messages":[]}`, false, 0, false},
		{`{"model":"m"}`, false, 0, false},
		{`[1,2]`, false, 0, false},
		{`{"model":"m","messages":[{"role":"user"`, false, 0, false},
	} {
		small, tools, ok := compact([]byte(c.body))
		if ok != c.ok || tools != c.tools {
			t.Errorf("%s: ok %v tools %v", c.body, ok, tools)
			continue
		}
		if !ok {
			continue
		}
		var req ollamatest.ChatRequest
		if err := json.Unmarshal(small, &req); err != nil || req.Model != "m" || len(req.Messages) != 1 {
			t.Errorf("%s: compact %s (%v)", c.body, small, err)
			continue
		}
		want := fmt.Sprintf(marker, c.answered, len(c.body))
		if req.Messages[0].Content != want {
			t.Errorf("%s: marker %q, want %q", c.body, req.Messages[0].Content, want)
		}
	}
}

// One round is a text answer at once.
func TestOneRoundIsAnAnswer(t *testing.T) {
	r := roundsReply(ollamatest.ChatRequest{Messages: []ollamatest.Message{{Role: "user", Content: "hi"}}}, 1, 1, 0)
	if len(r.ToolCalls) != 0 || len(r.Chunks) == 0 {
		t.Fatalf("reply %+v", r)
	}
}

// With -calls 3 a round asks for three list_dir calls at once, each a
// different spelling of the folder, and the next round for three others:
// the same folder, never the same call twice in a row.
func TestRoundsAsksForParallelCalls(t *testing.T) {
	req := func(answered int) ollamatest.ChatRequest {
		return ollamatest.ChatRequest{Messages: []ollamatest.Message{{Role: "user", Content: fmt.Sprintf(marker, answered, 100)}}}
	}
	seen := map[string]bool{}
	for answered := range 2 {
		r := roundsReply(req(answered), 10, 3, 0)
		if len(r.ToolCalls) != 3 {
			t.Fatalf("round %d: %d calls, want 3", answered+1, len(r.ToolCalls))
		}
		for _, c := range r.ToolCalls {
			if c.Name != "list_dir" || seen[c.Args] {
				t.Fatalf("round %d: call %s %s repeats or is not list_dir", answered+1, c.Name, c.Args)
			}
			seen[c.Args] = true
		}
	}
	if r := roundsReply(req(3), 10, 3, 4); r.ToolCalls[2].Name != "write_file" || r.ToolCalls[1].Name != "list_dir" {
		t.Fatalf("round 4 with -env-every 4: %+v, want its last call to write .env", r.ToolCalls)
	}
	if r := roundsReply(req(9), 10, 3, 0); len(r.ToolCalls) != 0 {
		t.Fatalf("the last round asks for %d calls, want the text answer", len(r.ToolCalls))
	}
}
