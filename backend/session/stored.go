package session

// Reading a stored session without running anything: the exact body of a
// request, and the session exported.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/otlp"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
)

// RawRequest rebuilds the exact body that was sent to Ollama for the
// model_request event seq, with the same functions that built it: the log
// up to the request replayed into a history, and the request's tool set.
// It reads the store only: no Manager is needed.
func RawRequest(ctx context.Context, st *store.Store, id string, seq int64) (string, error) {
	req, err := storedRequest(ctx, st, id, seq)
	if err != nil {
		return "", err
	}
	b, err := ollama.EncodeRecordedRequest(req)
	return string(b), err
}

// storedRequest is the request of the model_request event seq, rebuilt
// from the log and the request's tool set.
func storedRequest(ctx context.Context, st *store.Store, id string, seq int64) (llm.Request, error) {
	evs, err := st.Events(ctx, id)
	if err != nil {
		return llm.Request{}, err
	}
	i := sort.Search(len(evs), func(i int) bool { return evs[i].Seq >= seq })
	if i == len(evs) || evs[i].Seq != seq || evs[i].Kind != trace.KindModelRequest {
		return llm.Request{}, fmt.Errorf("session %s has no model request %d", id, seq)
	}
	mr, err := trace.Decode[trace.ModelRequest](evs[i])
	if err != nil {
		return llm.Request{}, err
	}
	if own := trace.Own(evs, evs[i].Agent); len(own) != len(evs) {
		// A request is made of its own loop's events: the session's, or
		// a sub-agent's.
		evs = own
		i = sort.Search(len(evs), func(i int) bool { return evs[i].Seq >= seq })
	}
	var specs []llm.ToolSpec
	if mr.ToolSet != 0 {
		sets, err := toolSets(ctx, st, id)
		if err != nil {
			return llm.Request{}, err
		}
		var ok bool
		if specs, ok = sets[mr.ToolSet]; !ok {
			return llm.Request{}, fmt.Errorf("session %s has no tool set %d (named by request %d)", id, mr.ToolSet, seq)
		}
	}
	return trace.Rebuild(evs, i, specs)
}

// toolSets returns a session's stored tool sets by id.
func toolSets(ctx context.Context, st *store.Store, id string) (map[int][]llm.ToolSpec, error) {
	raw, err := st.ToolSets(ctx, id)
	if err != nil {
		return nil, err
	}
	out := make(map[int][]llm.ToolSpec, len(raw))
	for k, b := range raw {
		var specs []llm.ToolSpec
		if err := json.Unmarshal(b, &specs); err != nil {
			return nil, fmt.Errorf("session %s: tool set %d: %w", id, k, err)
		}
		out[k] = specs
	}
	return out, nil
}

// Export writes a session of st as json, md, html or otlp (OTLP JSON Lines). It reads the store
// only: no run is started, so it needs neither Ollama nor a Manager. No
// format holds a raw control character of the log (see package visible).
func Export(ctx context.Context, st *store.Store, id, format string, w io.Writer) error {
	if format != "json" && format != "md" && format != "html" && format != "otlp" {
		return fmt.Errorf("unknown export format %q: use json, md, html or otlp", format)
	}
	s, err := st.GetSession(ctx, id)
	if err != nil {
		return err
	}
	evs, err := st.Events(ctx, id)
	if err != nil {
		return err
	}
	h := trace.Header{Title: s.Title, Workspace: s.Workspace, Model: s.Model}
	switch format {
	case "md":
		_, err := io.WriteString(w, trace.Markdown(h, evs))
		return err
	case "html":
		return exportHTML(ctx, st, id, w)
	case "otlp":
		return ExportOTLP(ctx, st, id, otlp.Options{}, w)
	}
	return exportJSON(ctx, st, s, evs, w)
}
