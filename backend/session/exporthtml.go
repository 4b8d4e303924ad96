package session

// The shared replay: a session exported as one HTML file that replays it
// with the window's own components (package viewer holds the page).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/backend/viewer"
)

// RawBodies is every request body of a session, as the shared replay embeds
// it: what RawRequest returns for each model_request, which a page opened
// from disk cannot ask Go for. A request repeats the messages of the one
// before it, so each body is kept as a list of pieces (its header, each
// message's JSON, the commas between them, its tail), each piece once in
// Pieces, and each list as the first Keep entries of the list of the
// request before it plus Add: the file grows with the conversation, not
// with its square.
type RawBodies struct {
	Pieces []string `json:"pieces"`
	// Bodies by the request's seq, in seq order.
	Bodies []RawBody `json:"bodies"`
}

// RawBody is one request's body in RawBodies, or why it cannot be rebuilt.
type RawBody struct {
	Seq int64 `json:"seq"`
	// Keep is how many pieces of the previous body's list this one starts with.
	Keep  int    `json:"keep"`
	Add   []int  `json:"add"`
	Error string `json:"error,omitempty"`
}

// exportHTML writes the shared replay of session id: the page with the
// session's JSON export (the same bytes `--format json` writes) and its
// request bodies embedded.
func exportHTML(ctx context.Context, st *store.Store, id string, w io.Writer) error {
	// Before reading anything: a binary without the page says so at once.
	if err := viewer.Built(); err != nil {
		return err
	}
	var js bytes.Buffer
	if err := Export(ctx, st, id, "json", &js); err != nil {
		return err
	}
	s, err := st.GetSession(ctx, id)
	if err != nil {
		return err
	}
	evs, err := st.Events(ctx, id)
	if err != nil {
		return err
	}
	sets, err := toolSets(ctx, st, id)
	if err != nil {
		return err
	}
	raw, err := rawBodies(id, evs, sets)
	if err != nil {
		return err
	}
	rb, err := json.Marshal(raw)
	if err != nil {
		return err
	}
	title := s.Title
	if title == "" {
		title = "A Loupe session"
	}
	return viewer.Write(w, title+" - Loupe replay", js.Bytes(), rb)
}

// rawBodies rebuilds every request's body in one pass over the log, with
// the functions RawRequest uses (trace.EachRequest builds each request as
// trace.Rebuild does; ollama.EncodeChatRequest encodes it).
func rawBodies(id string, evs []trace.Event, sets map[int][]llm.ToolSpec) (RawBodies, error) {
	out := RawBodies{Pieces: []string{}, Bodies: []RawBody{}}
	index := map[string]int{}
	intern := func(s string) int {
		n, ok := index[s]
		if !ok {
			n = len(out.Pieces)
			out.Pieces = append(out.Pieces, s)
			index[s] = n
		}
		return n
	}
	var prev []int
	toolsOf := func(mr trace.ModelRequest) ([]llm.ToolSpec, error) {
		if mr.ToolSet == 0 {
			return nil, nil
		}
		specs, ok := sets[mr.ToolSet]
		if !ok {
			return nil, fmt.Errorf("session %s has no tool set %d", id, mr.ToolSet)
		}
		return specs, nil
	}
	err := trace.EachRequest(evs, toolsOf, func(i int, req llm.Request, err error) error {
		rb := RawBody{Seq: evs[i].Seq, Add: []int{}}
		var body []byte
		if err == nil {
			body, err = ollama.EncodeChatRequest(req)
		}
		if err != nil {
			rb.Error = err.Error()
			out.Bodies = append(out.Bodies, rb)
			return nil
		}
		list := make([]int, 0, 2*len(req.Messages)+2)
		for _, p := range bodyPieces(body) {
			list = append(list, intern(string(p)))
		}
		for rb.Keep < len(list) && rb.Keep < len(prev) && list[rb.Keep] == prev[rb.Keep] {
			rb.Keep++
		}
		rb.Add = append(rb.Add, list[rb.Keep:]...)
		out.Bodies = append(out.Bodies, rb)
		prev = list
		return nil
	})
	return out, err
}

// bodyPieces cuts a request body into its header, each message and what
// lies between them, the tail: slices of body that together are body,
// whatever it holds (a body that does not parse is one piece).
func bodyPieces(body []byte) [][]byte {
	var msgs struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if json.Unmarshal(body, &msgs) != nil || len(msgs.Messages) == 0 {
		return [][]byte{body}
	}
	var out [][]byte
	at := 0
	for _, m := range msgs.Messages {
		i := bytes.Index(body[at:], m)
		if i < 0 {
			break
		}
		if i > 0 {
			out = append(out, body[at:at+i])
		}
		out = append(out, m)
		at += i + len(m)
	}
	return append(out, body[at:])
}
