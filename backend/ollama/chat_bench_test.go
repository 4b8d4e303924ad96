package ollama

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
)

// apiClientChat is Chat as it was when it streamed through api.Client.Chat
// (which allocates an 8 MB line buffer per request). It is kept here only
// as the peer BenchmarkChat measures Chat against, and as the reference
// TestChatMatchesAPIClient holds Chat's errors to.
type apiClientChat struct {
	c   *Client // for classify
	api *api.Client
}

func newAPIClientChat(host string) *apiClientChat {
	c := New(host, nil)
	t := http.DefaultTransport.(*http.Transport).Clone()
	// The old client wrapped its transport to see the status of a streamed
	// answer, which api.Client drops when an error status has no body.
	hc := &http.Client{Transport: statusRecorder{base: t}}
	return &apiClientChat{c: c, api: api.NewClient(c.at().base, hc)}
}

type exchangeKey struct{}

type exchange struct{ status int }

type statusRecorder struct{ base http.RoundTripper }

func (r statusRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.base.RoundTrip(req)
	if ex, ok := req.Context().Value(exchangeKey{}).(*exchange); ok && resp != nil {
		ex.status = resp.StatusCode
	}
	return resp, err
}

func (o *apiClientChat) Chat(ctx context.Context, r llm.Request, onChunk func(llm.Chunk)) (llm.Response, error) {
	req, err := chatRequest(r)
	if err != nil {
		return llm.Response{}, err
	}
	ex := &exchange{}
	a := &assembly{start: time.Now()}
	err = o.api.Chat(context.WithValue(ctx, exchangeKey{}, ex), req, func(cr api.ChatResponse) error {
		a.add(cr, onChunk)
		return nil
	})
	resp, aerr := a.response()
	switch {
	case a.done:
		return resp, aerr
	case ctx.Err() != nil:
		return resp, fmt.Errorf("ollama: the request to the model stopped: %w", ctx.Err())
	case err != nil:
		var se api.StatusError
		if ex.status > 0 && ex.status < http.StatusBadRequest && !errors.As(err, &se) {
			return resp, &StreamError{Message: err.Error(), Err: err}
		}
		return resp, o.c.at().classify(err, r.Model)
	case ex.status >= http.StatusBadRequest:
		return resp, &StatusError{Code: ex.status}
	case aerr != nil:
		return resp, aerr
	}
	// How a stream that ended without its done line is named is Chat's
	// own reading, on top of either path.
	return resp, &StreamError{Ended: true}
}

// benchRequest is a request the size of an agent's first round: a system
// prompt, a user message and a few tool schemas.
func benchRequest(model string) llm.Request {
	schema := func(props ...string) []byte {
		var b strings.Builder
		b.WriteString(`{"type":"object","properties":{`)
		for i, p := range props {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `%q:{"type":"string","description":"The %s."}`, p, p)
		}
		fmt.Fprintf(&b, `},"required":[%q]}`, props[0])
		return []byte(b.String())
	}
	return llm.Request{
		Model: model,
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: strings.Repeat("You are a careful coding agent working in the user's workspace. ", 40)},
			{Role: llm.RoleUser, Content: "The tests in ./parser fail since yesterday's change; find out why and fix it."},
		},
		Tools: []llm.ToolSpec{
			{Name: "read_file", Description: "Read a file of the workspace.", Parameters: schema("path", "offset", "limit")},
			{Name: "edit_file", Description: "Replace text in a file.", Parameters: schema("path", "old_string", "new_string")},
			{Name: "grep", Description: "Search files for a pattern.", Parameters: schema("pattern", "path", "include")},
			{Name: "run_command", Description: "Run a shell command.", Parameters: schema("command", "timeout_ms")},
		},
		Options: llm.Options{NumCtx: 8192, Temperature: 0.2},
	}
}

// benchReply is n streamed content lines then a final line, as Ollama
// writes them, and the content they add up to.
func benchReply(model string, n int) (lines []string, content string) {
	words := []string{" The", " parser", " fails", " because", " the", " tokenizer", " now", " skips", " trailing", " whitespace", ".\n"}
	t := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	var all strings.Builder
	for i := range n {
		w := words[i%len(words)]
		all.WriteString(w)
		q := strings.ReplaceAll(w, "\n", `\n`)
		lines = append(lines, fmt.Sprintf(`{"model":%q,"created_at":%q,"message":{"role":"assistant","content":"%s"},"done":false}`,
			model, t.Add(time.Duration(i)*20*time.Millisecond).Format(time.RFC3339Nano), q))
	}
	lines = append(lines, fmt.Sprintf(`{"model":%q,"created_at":%q,"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop",`+
		`"total_duration":4811203456,"load_duration":51234567,"prompt_eval_count":1312,"prompt_eval_duration":612345678,"eval_count":%d,"eval_duration":4012345678}`,
		model, t.Add(time.Duration(n)*20*time.Millisecond).Format(time.RFC3339Nano), n))
	return lines, all.String()
}

// BenchmarkChat compares Chat with the api.Client path it replaced, on the
// same fake server and the same answer (200 content lines and a final
// line). Allocations are the whole process's, so the fake server's are in
// both.
func BenchmarkChat(b *testing.B) {
	const model = "qwen3:0.6b"
	srv := ollamatest.New(b)
	srv.AddModel(ollamatest.ModelSpec{Name: model, Family: "qwen3", ContextLength: 40960, Capabilities: []string{"completion", "tools"}})
	lines, content := benchReply(model, 200)
	srv.Respond(func(ollamatest.ChatRequest) ollamatest.Reply { return ollamatest.Reply{RawLines: lines} })
	req := benchRequest(model)

	peers := []struct {
		name string
		chat func(context.Context, llm.Request, func(llm.Chunk)) (llm.Response, error)
	}{
		{"via=api.Client", newAPIClientChat(srv.URL()).Chat},
		{"via=loupe", New(srv.URL(), nil).Chat},
	}
	for _, p := range peers {
		b.Run(p.name, func(b *testing.B) {
			b.ReportAllocs()
			ctx := context.Background()
			for b.Loop() {
				deltas := 0
				resp, err := p.chat(ctx, req, func(llm.Chunk) { deltas++ })
				if err != nil {
					b.Fatal(err)
				}
				if !resp.Complete() || deltas != 200 || resp.Message.Content != content {
					b.Fatalf("answer: complete %v, %d deltas, %d bytes of content", resp.Complete(), deltas, len(resp.Message.Content))
				}
			}
		})
	}
}
