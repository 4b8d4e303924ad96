package ollama

import (
	"bytes"
	"encoding/json"
	"errors"
	"hash/maphash"
	"io"
	"sync"

	"github.com/ollama/ollama/api"

	"github.com/loupe-dev/loupe/backend/llm"
)

// encodeChatRequest is the body of POST /api/chat for r, exactly
// json.Marshal(chatRequest(r)).
func encodeChatRequest(r llm.Request, cache *messageCache) ([]byte, error) {
	b, err := encodeChatBody(r, cache)
	if err != nil {
		return nil, err
	}
	return b.bytes(), nil
}

// bytes joins the body's pieces.
func (b *chatBody) bytes() []byte {
	out := make([]byte, 0, b.size)
	for _, p := range b.pieces() {
		out = append(out, p...)
	}
	return out
}

// chatBody is the body of POST /api/chat kept as the pieces it is made of:
// the header before and after the messages, and each message's JSON. The
// messages are encoded one by one and put in place of the header's
// "messages": a message's JSON is the same alone as inside the list. With
// a cache, a message sent before is not converted and encoded again, and
// sending the body writes the pieces as they are: a request of a long
// conversation costs its new messages, not a copy of its whole history.
type chatBody struct {
	head, tail []byte
	msgs       [][]byte
	size       int
	// at is where Read stands: piece at, byte off of it.
	at, off int
}

func encodeChatBody(r llm.Request, cache *messageCache) (*chatBody, error) {
	return encodeChatBodyWith(r, cache, nil)
}

// encodeChatBodyWith is encodeChatBody with edit (when not nil) applied to
// the request's header before it is encoded: Render asks for a rendering
// instead of an answer that way, with the same bytes for everything else.
func encodeChatBodyWith(r llm.Request, cache *messageCache, edit func(*api.ChatRequest)) (*chatBody, error) {
	// One list the length of the history per request, of pointers to
	// the messages' JSON; the JSON itself is the cache's.
	b := &chatBody{msgs: make([][]byte, 0, len(r.Messages))}
	fail := func(err error) (*chatBody, error) { return nil, err }
	if cache != nil {
		cache.mu.Lock()
		defer cache.mu.Unlock()
		cache.gen++
	}
	// A conversation's request starts with the messages of its previous
	// one: those are compared in place, and only the rest are looked up
	// by hash, which reads every byte of a message.
	prev, at := cache.conversation(r.Messages)
	var sent []*cachedMessage
	if cache != nil {
		sent = make([]*cachedMessage, 0, len(r.Messages))
	}
	for i, m := range r.Messages {
		var e *cachedMessage
		if i < len(prev) && sameMessage(prev[i].msg, m) {
			e = prev[i]
			e.used = cache.gen
		} else {
			prev = nil
			var err error
			if e, err = cache.encode(i, m); err != nil {
				return fail(err)
			}
		}
		if cache != nil {
			sent = append(sent, e)
		}
		b.msgs = append(b.msgs, e.json)
		b.size += len(e.json) + 1
	}
	cache.remember(at, sent)
	cache.sweep()
	var err error
	if edit == nil {
		b.head, b.tail, err = cache.header(r)
	} else {
		b.head, b.tail, err = encodeHeader(r, edit)
	}
	if err != nil {
		return fail(err)
	}
	if len(b.msgs) == 0 {
		b.size++ // the "]" counted as no message's comma
	}
	b.size += len(b.head) + len(b.tail) - 1
	return b, nil
}

// encodeHeader is the JSON of everything of r but its messages, cut where
// the messages go: head ends with `"messages":[`, tail starts with `]`.
func encodeHeader(r llm.Request, edit func(*api.ChatRequest)) (head, tail []byte, err error) {
	req, err := chatHeader(r)
	if err != nil {
		return nil, nil, err
	}
	if edit != nil {
		edit(req)
	}
	j, err := json.Marshal(req)
	if err != nil {
		return nil, nil, err
	}
	// Messages is nil in the header, which encodes as null; the key comes
	// right after the model's name, and no string can hold it unescaped.
	const key = `"messages":null`
	at := bytes.Index(j, []byte(key))
	if at < 0 {
		return nil, nil, errors.New("ollama: encoding the request: no messages field")
	}
	head = append(j[:at:at], `"messages":[`...)
	tail = append([]byte{']'}, j[at+len(key):]...)
	return head, tail, nil
}

var comma = []byte{','}

// pieces lists the body's bytes in order, commas included.
func (b *chatBody) pieces() [][]byte {
	out := make([][]byte, 0, 2*len(b.msgs)+2)
	out = append(out, b.head)
	for i, m := range b.msgs {
		if i > 0 {
			out = append(out, comma)
		}
		out = append(out, m)
	}
	return append(out, b.tail)
}

// piece is the body's piece n in order (head, message, comma, message…,
// tail), or nil past the end.
func (b *chatBody) piece(n int) []byte {
	msgs := b.msgs
	switch {
	case n == 0:
		return b.head
	case len(msgs) == 0 && n == 1, n == 2*len(msgs):
		return b.tail
	case n > 2*len(msgs):
		return nil
	case n%2 == 0:
		return comma
	}
	return msgs[n/2]
}

// Read writes the pieces in order.
func (b *chatBody) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		cur := b.piece(b.at)
		if cur == nil {
			if n == 0 {
				return 0, io.EOF
			}
			break
		}
		c := copy(p[n:], cur[b.off:])
		n += c
		b.off += c
		if b.off == len(cur) {
			b.at, b.off = b.at+1, 0
		}
	}
	return n, nil
}

// again is the same body from its start, for the HTTP transport to send
// again on a new connection (http.Request.GetBody): the pieces do not
// change.
func (b *chatBody) again() (io.ReadCloser, error) {
	return io.NopCloser(&chatBody{head: b.head, tail: b.tail, msgs: b.msgs, size: b.size}), nil
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
	// hashed counts the messages hashed, for a test that counts work.
	hashed int
	// conversations are the messages of the last few requests, newest
	// first, as they were found or put in byKey.
	conversations [][]*cachedMessage
	// headers are the last few headers encoded, newest first. A session's
	// header (model, options, the tools' schemas) is the same request
	// after request; converting the schemas to Ollama's types and encoding
	// them again each round cost more than the messages.
	headers []cachedHeader
}

// keepHeaders is how many headers the cache keeps, and conversations:
// about one per session going on.
const keepHeaders = 8

// conversation is the recent request whose messages msgs starts with
// (the one with the most of them in common at its start), or nil; at is
// its place in conversations when msgs continues it whole (-1 if none).
func (c *messageCache) conversation(msgs []llm.Message) (best []*cachedMessage, at int) {
	at = -1
	if c == nil {
		return nil, at
	}
	for i, conv := range c.conversations {
		n := 0
		for n < len(conv) && n < len(msgs) && sameMessage(conv[n].msg, msgs[n]) {
			n++
		}
		if n > len(best) {
			best = conv[:n]
		}
		if n == len(conv) {
			return best, i // the whole previous request: the usual next round
		}
	}
	return best, at
}

// remember keeps msgs, the entries of a request just encoded, as the
// newest conversation: in place of the one at (the one it continues), or
// of the oldest.
func (c *messageCache) remember(at int, msgs []*cachedMessage) {
	if c == nil || len(msgs) == 0 {
		return
	}
	if at < 0 {
		if len(c.conversations) < keepHeaders {
			c.conversations = append(c.conversations, nil)
		}
		at = len(c.conversations) - 1
	}
	copy(c.conversations[1:at+1], c.conversations[:at])
	c.conversations[0] = msgs
}

type cachedHeader struct {
	req        llm.Request // without messages; its own copy of the schemas
	head, tail []byte
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

// encode returns message i's entry (its JSON), from the cache when it
// holds the same message. A nil cache encodes every time.
func (c *messageCache) encode(i int, m llm.Message) (*cachedMessage, error) {
	if c == nil {
		am, err := apiMessage(i, m)
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(am)
		if err != nil {
			return nil, err
		}
		return &cachedMessage{json: b}, nil
	}
	k := c.hash(m)
	for e := c.byKey[k]; e != nil; e = e.next {
		if sameMessage(e.msg, m) {
			e.used = c.gen
			return e, nil
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
	e := &cachedMessage{msg: kept, json: b, used: c.gen, next: c.byKey[k]}
	c.byKey[k] = e
	return e, nil
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
	c.hashed++
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

// header returns the header of r (encodeHeader without an edit), from the
// cache when it encoded the same one lately. A nil cache encodes every
// time. The pieces returned are never written to.
func (c *messageCache) header(r llm.Request) (head, tail []byte, err error) {
	if c == nil {
		return encodeHeader(r, nil)
	}
	for i, h := range c.headers {
		if sameHeader(h.req, r) {
			copy(c.headers[1:i+1], c.headers[:i])
			c.headers[0] = h
			return h.head, h.tail, nil
		}
	}
	head, tail, err = encodeHeader(r, nil)
	if err != nil {
		return nil, nil, err
	}
	kept := r
	kept.Messages = nil
	kept.Think, kept.Truncate = clonePtr(r.Think), clonePtr(r.Truncate)
	kept.Tools = make([]llm.ToolSpec, len(r.Tools))
	for i, t := range r.Tools {
		t.Parameters = bytes.Clone(t.Parameters)
		kept.Tools[i] = t
	}
	if len(c.headers) < keepHeaders {
		c.headers = append(c.headers, cachedHeader{})
	}
	copy(c.headers[1:], c.headers[:len(c.headers)-1])
	c.headers[0] = cachedHeader{req: kept, head: head, tail: tail}
	return head, tail, nil
}

// sameHeader says whether a and b have the same header: everything
// chatHeader reads.
func sameHeader(a, b llm.Request) bool {
	if a.Model != b.Model || a.Options != b.Options || !samePtr(a.Think, b.Think) ||
		!samePtr(a.Truncate, b.Truncate) || len(a.Tools) != len(b.Tools) {
		return false
	}
	for i, t := range a.Tools {
		u := b.Tools[i]
		if t.Name != u.Name || t.Description != u.Description || !bytes.Equal(t.Parameters, u.Parameters) {
			return false
		}
	}
	return true
}

func samePtr(a, b *bool) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

func clonePtr(p *bool) *bool {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// A BodyEncoder writes the request bodies of one conversation in turn, as
// EncodeChatRequest writes each, keeping the JSON of the messages it
// encoded (as a client keeps what it sent): a request that repeats the
// messages of the one before costs only its new ones. Not for use by more
// than one goroutine at a time.
type BodyEncoder struct{ cache *messageCache }

// NewBodyEncoder is a BodyEncoder that has encoded nothing yet.
func NewBodyEncoder() *BodyEncoder { return &BodyEncoder{cache: newMessageCache()} }

// Pieces is the body of r as the pieces it is made of: the header up to
// the messages, each message's JSON, the commas between them and the rest
// of the header; joined, they are EncodeChatRequest(r). A message encoded
// for an earlier request is the same slice again.
func (e *BodyEncoder) Pieces(r llm.Request) ([][]byte, error) {
	b, err := encodeChatBody(r, e.cache)
	if err != nil {
		return nil, err
	}
	return b.pieces(), nil
}
