package session_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

// testdata/schema1 holds a database written by Loupe before tool sets,
// history deltas and open runs (schema 1: each request carried every tool's
// schema and every history seq), as SQL, and the request bodies that were
// sent while it was written: two sessions, one with parallel calls over two
// runs, one stepped through with every kind of edit.
//
// It opens; its sessions are listed; every request's Raw view is still the
// body that was sent; a run it left open is recovered; and an old session
// goes on, its new requests extending the old ones.
func TestDatabaseOfTheFirstSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "loupe.db")
	dump, err := os.ReadFile(filepath.Join("testdata", "schema1", "loupe.sql"))
	if err != nil {
		t.Fatal(err)
	}
	var sent []string
	b, err := os.ReadFile(filepath.Join("testdata", "schema1", "requests.json"))
	if err == nil {
		err = json.Unmarshal(b, &sent)
	}
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	args := json.RawMessage(`{"command":"sleep 100"}`)
	crashed := []trace.Event{
		trace.New(trace.KindUserMessage, 1, 0, trace.UserMessage{Text: "go"}),
		trace.New(trace.KindModelRequest, 1, 1, trace.ModelRequest{Model: testModel, HistorySeqs: []int64{1}}),
		trace.New(trace.KindModelResponse, 1, 1, trace.ModelResponse{ToolCalls: []llmCall{{ID: "call_1", Name: "run_command", Args: args}}, DoneReason: "stop"}),
		trace.New(trace.KindToolCall, 1, 1, trace.ToolCall{CallID: "call_1", Name: "run_command", Args: args, Valid: true}),
	}
	stmts := []string{string(dump),
		fmt.Sprintf(`PRAGMA user_version = 1; PRAGMA application_id = %d;`, int32(store.ApplicationID)),
		fmt.Sprintf(`INSERT INTO sessions (id, title, workspace, model, created_at, updated_at, last_reason, last_seq) VALUES ('crashed', 'Crashed', '/home/me/project', '%s', 1, 1, '', %d)`, testModel, len(crashed)),
		// The folder it was written in is gone; the sessions go on here.
		fmt.Sprintf(`UPDATE sessions SET workspace = '%s'`, fixedLengthDir(t)),
	}
	for i, e := range crashed {
		stmts = append(stmts, fmt.Sprintf(`INSERT INTO events VALUES ('crashed', %d, '%s', 1, %d, %d, '%s')`, i+1, e.Kind, e.Run, e.Round, e.Payload))
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("building the old database: %v", err)
		}
	}
	db.Close()

	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	// As the first schema left them (one with a run cut open, its call
	// unanswered), its sessions come back whole from their JSON export.
	checkJSONRoundTrip(t, st)
	srv := ollamatest.New(t)
	srv.AddModel(ollamatest.ModelSpec{Name: testModel, ContextLength: 32768})
	m := session.NewManager(st, ollama.New(srv.URL(), nil), permission.NewBroker(), nil)
	t.Cleanup(m.StopAll)

	list, err := m.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, s := range list {
		titles = append(titles, s.Title)
	}
	if got := strings.Join(titles, "|"); got != "Read missing.txt|Look around, then write out.txt|Crashed" {
		t.Fatalf("sessions = %s", got)
	}
	// Every request of the two old sessions, oldest session first.
	var raws []string
	for _, s := range []session.Summary{list[1], list[0]} {
		d, err := m.Open(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range d.Events {
			if e.Kind != trace.KindModelRequest {
				continue
			}
			// Opened, an old request leaves out every tool's schema and
			// every history seq, and names its tools as requests do now.
			mr, err := trace.Decode[trace.ModelRequest](e)
			if err != nil {
				t.Fatal(err)
			}
			if mr.Tools != nil || mr.HistorySeqs != nil || len(mr.ToolNames) != 7 || e.Preview["/tools"].Bytes == 0 || e.Preview["/history_seqs"].Bytes == 0 {
				t.Fatalf("%s: request %d opened as %s (marks %v)", s.Title, e.Seq, e.Payload, e.Preview)
			}
			raw, err := session.RawRequest(ctx, st, s.ID, e.Seq)
			if err != nil {
				t.Fatalf("%s: request %d: %v", s.Title, e.Seq, err)
			}
			raws = append(raws, raw)
		}
	}
	if len(raws) != len(sent) {
		t.Fatalf("%d requests in the old log, %d were sent", len(raws), len(sent))
	}
	for i := range sent {
		if raws[i] != sent[i] {
			t.Fatalf("request %d: the Raw view differs from the body sent\nrebuilt: %s\nsent:    %s", i+1, raws[i], sent[i])
		}
	}

	// The run the old app left open is closed, and only that one.
	before := map[string]int{}
	for _, s := range list {
		before[s.ID] = s.EventCount
	}
	if err := m.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	evs, err := st.Events(ctx, "crashed")
	if err != nil {
		t.Fatal(err)
	}
	invariants.Check(t, evs)
	if e := lastEnd(t, evs); e.Reason != trace.EndInterrupted {
		t.Fatalf("crashed run ended %+v", e)
	}
	for _, s := range list[:2] {
		if got, _ := st.GetSession(ctx, s.ID); got.EventCount != before[s.ID] {
			t.Fatalf("recovery wrote to %s, whose runs were closed", s.Title)
		}
	}

	// An old session goes on: its next request extends the last old one,
	// and is shown as sent.
	old := list[1]
	srv.Script(ollamatest.Text("Still here."))
	if end, err := m.Run(ctx, old.ID, "Are you there?", session.RunOptions{}); err != nil || end.Reason != trace.EndAnswered {
		t.Fatalf("run in the old session: %+v, %v", end, err)
	}
	evs, err = st.Events(ctx, old.ID)
	if err != nil {
		t.Fatal(err)
	}
	last := evs[len(evs)-3]
	mr, err := trace.Decode[trace.ModelRequest](last)
	if err != nil {
		t.Fatal(err)
	}
	if mr.HistoryBase == 0 || mr.HistorySeqs != nil || mr.Tools != nil || mr.ToolSet != 1 {
		t.Fatalf("new request in the old session = %+v", mr)
	}
	raw, err := session.RawRequest(ctx, st, old.ID, last.Seq)
	if err != nil {
		t.Fatal(err)
	}
	if reqs := srv.Requests(); raw != string(reqs[len(reqs)-1].Body) {
		t.Fatalf("new request: the Raw view differs from the body sent\nrebuilt: %s\nsent:    %s", raw, reqs[len(reqs)-1].Body)
	}
	invariants.Check(t, evs)
}
