package session

import (
	"bytes"
	"context"
	"io"
	"net/http"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/loupe-dev/loupe/backend/otlp"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/visible"
)

// SessionTraces reads a session of st and builds its runs' traces (see
// package otlp). It reads the store only.
func SessionTraces(ctx context.Context, st *store.Store, id string, opt otlp.Options) ([]ptrace.Traces, error) {
	s, err := st.GetSession(ctx, id)
	if err != nil {
		return nil, err
	}
	evs, err := st.Events(ctx, id)
	if err != nil {
		return nil, err
	}
	return otlp.Build(otlp.Session{ID: s.ID, Title: s.Title, Workspace: s.Workspace, Model: s.Model}, evs, opt)
}

// ExportOTLP writes a session as OTLP JSON Lines, a trace per run. Like
// the other formats it holds no raw control character of the log: JSON
// escapes C0 already, and DEL, C1 and bidi controls become \u escapes,
// which a JSON reader turns back into the same characters.
func ExportOTLP(ctx context.Context, st *store.Store, id string, opt otlp.Options, w io.Writer) error {
	ts, err := SessionTraces(ctx, st, id, opt)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := otlp.WriteJSONL(&b, ts); err != nil {
		return err
	}
	_, err = io.WriteString(w, visible.Text(b.String()))
	return err
}

// PushOTLP sends a session's runs (or one run, opt.Run) to an OTLP/HTTP
// collector. It returns how many spans it sent.
func PushOTLP(ctx context.Context, st *store.Store, id string, opt otlp.Options, endpoint, protocol string, client *http.Client) (int, error) {
	ts, err := SessionTraces(ctx, st, id, opt)
	if err != nil {
		return 0, err
	}
	if err := otlp.Push(ctx, client, endpoint, protocol, ts); err != nil {
		return 0, err
	}
	return otlp.SpanCount(ts), nil
}
