package session_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
)

// checkJSONRoundTrip takes every session of st (a recording's database,
// at the end of its scenario) through export → import into a database of
// its own → export: the export follows the schema, the import keeps the
// session's id, the log comes back identical (every event's seq, kind,
// time, run, round and payload value) and the second export is the first
// byte for byte.
func checkJSONRoundTrip(t *testing.T, st *store.Store) {
	t.Helper()
	ctx := context.Background()
	list, err := st.ListSessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) == 0 {
		return
	}
	to, err := store.Open(filepath.Join(t.TempDir(), "imported.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer to.Close()
	// The database it comes back into has the same Settings: an import
	// keeps a session's host only when it is one of Settings' hosts.
	set, err := settings.Load(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if err := settings.Save(ctx, to, set); err != nil {
		t.Fatal(err)
	}
	for _, s := range list {
		first := exportJSON(t, st, s.ID)
		validateExport(t, first)
		res, err := session.Import(ctx, to, bytes.NewReader(first), session.ImportKeepID)
		if err != nil {
			t.Fatalf("session %s: import of its own export: %v", s.ID, err)
		}
		if res.Session.ID != s.ID || res.Skipped || res.Events != s.EventCount {
			t.Fatalf("session %s: imported as %s, skipped %v, %d events of %d", s.ID, res.Session.ID, res.Skipped, res.Events, s.EventCount)
		}
		sameLog(t, s.ID, mustEvents(t, st, s.ID), mustEvents(t, to, s.ID))
		second := exportJSON(t, to, s.ID)
		if !bytes.Equal(first, second) {
			t.Fatalf("session %s: export → import → export is not byte-identical:\n%s", s.ID, firstDifference(first, second))
		}
	}
}

func exportJSON(t *testing.T, st *store.Store, id string) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := session.Export(context.Background(), st, id, "json", &b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func mustEvents(t *testing.T, st *store.Store, id string) []trace.Event {
	t.Helper()
	evs, err := st.Events(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// sameLog fails unless b is a's log: what the timeline is drawn from.
func sameLog(t *testing.T, id string, a, b []trace.Event) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("session %s: %d events, imported %d", id, len(a), len(b))
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Seq != y.Seq || x.Kind != y.Kind || !x.Time.Equal(y.Time) || x.Run != y.Run || x.Round != y.Round || !sameJSON(x.Payload, y.Payload) {
			t.Fatalf("session %s: event %d differs after import:\n%+v\n%+v", id, x.Seq, x, y)
		}
	}
}

func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	p, _ := json.Marshal(x)
	q, _ := json.Marshal(y)
	return bytes.Equal(p, q)
}

func firstDifference(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-200)
	return "first:  …" + string(a[from:min(len(a), i+200)]) + "\nsecond: …" + string(b[from:min(len(b), i+200)])
}
