package ollama

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/loupe-dev/loupe/backend/llm"
)

// The body is json.Marshal of Ollama's request, byte for byte, whether its
// messages come from the cache or not, as a conversation grows, changes
// (an edited message) and ends.
func TestEncodeChatRequestWithCacheIsMarshal(t *testing.T) {
	think := false
	base := llm.Request{
		Model:   "qwen3:0.6b",
		Options: llm.Options{NumCtx: 8192, Temperature: 0.2},
		Think:   &think,
		Tools: []llm.ToolSpec{{Name: "run_command", Description: "Run <cmd> & see", Parameters: json.RawMessage(
			`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)}},
	}
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: "You are <careful> & brief."}, {Role: llm.RoleUser, Content: "héllo \u2028 \"quoted\""}}
	cache := newMessageCache()
	check := func(step string, r llm.Request) {
		t.Helper()
		want, err := chatRequest(r)
		if err != nil {
			t.Fatal(err)
		}
		wb, _ := json.Marshal(want)
		for name, c := range map[string]*messageCache{"cache": cache, "none": nil} {
			got, err := encodeChatRequest(r, c)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, wb) {
				t.Fatalf("%s, %s: encoded\n%s\nwant\n%s", step, name, got, wb)
			}
		}
	}
	for round := range 40 {
		r := base
		r.Messages = msgs
		check(fmt.Sprintf("round %d", round), r)
		id := fmt.Sprintf("call_%d", round)
		msgs = append(msgs,
			llm.Message{Role: llm.RoleAssistant, Thinking: "t", ToolCalls: []llm.ToolCall{{ID: id, Index: 0, Name: "run_command", Args: json.RawMessage(fmt.Sprintf(` { "command" : "echo %d > out && cat out" , "n": 1.50 }`, round))}}},
			llm.Message{Role: llm.RoleTool, Content: fmt.Sprintf("%d\n", round), ToolCallID: id, ToolName: "run_command"},
		)
		if round == 20 {
			// An edit: a message already sent changes.
			msgs[3].Content = "edited <b>"
			msgs[2].ToolCalls = []llm.ToolCall{{ID: "call_0", Name: "run_command", Args: json.RawMessage(`{"command":"ls"}`)}}
		}
	}
	// No system prompt, no tools, no messages.
	check("empty", llm.Request{Model: "m", Options: llm.Options{NumCtx: 512}})
	// The cache keeps only what recent requests used.
	for range 2 * keepRequests {
		check("other", llm.Request{Model: "m", Options: llm.Options{NumCtx: 512}, Messages: []llm.Message{{Role: llm.RoleUser, Content: "other"}}})
	}
	if n := len(cache.byKey); n != 1 {
		t.Fatalf("%d messages cached after the conversation ended, want only the one still sent", n)
	}
}

// A message that cannot be encoded fails the same way with or without the
// cache, and is not cached.
func TestEncodeChatRequestErrorsWithCache(t *testing.T) {
	r := llm.Request{Model: "m", Options: llm.Options{NumCtx: 512}, Messages: []llm.Message{
		{Role: llm.RoleUser, Content: "x"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c", Name: "t", Args: json.RawMessage(`[1]`)}}},
	}}
	_, want := chatRequest(r)
	cache := newMessageCache()
	for range 2 {
		if _, err := encodeChatRequest(r, cache); err == nil || err.Error() != want.Error() {
			t.Fatalf("err = %v, want %v", err, want)
		}
	}
	if _, err := encodeChatRequest(llm.Request{Options: llm.Options{NumCtx: 512}}, cache); err == nil {
		t.Fatal("a request without a model was encoded")
	}
}

// One client serves every session: the cache is shared safely.
func TestEncodeChatRequestCacheConcurrently(t *testing.T) {
	cache := newMessageCache()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			var msgs []llm.Message
			for i := range 50 {
				msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: fmt.Sprintf("%d/%d", w, i)})
				r := llm.Request{Model: "m", Options: llm.Options{NumCtx: 512}, Messages: msgs}
				want, _ := chatRequest(r)
				wb, _ := json.Marshal(want)
				if got, err := encodeChatRequest(r, cache); err != nil || !bytes.Equal(got, wb) {
					t.Errorf("worker %d request %d: %v", w, i, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// The body Chat streams (its pieces, read a few bytes at a time, and read
// again for a new connection) is the encoded request, and says its length.
func TestChatBodyReadsAsTheEncodedRequest(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7} {
		r := llm.Request{Model: "m", Options: llm.Options{NumCtx: 2048}}
		for i := range n {
			r.Messages = append(r.Messages, llm.Message{Role: llm.RoleUser, Content: fmt.Sprintf("message %d <&>", i)})
		}
		want, err := encodeChatRequest(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := encodeChatBody(r, newMessageCache())
		if err != nil {
			t.Fatal(err)
		}
		if b.size != len(want) {
			t.Fatalf("%d messages: size %d, body %d bytes", n, b.size, len(want))
		}
		var got bytes.Buffer
		buf := make([]byte, 3)
		for {
			k, err := b.Read(buf)
			got.Write(buf[:k])
			if err != nil {
				break
			}
		}
		again, _ := b.again()
		var second bytes.Buffer
		_, _ = second.ReadFrom(again)
		if got.String() != string(want) || second.String() != string(want) {
			t.Fatalf("%d messages: read\n%s\nagain\n%s\nwant\n%s", n, got.String(), second.String(), want)
		}
	}
}

// The header (everything but the messages) comes from the cache when a
// request's is the same as one sent lately: every field it is made of,
// changed in turn, gives that request's own header, as do schemas changed
// in place by the caller after a request and more sessions at once than the
// cache keeps headers.
func TestEncodeChatRequestHeaderFromCache(t *testing.T) {
	yes, no := true, false
	params := func(s string) json.RawMessage {
		return json.RawMessage(`{"type":"object","properties":{"` + s + `":{"type":"string"}}}`)
	}
	base := func() llm.Request {
		return llm.Request{
			Model:    "qwen3:0.6b",
			Options:  llm.Options{NumCtx: 8192, Temperature: 0.2},
			Think:    &no,
			Truncate: &no,
			Tools: []llm.ToolSpec{
				{Name: "read_file", Description: "Read", Parameters: params("path")},
				{Name: "list_dir", Description: "List", Parameters: params("path")},
			},
			Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}},
		}
	}
	variants := map[string]func(*llm.Request){
		"as is":             func(*llm.Request) {},
		"model":             func(r *llm.Request) { r.Model = "qwen3:1.7b" },
		"num_ctx":           func(r *llm.Request) { r.Options.NumCtx = 4096 },
		"temperature":       func(r *llm.Request) { r.Options.Temperature = 0.7 },
		"think on":          func(r *llm.Request) { r.Think = &yes },
		"think unset":       func(r *llm.Request) { r.Think = nil },
		"truncate on":       func(r *llm.Request) { r.Truncate = &yes },
		"truncate unset":    func(r *llm.Request) { r.Truncate = nil },
		"tool name":         func(r *llm.Request) { r.Tools[1].Name = "glob" },
		"tool description":  func(r *llm.Request) { r.Tools[0].Description = "Read a file" },
		"tool parameters":   func(r *llm.Request) { r.Tools[0].Parameters = params("file") },
		"no parameters":     func(r *llm.Request) { r.Tools[0].Parameters = nil },
		"a tool fewer":      func(r *llm.Request) { r.Tools = r.Tools[:1] },
		"a tool more":       func(r *llm.Request) { r.Tools = append(r.Tools, llm.ToolSpec{Name: "grep", Parameters: params("q")}) },
		"tools swapped":     func(r *llm.Request) { r.Tools[0], r.Tools[1] = r.Tools[1], r.Tools[0] },
		"no tools":          func(r *llm.Request) { r.Tools = nil },
		"another user text": func(r *llm.Request) { r.Messages[0].Content = "hello" },
	}
	cache := newMessageCache()
	check := func(step string, r llm.Request) {
		t.Helper()
		want, err := chatRequest(r)
		if err != nil {
			t.Fatal(err)
		}
		wb, _ := json.Marshal(want)
		got, err := encodeChatRequest(r, cache)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, wb) {
			t.Fatalf("%s: encoded\n%s\nwant\n%s", step, got, wb)
		}
	}
	// Twice over, so that each variant is also met when the cache holds it.
	for pass := range 2 {
		for name, edit := range variants {
			r := base()
			edit(&r)
			check(fmt.Sprintf("pass %d, %s", pass, name), r)
			check(fmt.Sprintf("pass %d, %s, then as is", pass, name), base())
		}
	}
	// The caller's schema bytes changed in place after a request.
	r := base()
	r.Options.Temperature = 0.9 // a header not cached before
	check("before the change in place", r)
	copy(r.Tools[0].Parameters[len(`{"type":"object","properties":{"`):], "PATH")
	check("after the change in place", r)
	// More sessions than the cache keeps headers, in turn.
	for round := range 3 {
		for s := range keepHeaders + 3 {
			r := base()
			r.Options.NumCtx = 1024 * (s + 1)
			check(fmt.Sprintf("round %d, session %d", round, s), r)
		}
	}
	if n := len(cache.headers); n > keepHeaders {
		t.Fatalf("%d headers cached, want at most %d", n, keepHeaders)
	}
}

// A request of a conversation going on reads its history's messages in
// place, and hashes only those that are new, however long the history:
// with a few sessions at once, and one of them edited in the middle.
func TestEncodeChatRequestHashesOnlyNewMessages(t *testing.T) {
	cache := newMessageCache()
	const sessions, rounds = 3, 100
	hist := make([][]llm.Message, sessions)
	for s := range hist {
		// The same system prompt in every session: they share its entry.
		hist[s] = []llm.Message{{Role: llm.RoleSystem, Content: "You are careful."}, {Role: llm.RoleUser, Content: fmt.Sprintf("task %d", s)}}
	}
	send := func(s int) {
		t.Helper()
		r := llm.Request{Model: "m", Options: llm.Options{NumCtx: 512}, Messages: hist[s]}
		want, _ := chatRequest(r)
		wb, _ := json.Marshal(want)
		if got, err := encodeChatRequest(r, cache); err != nil || !bytes.Equal(got, wb) {
			t.Fatalf("session %d, %d messages: %v\n%s\nwant\n%s", s, len(hist[s]), err, got, wb)
		}
	}
	added := 0
	for round := range rounds {
		for s := range sessions {
			send(s)
			id := fmt.Sprintf("c%d_%d", s, round)
			hist[s] = append(hist[s],
				llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: id, Name: "list_dir", Args: json.RawMessage(`{"path":"."}`)}}},
				llm.Message{Role: llm.RoleTool, Content: "a\nb\n", ToolCallID: id, ToolName: "list_dir"})
			added += 2
		}
		if round == rounds/2 {
			hist[1][5].Content = "edited"
		}
	}
	// Each message is hashed when first sent, the first request's too;
	// the edit makes its session hash what follows it once more.
	first, edit := sessions*2, len(hist[1])/2
	if limit := first + added + edit; cache.hashed > limit {
		t.Fatalf("%d messages hashed, %d of them new, want at most %d", cache.hashed, first+added, limit)
	}
}

// A BodyEncoder's pieces join to EncodeChatRequest's body, request after
// request, and the messages a request repeats come back as the very
// slices of the request before (what the shared replay counts on to keep
// them by count).
func TestBodyEncoderPiecesAreTheBody(t *testing.T) {
	enc := NewBodyEncoder()
	msgs := []llm.Message{{Role: llm.RoleUser, Content: "list it </script>"}}
	var prev [][]byte
	for round := range 5 {
		r := llm.Request{Model: "m", Options: llm.Options{NumCtx: 512}, Messages: msgs}
		pieces, err := enc.Pieces(r)
		if err != nil {
			t.Fatal(err)
		}
		want, err := EncodeChatRequest(r)
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.Join(pieces, nil); !bytes.Equal(got, want) {
			t.Fatalf("round %d: pieces join to\n%s\nwant\n%s", round, got, want)
		}
		if len(pieces) != 2*len(msgs)+1 {
			t.Fatalf("round %d: %d pieces for %d messages", round, len(pieces), len(msgs))
		}
		for i := 1; i < len(prev)-1; i++ {
			if &pieces[i][0] != &prev[i][0] {
				t.Fatalf("round %d: piece %d was encoded again", round, i)
			}
		}
		prev = pieces
		msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: fmt.Sprintf("answer %d", round)})
	}
}
