package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
)

// This file is the -rounds mode: conversations of N rounds, answered at
// once, however long their history.

// roundsModel is the model -rounds installs when there is no script.
var roundsModel = ollamatest.ModelSpec{Name: "tiny", Family: "qwen3", ContextLength: 8192,
	Capabilities: []string{"completion", "tools"}}

// A history the fake does not need to read is replaced, before the fake
// decodes the request, by one message that says what the reply depends on:
// how many answers of the model it held and how long the body was. So the
// fake's own work per request does not grow with the conversation.
const marker = "fakeollama -rounds: answered=%d bytes=%d"

// roundsReply is the answer to a request of a conversation of n rounds:
// calls list_dir calls at once ("." and "./" in turn, each call of a round
// a different spelling of the folder) while the history holds fewer than
// n-1 answers of the model, then the final text.
//
// With envEvery k > 0, every k-th round's last call writes .env instead, a
// path Loupe protects: a long session with denials in it.
func roundsReply(req ollamatest.ChatRequest, n, calls, envEvery int) ollamatest.Reply {
	answered, size := -1, 0
	if len(req.Messages) == 1 {
		if k, _ := fmt.Sscanf(req.Messages[0].Content, marker, &answered, &size); k != 2 {
			answered = -1
		}
	}
	if answered < 0 { // not a reshaped request: count in its history
		answered = 0
		for _, m := range req.Messages {
			if m.Role == "assistant" {
				answered++
			}
		}
	}
	var r ollamatest.Reply
	if answered+1 < n {
		for j := range max(calls, 1) {
			path := "." + strings.Repeat("/.", j)
			if answered%2 == 1 {
				path += "/"
			}
			r.ToolCalls = append(r.ToolCalls, ollamatest.Call{Name: "list_dir", Args: fmt.Sprintf(`{"path":%q}`, path)})
		}
		if envEvery > 0 && (answered+1)%envEvery == 0 {
			r.ToolCalls[len(r.ToolCalls)-1] = ollamatest.Call{Name: "write_file", Args: `{"path":".env","content":"TOKEN=1"}`}
		}
	} else {
		r = ollamatest.Text("Listed the folder ", fmt.Sprintf("%d times.", answered))
	}
	if size > 0 {
		// The metrics the fake would derive from the body it was sent.
		// Below the request's num_ctx: the history is never read, so no
		// prompt is cut here, and a client must not be told it was.
		prompt := min(max(1, size/4), req.NumCtx(roundsModel.ContextLength)-1)
		m := ollamatest.Metrics{LoadDuration: time.Millisecond, PromptEvalCount: prompt,
			PromptEvalDuration: 2 * time.Millisecond, EvalCount: max(1, len(r.Chunks)+len(r.ToolCalls))}
		m.EvalDuration = time.Duration(m.EvalCount) * time.Millisecond
		m.TotalDuration = m.LoadDuration + m.PromptEvalDuration + m.EvalDuration + time.Millisecond
		r.Metrics = &m
	}
	return r
}

// roundsResponder answers with roundsReply and forgets each request once
// it is answered.
func roundsResponder(srv *ollamatest.Server, n, calls, envEvery int) func(ollamatest.ChatRequest) ollamatest.Reply {
	return func(req ollamatest.ChatRequest) ollamatest.Reply {
		srv.ForgetRequests()
		return roundsReply(req, n, calls, envEvery)
	}
}

// reshape wraps the fake's handler: each /api/chat body is saved (the first
// with tools, when save is set) and its messages replaced by the marker.
// A body it cannot read goes to the fake unchanged, which answers it as
// Ollama would.
func reshape(save string) func(http.Handler) http.Handler {
	var once sync.Once
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost || r.URL.Path != "/api/chat" {
				next.ServeHTTP(w, r)
				return
			}
			// Sized from Content-Length: a long history is read in one go.
			buf := bytes.NewBuffer(make([]byte, 0, max(r.ContentLength, 0)+bytes.MinRead))
			if _, err := buf.ReadFrom(r.Body); err != nil {
				return
			}
			body := buf.Bytes()
			if small, hasTools, ok := compact(body); ok {
				if save != "" && hasTools {
					once.Do(func() {
						if err := os.WriteFile(save, body, 0o644); err != nil {
							fmt.Fprintln(os.Stderr, "fakeollama: -save-request:", err)
						}
					})
				}
				body = small
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
			next.ServeHTTP(w, r)
		})
	}
}

// compact returns body with its top-level "messages" array replaced by the
// marker message, and whether the request has tools. It reads only the top
// level of the object and jumps over strings, so it costs far less than
// decoding.
func compact(body []byte) (small []byte, hasTools, ok bool) {
	i := skipSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return nil, false, false
	}
	i++
	msgStart, msgEnd, answered := -1, -1, 0
	for {
		i = skipSpace(body, i)
		if i < len(body) && body[i] == '}' {
			break
		}
		if i >= len(body) || body[i] != '"' {
			return nil, false, false
		}
		keyEnd := stringEnd(body, i)
		if keyEnd < 0 {
			return nil, false, false
		}
		key := string(body[i+1 : keyEnd-1])
		i = skipSpace(body, keyEnd)
		if i >= len(body) || body[i] != ':' {
			return nil, false, false
		}
		i = skipSpace(body, i+1)
		var count *int
		if key == "messages" {
			count = &answered
		}
		end := valueEnd(body, i, count)
		if end < 0 {
			return nil, false, false
		}
		switch key {
		case "messages":
			msgStart, msgEnd = i, end
		case "tools":
			v := bytes.TrimSpace(body[i:end])
			hasTools = len(v) > 2 && v[0] == '['
		}
		i = skipSpace(body, end)
		if i < len(body) && body[i] == ',' {
			i++
		}
	}
	if msgStart < 0 || body[msgStart] != '[' || msgEnd-msgStart <= 2 {
		return nil, false, false // no history: let the fake answer as Ollama does
	}
	var b bytes.Buffer
	b.Grow(len(body) - (msgEnd - msgStart) + 100)
	b.Write(body[:msgStart])
	fmt.Fprintf(&b, `[{"role":"user","content":"`+marker+`"}]`, answered, len(body))
	b.Write(body[msgEnd:])
	return b.Bytes(), hasTools, true
}

// skipSpace returns the index of the first byte from b[i] on that is not
// white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just past the JSON string starting at b[i],
// or -1.
func stringEnd(b []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		n := 0 // backslashes before the quote
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
		j++
	}
}

// valueEnd returns the index just past the JSON value starting at b[i],
// or -1. With assistants set, it counts there the "role": "assistant"
// pairs in the value: the answers of the model, in a messages array. (A
// tool call's arguments holding that pair would count too; the fake's own
// calls never do.)
func valueEnd(b []byte, i int, assistants *int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '[', '{':
	default: // number, true, false, null
		for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' {
			i++
		}
		return i
	}
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			j := stringEnd(b, i)
			if j < 0 {
				return -1
			}
			if assistants != nil && j-i == len(`"assistant"`) && string(b[i:j]) == `"assistant"` && afterRole(b, i) {
				*assistants++
			}
			i = j
			continue
		case '[', '{':
			depth++
		case ']', '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
		i++
	}
	return -1
}

// afterRole reports whether the string starting at b[i] is the value of a
// "role" key: `"role"`, a colon and spaces come right before it.
func afterRole(b []byte, i int) bool {
	k := spaceBefore(b, i)
	if k < 0 || b[k] != ':' {
		return false
	}
	k = spaceBefore(b, k)
	const key = `"role"`
	start := k + 1 - len(key)
	return start >= 0 && string(b[start:k+1]) == key && (start == 0 || b[start-1] != '\\')
}

// spaceBefore returns the index of the last byte before b[i] that is not
// white space, or -1.
func spaceBefore(b []byte, i int) int {
	k := i - 1
	for k >= 0 && (b[k] == ' ' || b[k] == '\t' || b[k] == '\n' || b[k] == '\r') {
		k--
	}
	return k
}
