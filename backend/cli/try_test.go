package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/cli"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
)

// loupe try sends a request of a loupe run again to another model and
// prints both answers compared; the database is left byte for byte as it
// was, and what cannot be tried is said with exit 2 or 3.
func TestTrySendsARecordedRequestAgain(t *testing.T) {
	e := setup(t)
	e.srv.AddModel(ollamatest.ModelSpec{Name: "other", ContextLength: 4096})
	e.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{ID: "c1", Name: "read_file", Args: `{"path":"README.md"}`}}},
		ollamatest.Text("It says hello."),
	)
	if code, _, stderr := e.run("run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "What does the README say?"); code != cli.ExitAnswered {
		t.Fatalf("run: exit %d, %s", code, stderr)
	}
	st, err := store.OpenReadOnly(e.db)
	if err != nil {
		t.Fatal(err)
	}
	list, err := st.ListSessions(context.Background())
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions %v, %v", list, err)
	}
	id := list[0].ID
	evs, err := st.Events(context.Background(), id)
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	var seqs []string
	notRequest := ""
	for _, ev := range evs {
		if ev.Kind == trace.KindModelRequest {
			seqs = append(seqs, strconv.FormatInt(ev.Seq, 10))
		} else if notRequest == "" {
			notRequest = strconv.FormatInt(ev.Seq, 10)
		}
	}
	if len(seqs) != 2 {
		t.Fatalf("requests %v", seqs)
	}
	files := func() []byte {
		b, err := os.ReadFile(e.db)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := os.ReadFile(e.db + "-wal")
		return append(b, w...)
	}
	before := files()

	e.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "list_dir", Args: `{"path":"."}`}}})
	code, out, stderr := e.run("try", id, "--at", seqs[0], "--model", "other", "--num-ctx", "2048", "--db", e.db)
	if code != 0 {
		t.Fatalf("try: exit %d, %s", code, stderr)
	}
	for _, want := range []string{"Request " + seqs[0] + " sent again to other", "num_ctx 2048", "differs from the recorded one: model, num_ctx", "- read_file {\"path\":\"README.md\"} (only recorded)", "+ list_dir {\"path\":\".\"} (only the alternative)", "Prompt tokens read"} {
		if !strings.Contains(out, want) {
			t.Errorf("try output lacks %q:\n%s", want, out)
		}
	}
	reqs := e.srv.Requests()
	if got := reqs[len(reqs)-1].Body; !bytes.Contains(got, []byte(`"model":"other"`)) || !bytes.Contains(got, []byte(`"num_ctx":2048`)) {
		t.Fatalf("sent %s", got)
	}

	// Unchanged, as JSON.
	e.srv.Script(ollamatest.Text("It says hello."))
	code, out, stderr = e.run("try", id, "--at", seqs[1], "--json", "--db", e.db)
	var res session.TryResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 {
		t.Fatalf("--json: exit %d, %v: %s %s", code, err, out, stderr)
	}
	if !res.Exact || !res.Compare.SameText || res.Compare.Text[0].Op != trace.LineSame {
		t.Fatalf("the same request to the same model: %+v", res)
	}
	reqs = e.srv.Requests()
	if string(reqs[len(reqs)-1].Body) != string(reqs[1].Body) {
		t.Fatal("the request sent again unchanged is not the recorded bytes")
	}

	body := filepath.Join(t.TempDir(), "body.json")
	os.WriteFile(body, []byte("not json"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"try", id}, cli.ExitUsage, "--at SEQ"},
		{[]string{"try", id, "--at", seqs[0], "--temperature", "warm"}, cli.ExitUsage, "not a number"},
		{[]string{"try", id, "--at", seqs[0], "--body", body}, cli.ExitUsage, "one JSON object"},
		{[]string{"try", id, "--at", notRequest}, cli.ExitFailed, "no model request " + notRequest},
		{[]string{"try", id, "--at", seqs[0], "--model", "missing"}, cli.ExitFailed, "ollama pull missing"},
		{[]string{"try", "nope", "--at", seqs[0]}, cli.ExitFailed, "nope"},
	} {
		code, _, stderr := e.run(append(c.args, "--db", e.db)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want %d saying %q", c.args, code, stderr, c.code, c.want)
		}
	}
	if !bytes.Equal(files(), before) {
		t.Fatal("loupe try changed the database")
	}
}

// loupe try --adopt keeps the answer as a fork whose log holds the request
// as it was sent; loupe run --continue takes the fork on with the try's
// model, running the adopted answer's call. The tried session's export is
// as it was.
func TestTryAdoptForksHeadless(t *testing.T) {
	e := setup(t)
	e.srv.AddModel(ollamatest.ModelSpec{Name: "other", ContextLength: 4096})
	e.srv.Script(ollamatest.Text("It says hello."))
	if code, _, stderr := e.run("run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "What does the README say?"); code != cli.ExitAnswered {
		t.Fatalf("run: exit %d, %s", code, stderr)
	}
	st, err := store.OpenReadOnly(e.db)
	if err != nil {
		t.Fatal(err)
	}
	list, _ := st.ListSessions(context.Background())
	id := list[0].ID
	evs, _ := st.Events(context.Background(), id)
	st.Close()
	var at string
	for _, ev := range evs {
		if ev.Kind == trace.KindModelRequest {
			at = strconv.FormatInt(ev.Seq, 10)
		}
	}
	_, before, _ := e.run("export", id, "--format", "json", "--db", e.db)

	e.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.Call{{ID: "alt_1", Name: "list_dir", Args: `{"path":"."}`}}})
	code, out, stderr := e.run("try", id, "--at", at, "--model", "other", "--num-ctx", "2048", "--adopt", "--db", e.db)
	if code != 0 {
		t.Fatalf("try --adopt: exit %d, %s", code, stderr)
	}
	i := strings.LastIndex(out, "Adopted as ")
	if i < 0 {
		t.Fatalf("try --adopt printed no fork:\n%s", out)
	}
	child := strings.TrimSpace(out[i+len("Adopted as "):])
	sent := e.srv.Requests()
	tried := sent[len(sent)-1].Body

	e.srv.Script(ollamatest.Text("A README."))
	if code, _, stderr := e.run("run", "--continue", child, "--host", e.srv.URL(), "--db", e.db); code != cli.ExitAnswered {
		t.Fatalf("run --continue: exit %d, %s", code, stderr)
	}
	sent = e.srv.Requests()
	if last := sent[len(sent)-1].Body; !bytes.Contains(last, []byte(`"model":"other"`)) || !bytes.Contains(last, []byte(`"num_ctx":2048`)) {
		t.Fatalf("the fork went on with another model or num_ctx: %s", last)
	}
	_, exported, _ := e.run("export", child, "--format", "json", "--db", e.db)
	var ex session.Exported
	if err := json.Unmarshal([]byte(exported), &ex); err != nil {
		t.Fatal(err)
	}
	ran := false
	for _, ev := range ex.Events {
		if r, err := trace.Decode[trace.ToolResult](ev); err == nil && ev.Kind == trace.KindToolResult && r.CallID == "alt_1" && !r.IsError {
			ran = true
		}
	}
	if !ran {
		t.Fatalf("the adopted call did not run in the fork:\n%s", exported)
	}
	st, err = store.OpenReadOnly(e.db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	seq, _ := strconv.ParseInt(at, 10, 64)
	raw, err := session.RawRequest(context.Background(), st, child, seq)
	if err != nil || raw != string(tried) {
		t.Fatalf("the fork's request rebuilds as\n%s (%v)\nthe try sent\n%s", raw, err, tried)
	}
	if _, after, _ := e.run("export", id, "--format", "json", "--db", e.db); after != before {
		t.Fatal("the tried session changed")
	}
}
