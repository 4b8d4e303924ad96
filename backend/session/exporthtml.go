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
// trace.Rebuild does; ollama's BodyEncoder writes each body as
// EncodeChatRequest does, in pieces, a message encoded once for all the
// requests that hold it). A request's pieces that are the same slices as
// the previous request's are kept by count, the others interned: the work
// grows with the conversation, not with its square.
func rawBodies(id string, evs []trace.Event, sets map[int][]llm.ToolSpec) (RawBodies, error) {
	out := RawBodies{Pieces: []string{}, Bodies: []RawBody{}}
	index := map[string]int{}
	intern := func(p []byte) int {
		n, ok := index[string(p)]
		if !ok {
			n = len(out.Pieces)
			out.Pieces = append(out.Pieces, string(p))
			index[out.Pieces[n]] = n
		}
		return n
	}
	enc := ollama.NewBodyEncoder()
	var prev [][]byte
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
	// Each loop's requests are made of its own events: the session's,
	// then each sub-agent's.
	var err error
	for _, agent := range append([]string{""}, trace.SubAgents(evs)...) {
		if err = loopBodies(trace.Own(evs, agent), toolsOf, enc, &prev, intern, &out); err != nil {
			break
		}
	}
	return out, err
}

// loopBodies adds the bodies of one loop's requests (evs) to out.
func loopBodies(evs []trace.Event, toolsOf func(trace.ModelRequest) ([]llm.ToolSpec, error), enc *ollama.BodyEncoder, prevp *[][]byte, intern func([]byte) int, out *RawBodies) error {
	prev := *prevp
	defer func() { *prevp = prev }()
	return trace.EachRequest(evs, toolsOf, func(i int, req llm.Request, err error) error {
		rb := RawBody{Seq: evs[i].Seq, Add: []int{}}
		var pieces [][]byte
		if err == nil {
			pieces, err = enc.Pieces(req)
		}
		if err != nil {
			rb.Error = err.Error()
			out.Bodies = append(out.Bodies, rb)
			return nil
		}
		for rb.Keep < len(pieces) && rb.Keep < len(prev) && samePiece(pieces[rb.Keep], prev[rb.Keep]) {
			rb.Keep++
		}
		for _, p := range pieces[rb.Keep:] {
			rb.Add = append(rb.Add, intern(p))
		}
		out.Bodies = append(out.Bodies, rb)
		prev = pieces
		return nil
	})
}

// samePiece reports whether a and b are the same bytes in memory (a piece
// the encoder kept). Equal pieces elsewhere in memory are interned to the
// same number anyway: this only saves looking them up.
func samePiece(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
