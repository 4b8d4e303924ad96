package session_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/interop"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
)

// agentFixtures are interop's hand-written files, one a format.
var agentFixtures = []struct{ file, source, sourceID string }{
	{"claude-code.jsonl", interop.ClaudeCode, "7f3e2a10-5b6c-4d8e-9f01-23456789abcd"},
	{"codex.jsonl", interop.Codex, "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"},
	{"atif.json", interop.ATIF, "tb-hello-2025-10-22-0001"},
}

func agentFixture(t *testing.T, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "interop", "testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// converted is the log interop makes of a file, as it would be stored.
type converted struct{ events []trace.Event }

func (c *converted) Start(interop.Meta) error  { return nil }
func (c *converted) Event(e trace.Event) error { c.events = append(c.events, e); return nil }

// Each format is told from the file, stored whole with its source, and
// the stored log is the converter's, event for event.
func TestImportAgentSessions(t *testing.T) {
	ctx := context.Background()
	for _, f := range agentFixtures {
		t.Run(f.source, func(t *testing.T) {
			st := tempStore(t)
			in := agentFixture(t, f.file)
			res, err := session.ImportFrom(ctx, st, bytes.NewReader(in), "", session.ImportKeepID, session.ImportOptions{Workspace: "/tmp/fallback"})
			if err != nil {
				t.Fatal(err)
			}
			s := res.Session
			if s.Source != f.source || s.SourceID != f.sourceID || s.Title == "" || s.OpenRun != 0 || s.Rounds == 0 {
				t.Fatalf("imported %+v", s.Session)
			}
			if f.source == interop.ATIF && s.Workspace != "/tmp/fallback" {
				t.Errorf("an ATIF trajectory names no folder: workspace %q, want the fallback", s.Workspace)
			}
			want := &converted{}
			if _, err := interop.Convert(f.source, bytes.NewReader(in), want, time.Now()); err != nil {
				t.Fatal(err)
			}
			got, err := st.Events(ctx, s.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want.events) || res.Events != len(got) || s.EventCount != len(got) {
				t.Fatalf("stored %d events (result says %d, session %d), the converter made %d", len(got), res.Events, s.EventCount, len(want.events))
			}
			for i := range got {
				g, w := got[i], want.events[i]
				if g.Seq != w.Seq || g.Kind != w.Kind || g.Run != w.Run || g.Round != w.Round || !g.Time.Equal(w.Time) || !bytes.Equal(g.Payload, w.Payload) {
					t.Fatalf("event %d stored as %+v, converted as %+v", i+1, g, w)
				}
			}
			if !s.CreatedAt.Equal(want.events[0].Time) && !s.CreatedAt.Before(want.events[0].Time) {
				t.Errorf("created %v, after the first event %v", s.CreatedAt, want.events[0].Time)
			}

			// The same session again: asked, skipped, or kept twice.
			_, err = session.ImportFrom(ctx, st, bytes.NewReader(in), "", session.ImportKeepID, session.ImportOptions{})
			var clash *session.ClashError
			if !errors.As(err, &clash) || clash.ID != s.ID {
				t.Fatalf("second import = %v, want a clash with %s", err, s.ID)
			}
			skip, err := session.ImportFrom(ctx, st, bytes.NewReader(in), "", session.ImportSkip, session.ImportOptions{})
			if err != nil || !skip.Skipped || skip.Session.ID != s.ID {
				t.Fatalf("skip = %+v, %v", skip, err)
			}
			both, err := session.ImportFrom(ctx, st, bytes.NewReader(in), f.source, session.ImportAsNew, session.ImportOptions{})
			if err != nil || both.Session.ID == s.ID || both.Session.Source != f.source {
				t.Fatalf("as new = %+v, %v", both.Session.Session, err)
			}
			if list, _ := st.ListSessions(ctx); len(list) != 2 {
				t.Fatalf("%d sessions, want 2", len(list))
			}
		})
	}
}

// A file refused (cut short, of no format, named as another) leaves the
// database byte for byte as it was.
func TestImportAgentRefusedWritesNothing(t *testing.T) {
	ctx := context.Background()
	claude := agentFixture(t, "claude-code.jsonl")
	codex := agentFixture(t, "codex.jsonl")
	for _, c := range []struct {
		name, from string
		in         []byte
		says       string
	}{
		{"cut short", "", claude[:len(claude)-40], "line 11"},
		{"another format named", interop.ATIF, codex, "follows the end"},
		{"codex named claude", interop.ClaudeCode, codex, "no message"},
		{"empty with a format", interop.Codex, nil, "no message"},
		{"no format Loupe knows", "", []byte(`{"name":"my-app","version":"1.0.0"}`), "nor is it a Claude Code or Codex CLI session"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "loupe.db")
			st, err := store.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := session.ImportFrom(ctx, st, bytes.NewReader(agentFixture(t, "atif.json")), "", "", session.ImportOptions{}); err != nil {
				t.Fatal(err)
			}
			st.Close()
			before := fileHash(t, path)
			st, err = store.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			_, err = session.ImportFrom(ctx, st, bytes.NewReader(c.in), c.from, session.ImportKeepID, session.ImportOptions{})
			if err == nil || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), "nothing was written") {
				st.Close()
				t.Fatalf("import = %v, want it refused saying %q", err, c.says)
			}
			st.Close()
			if fileHash(t, path) != before {
				t.Fatal("a refused import changed the database file")
			}
		})
	}
}

// An imported session is read-only: no run, no command changes it; a
// fork of it is Loupe's own and goes on with a local model, which gets
// the imported conversation as its history.
func TestImportedSessionIsReadOnlyAndAForkGoesOn(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	ctx := context.Background()
	// The Claude Code session, as if it had worked in the harness's
	// folder.
	in := bytes.ReplaceAll(agentFixture(t, "claude-code.jsonl"), []byte("/home/ada/greet"), []byte(h.ws))
	res, err := h.m.Import(ctx, bytes.NewReader(in), session.ImportKeepID)
	if err != nil || res.Clash != nil {
		t.Fatalf("import: %+v, %v", res, err)
	}
	id := res.Session.ID

	var ro *session.ReadOnlyError
	if _, err := h.m.Do(ctx, session.Send{Session: id, Text: "go on"}); !errors.As(err, &ro) || !strings.Contains(err.Error(), "Claude Code") || !strings.Contains(err.Error(), "fork") {
		t.Fatalf("send to an imported session = %v, want it refused as read-only", err)
	}
	if _, err := h.m.Run(ctx, id, "go on", session.RunOptions{}); !errors.As(err, &ro) {
		t.Fatalf("run of an imported session = %v, want it refused as read-only", err)
	}
	if _, err := h.m.Do(ctx, session.SetModel{Session: id, Model: testModel}); !errors.As(err, &ro) {
		t.Fatalf("set model = %v, want it refused", err)
	}
	if n, _ := h.st.Events(ctx, id); len(n) != res.Events {
		t.Fatalf("the refused commands changed the log: %d events, imported %d", len(n), res.Events)
	}

	f, err := h.m.Fork(ctx, session.Fork{Session: id, At: int64(res.Events), Model: testModel})
	if err != nil {
		t.Fatal(err)
	}
	if f.Summary.Source != "" || f.Summary.ForkedFrom != id || f.Summary.Model != testModel {
		t.Fatalf("fork: %+v", f.Summary.Session)
	}
	h.srv.Script(ollamatest.Text("The tests pass now."))
	before := len(h.srv.Requests())
	end, err := h.m.Run(ctx, f.Summary.ID, "Did the tests pass?", session.RunOptions{})
	if err != nil || end.Reason != trace.EndAnswered {
		t.Fatalf("the fork's run: %+v, %v", end, err)
	}
	reqs := h.srv.Requests()[before:]
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	var saw []string
	for _, m := range reqs[0].Chat.Messages {
		saw = append(saw, m.Role+": "+m.Content)
	}
	all := strings.Join(saw, "\n")
	for _, w := range []string{"user: The test in greet_test.go fails. Fix it.", "assistant: Fixed: Hello now returns \"hello\".", "tool: The file " + h.ws + "/greet.go has been updated.", "user: Did the tests pass?"} {
		if !strings.Contains(all, w) {
			t.Errorf("the local model was not sent %q; it got:\n%s", w, all)
		}
	}
	if _, err := h.st.GetSession(ctx, id); err != nil {
		t.Fatal(err)
	}
}

// A Claude Code file does not say the model's context window. The
// imported requests record none (num_ctx 0), so nothing judges a prompt
// against a number nobody sent: the Raw body has no num_ctx, the Markdown
// export says it is not recorded, and trying such a request on a local
// model sends what a run of that model would, never Ollama's default.
func TestAnImportedRequestWithNoRecordedWindowIsNeverGivenOne(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	h.srv.AddModel(ollamatest.ModelSpec{Name: "other", ContextLength: 32768})
	ctx := context.Background()
	res, err := h.m.Import(ctx, bytes.NewReader(agentFixture(t, "claude-code.jsonl")), session.ImportKeepID)
	if err != nil {
		t.Fatal(err)
	}
	id := res.Session.ID
	evs, err := h.st.Events(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var at int64
	for _, e := range evs {
		if e.Kind != trace.KindModelRequest {
			continue
		}
		mr, err := trace.Decode[trace.ModelRequest](e)
		if err != nil {
			t.Fatal(err)
		}
		if mr.Options.NumCtx != 0 {
			t.Errorf("request %d records num_ctx %d; the file says none", e.Seq, mr.Options.NumCtx)
		}
		if at == 0 {
			at = e.Seq
		}
	}
	raw, err := session.RawRequest(ctx, h.st, id, at)
	if err != nil {
		t.Fatalf("the Raw body of an imported request: %v", err)
	}
	var body struct {
		Options map[string]any `json:"options"`
	}
	if err := json.Unmarshal([]byte(raw), &body); err != nil {
		t.Fatal(err)
	}
	if v, ok := body.Options["num_ctx"]; ok {
		t.Errorf("the Raw body names num_ctx %v, which nobody sent", v)
	}
	var md bytes.Buffer
	if err := session.Export(ctx, h.st, id, "md", &md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "num_ctx not recorded") || strings.Contains(md.String(), "131072") {
		t.Errorf("the Markdown export does not say the window is not recorded:\n%s", md.String())
	}

	h.srv.Script(ollamatest.Text("Read greet_test.go first."))
	before := len(h.srv.Requests())
	tried, err := h.m.Try(ctx, session.Try{Session: id, At: at, Model: "other"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()[before:]
	if len(reqs) != 1 {
		t.Fatalf("%d requests sent, want 1", len(reqs))
	}
	var sent struct {
		Options map[string]float64 `json:"options"`
	}
	if err := json.Unmarshal(reqs[0].Body, &sent); err != nil {
		t.Fatal(err)
	}
	set, err := settings.Load(ctx, h.st)
	if err != nil {
		t.Fatal(err)
	}
	want := ollama.NumCtx(32768, set.NumCtxCap)
	if got := int(sent.Options["num_ctx"]); got != want || tried.Alternative.Options.NumCtx != want {
		t.Fatalf("the try sent num_ctx %d (its answer says %d), want %d: what a run of the model sends", got, tried.Alternative.Options.NumCtx, want)
	}
	if !slices.Contains(tried.Changed, session.TryChangedNumCtx) || tried.Exact {
		t.Errorf("changed %v, exact %v: the window must say num_ctx was set", tried.Changed, tried.Exact)
	}
}
