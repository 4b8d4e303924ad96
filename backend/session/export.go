package session

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
)

// exportVersion is the format of a JSON export: bump it when the shape
// changes. Version 2: requests name a tool set (tool_sets) and record
// their history as the previous request's plus the events added.
const exportVersion = 2

// Exported is the JSON form of a session: its summary and its whole log,
// the same event objects the UI gets, and the tool sets its requests name.
type Exported struct {
	Format   string                 `json:"format"`
	Version  int                    `json:"version"`
	Session  Summary                `json:"session"`
	Events   []trace.Event          `json:"events"`
	ToolSets map[int][]llm.ToolSpec `json:"tool_sets"`
}

// Export writes a session of st as json, md or html. It reads the store
// only: no run is started, so it needs neither Ollama nor a Manager.
func Export(ctx context.Context, st *store.Store, id, format string, w io.Writer) error {
	if format != "json" && format != "md" && format != "html" {
		return fmt.Errorf("unknown export format %q: use json, md or html", format)
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
		_, err := io.WriteString(w, trace.HTML(h, evs))
		return err
	}
	sets, err := toolSets(ctx, st, id)
	if err != nil {
		return err
	}
	var dbg debugState
	if _, err := st.GetSetting(ctx, debugKey(id), &dbg); err != nil {
		return err
	}
	// A summary as the window shows a session no run holds.
	sum := summaryOf(s)
	sum.Stepping, sum.Breakpoints = dbg.Stepping, dbg.Breakpoints.normal()
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(Exported{Format: "loupe-session", Version: exportVersion, Session: sum, Events: evs, ToolSets: sets})
}
