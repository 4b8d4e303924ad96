package session

// Reading a stored session without running anything: the exact body of a
// request, and the session exported.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/otlp"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/backend/visible"
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
	b, err := ollama.EncodeChatRequest(req)
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

// exportVersion is the format of a JSON export: bump it when the shape
// changes. Version 2: requests name a tool set (tool_sets) and record
// their history as the previous request's plus the events added. Version
// 3: the summary says what the open run waits for (standing) instead of
// holding the pause, which is the log's paused checkpoint.
const exportVersion = 3

// Exported is the JSON form of a session: its summary and its whole log,
// the same event objects the UI gets, and the tool sets its requests name.
type Exported struct {
	Format   string                 `json:"format"`
	Version  int                    `json:"version"`
	Session  Summary                `json:"session"`
	Events   []trace.Event          `json:"events"`
	ToolSets map[int][]llm.ToolSpec `json:"tool_sets"`
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
	sets, err := toolSets(ctx, st, id)
	if err != nil {
		return err
	}
	var dbg debugState
	if _, err := st.GetStepping(ctx, id, &dbg); err != nil {
		return err
	}
	// A summary as the window shows a session no run holds.
	sum := Summary{Session: s, Standing: trace.StateOf(evs).Standing(), Stepping: dbg.Stepping, Breakpoints: dbg.Breakpoints.normal()}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(Exported{Format: "loupe-session", Version: exportVersion, Session: sum, Events: evs, ToolSets: sets}); err != nil {
		return err
	}
	// The same JSON value, with the control characters JSON leaves raw
	// (DEL, C1, bidi) escaped, so the file is as safe to print as the
	// other formats.
	_, err = io.WriteString(w, visible.Text(b.String()))
	return err
}
