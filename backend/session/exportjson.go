package session

// The JSON export: the whole session, in the one versioned format that
// Import reads back (docs/FORMAT.md, docs/loupe-session.schema.json).

import (
	"context"
	"encoding/json"
	"io"
	"strings"

	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/backend/visible"
)

// exportFormat names the format in every file, so that an importer tells
// a Loupe session from another program's JSON by its first member.
const exportFormat = "loupe-session"

// ExportVersion is the format of a JSON export: bump it when the shape
// changes (and say what changed in docs/FORMAT.md). Version 2: requests
// name a tool set (tool_sets) and record their history as the previous
// request's plus the events added. Version 3: the summary says what the
// open run waits for (standing) instead of holding the pause, which is the
// log's paused checkpoint.
const ExportVersion = 3

// Exported is the JSON form of a session: its summary and its whole log,
// the same event objects the UI gets, and the tool sets its requests name
// (each the JSON its session stores, so that an import stores the same
// bytes under the same id). The members are written in this order, which
// Import relies on to read a file once, as it streams: what the file is,
// then the session, then its events, then its tool sets.
type Exported struct {
	Format   string                  `json:"format"`
	Version  int                     `json:"version"`
	Session  Summary                 `json:"session"`
	Events   []trace.Event           `json:"events"`
	ToolSets map[int]json.RawMessage `json:"tool_sets"`
}

// exportJSON writes session s with its log evs as an Exported.
func exportJSON(ctx context.Context, st *store.Store, s store.Session, evs []trace.Event, w io.Writer) error {
	sets, err := st.ToolSets(ctx, s.ID)
	if err != nil {
		return err
	}
	var dbg debugState
	if _, err := st.GetStepping(ctx, s.ID, &dbg); err != nil {
		return err
	}
	// A summary as the window shows a session no run holds.
	_, waits := trace.Waiting(evs)
	sum := Summary{Session: s, Standing: waits.Standing(), Stepping: dbg.Stepping, Breakpoints: dbg.Breakpoints.normal()}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(Exported{Format: exportFormat, Version: ExportVersion, Session: sum, Events: evs, ToolSets: sets}); err != nil {
		return err
	}
	// The same JSON value, with the control characters JSON leaves raw
	// (DEL, C1, bidi) escaped, so the file is as safe to print as the
	// other formats.
	_, err = io.WriteString(w, visible.Text(b.String()))
	return err
}
