package ollama

import (
	"bytes"
	"encoding/json"
	"errors"
	"hash/maphash"
	"sync"

	"github.com/loupe-dev/loupe/backend/llm"
)

// encodeChatRequest is the body of POST /api/chat for r, exactly
// json.Marshal(chatRequest(r)). The messages are encoded one by one and
// put in place of the header's "messages": a message's JSON is the same
// alone as inside the list. With a cache, a message sent before is not
// converted and encoded again: each request of a long conversation costs
// its new messages, not its whole history.
func encodeChatRequest(r llm.Request, cache *messageCache) ([]byte, error) {
	encoded := make([][]byte, len(r.Messages))
	size := 0
	if cache != nil {
		cache.mu.Lock()
		defer cache.mu.Unlock()
		cache.gen++
	}
	for i, m := range r.Messages {
		b, err := cache.encode(i, m)
		if err != nil {
			return nil, err
		}
		encoded[i] = b
		size += len(b) + 1
	}
	cache.sweep()
	req, err := chatHeader(r)
	if err != nil {
		return nil, err
	}
	head, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	// Messages is nil in the header, which encodes as null; the key comes
	// right after the model's name, and no string can hold it unescaped.
	const key = `"messages":null`
	at := bytes.Index(head, []byte(key))
	if at < 0 {
		return nil, errors.New("ollama: encoding the request: no messages field")
	}
	body := make([]byte, 0, len(head)+size+2)
	body = append(body, head[:at]...)
	body = append(body, `"messages":[`...)
	for i, b := range encoded {
		if i > 0 {
			body = append(body, ',')
		}
		body = append(body, b...)
	}
	body = append(body, ']')
	body = append(body, head[at+len(key):]...)
	return body, nil
}

// messageCache keeps the JSON of the messages a client sent lately, found
// by their content. An entry not used by the last keepRequests requests
// is dropped, so the cache holds about the histories of the conversations
// going on (one client serves every session).
type messageCache struct {
	mu    sync.Mutex
	seed  maphash.Seed
	gen   uint64
	byKey map[uint64]*cachedMessage
}

const keepRequests = 16

type cachedMessage struct {
	msg  llm.Message // what was encoded, with its own copy of the arguments
	json []byte
	used uint64
	next *cachedMessage // another message with the same hash
}

func newMessageCache() *messageCache {
	return &messageCache{seed: maphash.MakeSeed(), byKey: map[uint64]*cachedMessage{}}
}

// encode returns message i's JSON, from the cache when it holds the same
// message. A nil cache encodes every time.
func (c *messageCache) encode(i int, m llm.Message) ([]byte, error) {
	if c == nil {
		am, err := apiMessage(i, m)
		if err != nil {
			return nil, err
		}
		return json.Marshal(am)
	}
	k := c.hash(m)
	for e := c.byKey[k]; e != nil; e = e.next {
		if sameMessage(e.msg, m) {
			e.used = c.gen
			return e.json, nil
		}
	}
	am, err := apiMessage(i, m)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(am)
	if err != nil {
		return nil, err
	}
	kept := m
	if len(m.ToolCalls) > 0 {
		kept.ToolCalls = make([]llm.ToolCall, len(m.ToolCalls))
		for j, tc := range m.ToolCalls {
			tc.Args = bytes.Clone(tc.Args)
			kept.ToolCalls[j] = tc
		}
	}
	c.byKey[k] = &cachedMessage{msg: kept, json: b, used: c.gen, next: c.byKey[k]}
	return b, nil
}

// sweep drops, every few requests, the entries no recent request used.
func (c *messageCache) sweep() {
	if c == nil || c.gen%keepRequests != 0 {
		return
	}
	for k, head := range c.byKey {
		var prev *cachedMessage
		for e := head; e != nil; e = e.next {
			switch {
			case c.gen-e.used < keepRequests:
				prev = e
			case prev == nil:
				head = e.next
			default:
				prev.next = e.next
			}
		}
		if head == nil {
			delete(c.byKey, k)
		} else {
			c.byKey[k] = head
		}
	}
}

func (c *messageCache) hash(m llm.Message) uint64 {
	var h maphash.Hash
	h.SetSeed(c.seed)
	for _, s := range []string{m.Role, m.Content, m.Thinking, m.ToolCallID, m.ToolName} {
		h.WriteString(s)
		h.WriteByte(0)
	}
	for _, tc := range m.ToolCalls {
		h.WriteString(tc.ID)
		h.WriteByte(0)
		h.WriteString(tc.Name)
		h.WriteByte(0)
		h.Write(tc.Args)
		h.WriteByte(0)
	}
	return h.Sum64()
}

func sameMessage(a, b llm.Message) bool {
	if a.Role != b.Role || a.Content != b.Content || a.Thinking != b.Thinking || a.ToolCallID != b.ToolCallID ||
		a.ToolName != b.ToolName || len(a.ToolCalls) != len(b.ToolCalls) {
		return false
	}
	for i, x := range a.ToolCalls {
		y := b.ToolCalls[i]
		if x.ID != y.ID || x.Index != y.Index || x.Name != y.Name || !bytes.Equal(x.Args, y.Args) {
			return false
		}
	}
	return true
}
