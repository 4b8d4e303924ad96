package realscenarios_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/testkit/gguf"
	"github.com/loupe-dev/loupe/testkit/realollama"
)

// TestWireMatchesFake sends the same raw HTTP requests to the real server
// and to the fake (ollamatest), the fake scripted to say what the real
// scripted model says, and compares the answers line by line: status,
// content type, and every NDJSON line's fields, with what must vary
// (times, ids, durations, counts) reduced to whether it is there. The
// conformance suite goes through Loupe's client, which only sends
// well-formed requests and merges the lines; this pins the wire itself,
// error wording included, which the client's error mapping depends on.
func TestWireMatchesFake(t *testing.T) {
	realollama.Require(t)
	srv := realollama.Start(t)
	fake := ollamatest.New(t)
	for _, m := range []struct {
		name string
		caps []string
		sc   gguf.Script
	}{
		{"w-text", []string{"completion", "tools", "thinking"}, gguf.Script{Thinking: true, Steps: []gguf.Step{
			{Think: "Five words.", Answer: "Hello there."},
		}}},
		{"w-calls", []string{"completion", "tools"}, gguf.Script{Steps: []gguf.Step{
			{Answer: "Two calls.", Call: []gguf.Call{{Name: "get_time", Args: `{"zone": "UTC"}`}, {Name: "get_time", Args: `{"zone": "CET"}`}}},
		}}},
		{"w-long", []string{"completion", "tools"}, gguf.Script{Steps: []gguf.Step{
			{Answer: "Counting:", Repeat: " and on"},
		}}},
		{"w-plain", []string{"completion"}, gguf.Script{NoTools: true, Steps: []gguf.Step{
			{Answer: "Hi."},
		}}},
	} {
		createModel(t, srv, m.name, m.sc)
		fake.AddModel(ollamatest.ModelSpec{Name: m.name, Capabilities: m.caps, ContextLength: 32768})
	}

	const (
		user  = `"messages":[{"role":"user","content":"Hello?"}]`
		tools = `"tools":[{"type":"function","function":{"name":"get_time","description":"Returns the time.","parameters":{"type":"object","properties":{"zone":{"type":"string"}}}}}]`
	)
	twoCalls := ollamatest.Reply{
		Chunks:    []ollamatest.Chunk{{Content: "Two calls."}},
		ToolCalls: []ollamatest.Call{{Name: "get_time", Args: `{"zone":"UTC"}`}, {Name: "get_time", Args: `{"zone":"CET"}`}},
		// Ollama's tag parser finds each call in its own token, so each
		// comes in its own line.
		SplitToolCalls: true,
	}
	for _, tc := range []struct {
		name, path, body string
		// reply is what the fake is scripted to answer; nil for requests
		// that never reach generation.
		reply *ollamatest.Reply
	}{
		{name: "thinking then text", body: `{"model":"w-text",` + user + `,"think":true}`,
			// Ollama keeps the newline before </think>.
			reply: &ollamatest.Reply{Chunks: []ollamatest.Chunk{{Thinking: "Five words.\n"}, {Content: "Hello there."}}}},
		{name: "text then two calls", body: `{"model":"w-calls",` + user + `,` + tools + `}`, reply: &twoCalls},
		{name: "text then two calls, not streamed", body: `{"model":"w-calls",` + user + `,` + tools + `,"stream":false}`, reply: &twoCalls},
		{name: "cut by num_predict", body: `{"model":"w-long",` + user + `,"options":{"num_predict":3}}`,
			reply: &ollamatest.Reply{Chunks: []ollamatest.Chunk{{Content: "Counting:"}, {Content: " and on"}, {Content: " and on"}}, DoneReason: "length"}},
		{name: "no messages loads the model", body: `{"model":"w-plain","messages":[]}`},
		{name: "empty body", body: ``},
		{name: "cut-off body", body: `{"model":`},
		{name: "no model", body: `{` + user + `}`},
		{name: "unknown model", body: `{"model":"loupe-missing",` + user + `}`},
		{name: "tools to a model without tools", body: `{"model":"w-plain",` + user + `,` + tools + `}`},
		{name: "think to a model without thinking", body: `{"model":"w-plain",` + user + `,"think":true}`},
		{name: "show unknown model", path: "/api/show", body: `{"model":"loupe-missing"}`},
		{name: "show empty body", path: "/api/show", body: ` `},
		{name: "show cut-off body", path: "/api/show", body: `{"model":`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.path
			if path == "" {
				path = "/api/chat"
			}
			if tc.reply != nil {
				fake.Script(*tc.reply)
			}
			real := exchange(t, srv.URL()+path, tc.body)
			fk := exchange(t, fake.URL()+path, tc.body)
			if real != fk {
				t.Errorf("the fake answers differently from real Ollama\nreal: %s\nfake: %s", real, fk)
			}
			if n := fake.Pending(); n != 0 {
				t.Fatalf("the fake did not use its scripted reply (%d left; later cases would get it)", n)
			}
		})
	}
}

// exchange posts body and describes the answer in a form that does not vary
// between runs or servers: status, content type, and each line of the body
// with volatile values replaced by what kind of value they are.
func exchange(t *testing.T, url, body string) string {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s: %v", url, err)
	}
	var out strings.Builder
	out.WriteString(resp.Status + " " + resp.Header.Get("Content-Type"))
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var v any
		if err := json.Unmarshal(line, &v); err != nil {
			out.WriteString("\n  (not JSON) " + string(line))
			continue
		}
		n, _ := json.Marshal(stable("", v))
		out.WriteString("\n  " + string(n))
	}
	return out.String()
}

// stable replaces what varies from run to run, keeping whether it is set.
func stable(key string, v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = stable(k, e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = stable(key, e)
		}
		return x
	case string:
		switch {
		case key == "created_at" && x != "":
			return "<time>"
		case key == "id" && strings.HasPrefix(x, "call_"):
			return "<call id>"
		}
	case float64:
		switch {
		case strings.HasSuffix(key, "_duration") && x > 0:
			return "<duration>"
		case strings.HasSuffix(key, "_count") && x > 0:
			return "<count>"
		}
	}
	return v
}
