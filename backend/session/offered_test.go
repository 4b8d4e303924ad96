package session_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
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

// toolNamesSent lists the names of the tools of a chat request body.
func toolNamesSent(t *testing.T, r ollamatest.Received) []string {
	t.Helper()
	var names []string
	for _, tl := range r.Chat.Tools {
		names = append(names, tl.Function.Name)
	}
	return names
}

// A session offering fewer tools sends only their schemas, refuses a call
// of another one as an unknown tool, and keeps the choice when Loupe opens
// the database again.
func TestSessionOffersTheToolsChosen(t *testing.T) {
	ctx := context.Background()
	srv := ollamatest.New(t)
	srv.AddModel(ollamatest.ModelSpec{Name: testModel, ContextLength: 32768})
	path := filepath.Join(t.TempDir(), "loupe.db")
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	saveSettings(t, st, permission.ModeAuto, nil)
	m := session.NewManager(st, ollama.New(srv.URL(), nil), permission.NewBroker(), nil)
	ws := demoWorkspace(t)
	// The choice comes in any order, with a repeat; it is kept in the
	// registry's order.
	choice := []string{"list_dir", "read_file", "list_dir"}
	out, err := m.Do(ctx, session.Create{Workspace: ws, Model: testModel, Tools: &choice})
	if err != nil {
		t.Fatal(err)
	}
	id := out.Summary.ID
	if got := *out.Summary.Tools; !slices.Equal(got, []string{"read_file", "list_dir"}) {
		t.Fatalf("summary tools %v", got)
	}
	srv.Script(
		calls(call("call_1", "run_command", `{"command":"ls"}`)),
		ollamatest.Text("I can only read."),
	)
	if _, err := m.Run(ctx, id, "list the files", session.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if got := toolNamesSent(t, reqs[0]); !slices.Equal(got, []string{"read_file", "list_dir"}) {
		t.Errorf("request tools %v, want read_file, list_dir", got)
	}
	evs, err := st.Events(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	invariants.Check(t, evs)
	var refused bool
	for _, e := range evs {
		if e.Kind == trace.KindToolCall {
			tc, _ := trace.Decode[trace.ToolCall](e)
			refused = tc.Name == "run_command" && !tc.Valid && tc.ErrorKind == trace.ErrUnknownTool
		}
		if e.Kind == trace.KindToolResult {
			tr, _ := trace.Decode[trace.ToolResult](e)
			if !strings.Contains(tr.Content, "unknown tool run_command; available: read_file, list_dir") {
				t.Errorf("result %q", tr.Content)
			}
		}
	}
	if !refused {
		t.Error("the call of a tool not offered was not refused as unknown")
	}
	m.StopAll()
	st.Close()

	// Opened again: the summary and the next request keep the choice.
	st, err = store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	m = session.NewManager(st, ollama.New(srv.URL(), nil), permission.NewBroker(), nil)
	d, err := m.Open(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if d.Summary.Tools == nil || !slices.Equal(*d.Summary.Tools, []string{"read_file", "list_dir"}) {
		t.Fatalf("reopened summary tools %v", d.Summary.Tools)
	}
	b, _ := json.Marshal(d.Summary)
	if !strings.Contains(string(b), `"tools":["read_file","list_dir"]`) {
		t.Errorf("summary JSON %s", b)
	}
	// Offer none: the next request goes without tools.
	none := []string{}
	out, err = m.Do(ctx, session.SetTools{Session: id, Tools: &none})
	if err != nil || out.Summary.Tools == nil || len(*out.Summary.Tools) != 0 {
		t.Fatalf("set none: %+v, %v", out.Summary, err)
	}
	srv.Script(ollamatest.Text("Plain chat."))
	if _, err := m.Run(ctx, id, "hello", session.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	reqs = srv.Requests()
	if got := reqs[len(reqs)-1]; len(got.Chat.Tools) != 0 || strings.Contains(string(got.Body), `"tools"`) {
		t.Errorf("no tools chosen, but sent %s", got.Body)
	}
	// Every tool again (nil), and a name that is no tool is refused.
	out, err = m.Do(ctx, session.SetTools{Session: id})
	if err != nil || out.Summary.Tools != nil {
		t.Fatalf("set all: %+v, %v", out.Summary, err)
	}
	bad := []string{"read_file", "rm_rf"}
	if _, err := m.Do(ctx, session.SetTools{Session: id, Tools: &bad}); err == nil ||
		!strings.Contains(err.Error(), `no tool is named "rm_rf": choose among read_file, write_file`) {
		t.Errorf("unknown name: %v", err)
	}
	srv.Script(ollamatest.Text("All back."))
	if _, err := m.Run(ctx, id, "again", session.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	reqs = srv.Requests()
	if got := toolNamesSent(t, reqs[len(reqs)-1]); len(got) != 7 {
		t.Errorf("every tool again: sent %v", got)
	}
}

// The readiness check counts the tools the session would offer, with the
// saved system prompt.
func TestCheckModelCountsTheToolsChosen(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	ctx := context.Background()
	oc := ollama.New(h.srv.URL(), nil)
	all, err := session.CheckModel(ctx, h.st, oc, session.ModelCheck{Model: testModel, Workspace: h.ws})
	if err != nil {
		t.Fatal(err)
	}
	two := []string{"list_dir", "read_file"}
	some, err := session.CheckModel(ctx, h.st, oc, session.ModelCheck{Model: testModel, Workspace: h.ws, Tools: &two})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Tools) != 7 || len(some.Tools) != 2 || some.Tools[0].Name != "read_file" || some.ToolTokens >= all.ToolTokens || some.SystemTokens != all.SystemTokens || all.SystemTokens == 0 {
		t.Errorf("all %+v\nsome %+v", all, some)
	}
	bad := []string{"nope"}
	if _, err := session.CheckModel(ctx, h.st, oc, session.ModelCheck{Model: testModel, Tools: &bad}); err == nil || !strings.Contains(err.Error(), `no tool is named "nope"`) {
		t.Errorf("unknown tool: %v", err)
	}
}
