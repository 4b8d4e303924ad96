package session_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/trace"
)

// A session of two rounds for the tries: a read_file call, then the
// answer. It returns the seq of each model_request.
func tryHarness(t *testing.T) (*harness, []int64) {
	t.Helper()
	h := newHarness(t, permission.ModeAuto, func(s *settings.Settings) {
		s.Hosts = []settings.HostProfile{{Name: "gpu-box", URL: "http://127.0.0.1:1"}}
	})
	h.srv.AddModel(ollamatest.ModelSpec{Name: "other", ContextLength: 32768})
	h.srv.AddModel(ollamatest.ModelSpec{Name: "plain", Capabilities: []string{"completion"}})
	h.srv.Script(
		calls(call("call_1", "read_file", `{"path":"README.md"}`)),
		ollamatest.Text("The README says hello.\nThat is all."),
	)
	h.run("What does the README say?")
	var seqs []int64
	for _, e := range h.events() {
		if e.Kind == trace.KindModelRequest {
			seqs = append(seqs, e.Seq)
		}
	}
	if len(seqs) != 2 {
		t.Fatalf("%d requests, want 2", len(seqs))
	}
	return h, seqs
}

// exportedJSON is the session as `loupe export --format json` writes it: what
// must not change by a try.
func exportedJSON(t *testing.T, h *harness) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := session.Export(context.Background(), h.st, h.id, "json", &b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The recorded request sent again unchanged reaches Ollama byte for byte
// as it was first sent; the other model's answer is compared with the
// recorded one, its calls are not run, and the session is as it was.
func TestTryResendsTheRecordedBytes(t *testing.T) {
	h, seqs := tryHarness(t)
	before := exportedJSON(t, h)
	first := h.srv.Requests()[0].Body
	h.srv.Script(calls(
		call("call_9", "read_file", `{"limit":5,"path":"README.md"}`),
		call("call_10", "write_file", `{"path":"tried.txt","content":"no"}`),
	))
	res, err := h.m.Try(context.Background(), session.Try{ID: "t1", Session: h.id, At: seqs[0]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	if got := reqs[len(reqs)-1].Body; !bytes.Equal(got, first) {
		t.Fatalf("the try sent other bytes than the recorded request\nsent:     %s\nrecorded: %s", got, first)
	}
	if !res.Exact || len(res.Changed) != 0 || res.Body != string(first) {
		t.Fatalf("exact %v, changed %v: want the recorded body, unchanged", res.Exact, res.Changed)
	}
	if res.Recorded == nil || len(res.Recorded.ToolCalls) != 1 || res.Recorded.ToolCalls[0].Name != "read_file" {
		t.Fatalf("recorded answer = %+v, want its read_file call", res.Recorded)
	}
	c := res.Compare
	if c.SameCalls || len(c.Calls) != 2 || c.Calls[0].Verdict != trace.CallArgsDiffer || c.Calls[1].Verdict != trace.CallOnlyAlternative {
		t.Fatalf("calls compared = %+v, want read_file with other arguments, then write_file only in the alternative", c.Calls)
	}
	args := c.Calls[0].Args
	if len(args) != 2 || args[0].Name != "path" || args[0].Verdict != trace.ArgSame || args[1].Name != "limit" || args[1].Verdict != trace.ArgOnlyAlternative {
		t.Fatalf("arguments compared = %+v, want path the same and limit only in the alternative", args)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "tried.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the alternative's write_file ran: %v", err)
	}
	if !bytes.Equal(exportedJSON(t, h), before) {
		t.Fatal("the session changed by a try")
	}
}

// A model, temperature and num_ctx chosen for the try change those fields
// of the recorded body and no other byte; an edited body is sent exactly
// as edited, and with a model chosen beside it, every other byte of the
// edit stays.
func TestTrySendsTheChangesAndTheEdits(t *testing.T) {
	h, seqs := tryHarness(t)
	second := string(h.srv.Requests()[1].Body)
	last := func() string { r := h.srv.Requests(); return string(r[len(r)-1].Body) }

	h.srv.Script(ollamatest.Text("Hello, says the README."))
	temp := 0.7
	res, err := h.m.Try(context.Background(), session.Try{Session: h.id, At: seqs[1], Model: "other", Temperature: &temp, NumCtx: 8192}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(second, `"model":"scripted"`, `"model":"other"`, 1)
	want = regexp.MustCompile(`"options":\{"num_ctx":\d+,"temperature":[0-9.]+\}`).ReplaceAllLiteralString(want, `"options":{"num_ctx":8192,"temperature":0.7}`)
	if want == second {
		t.Fatalf("the recorded body is not shaped as this test expects: %s", second)
	}
	if got := last(); got != want {
		t.Fatalf("sent\n%s\nwant\n%s", got, want)
	}
	if strings.Join(res.Changed, ",") != "model,temperature,num_ctx" || res.Exact {
		t.Fatalf("changed = %v (exact %v)", res.Changed, res.Exact)
	}
	if res.Alternative.Model != "other" || res.Alternative.Options.NumCtx != 8192 || res.Alternative.Options.Temperature != 0.7 {
		t.Fatalf("alternative = %+v", res.Alternative)
	}
	if res.Compare.SameText || !hasLine(res.Compare.Text, trace.LineRemoved, "The README says hello.") || !hasLine(res.Compare.Text, trace.LineAdded, "Hello, says the README.") {
		t.Fatalf("text diff = %+v", res.Compare.Text)
	}

	// An edited body, spacing and all.
	edited := strings.Replace(second, `{"role":"user","content":"What does the README say?"}`, "{ \"role\": \"user\",\n \"content\": \"Say it in French.\" }", 1)
	if edited == second {
		t.Fatalf("the recorded body has no user message to edit: %s", second)
	}
	h.srv.Script(ollamatest.Text("Bonjour."))
	res, err = h.m.Try(context.Background(), session.Try{Session: h.id, At: seqs[1], Body: edited}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := last(); got != edited {
		t.Fatalf("sent\n%s\nwant the edited body\n%s", got, edited)
	}
	if strings.Join(res.Changed, ",") != "body" {
		t.Fatalf("changed = %v, want body", res.Changed)
	}
	h.srv.Script(ollamatest.Text("Bonjour."))
	if _, err = h.m.Try(context.Background(), session.Try{Session: h.id, At: seqs[1], Body: edited, Model: "other"}, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := last(), strings.Replace(edited, `"model":"scripted"`, `"model":"other"`, 1); got != want {
		t.Fatalf("sent\n%s\nwant\n%s", got, want)
	}
}

func hasLine(lines []trace.DiffLine, op, text string) bool {
	for _, l := range lines {
		if l.Op == op && l.Text == text {
			return true
		}
	}
	return false
}

// Every way a try cannot be made is said before anything is sent, and
// changes nothing.
func TestTryRefusesWhatCannotBeSent(t *testing.T) {
	h, seqs := tryHarness(t)
	before := exportedJSON(t, h)
	sent := len(h.srv.Requests())
	down := closedPort(t)
	cases := []struct {
		name string
		try  session.Try
		want string
	}{
		{"no such session", session.Try{Session: "nope", At: seqs[0]}, "nope"},
		{"not a request", session.Try{Session: h.id, At: 1}, "no model request 1"},
		{"a model not installed", session.Try{Session: h.id, At: seqs[0], Model: "missing"}, "ollama pull missing"},
		{"a model without tools", session.Try{Session: h.id, At: seqs[0], Model: "plain"}, "cannot use tools"},
		{"the demo model", session.Try{Session: h.id, At: seqs[0], Model: "demo"}, "choose an Ollama model"},
		{"a host that is down", session.Try{Session: h.id, At: seqs[0], Host: down}, "not running"},
		{"a named host that is down", session.Try{Session: h.id, At: seqs[0], Host: "gpu-box"}, `"gpu-box"`},
		{"a host Settings does not name", session.Try{Session: h.id, At: seqs[0], Host: "gpubox"}, "Settings"},
		{"a body that is not JSON", session.Try{Session: h.id, At: seqs[0], Body: "hello"}, "one JSON object"},
		{"a body that names no model", session.Try{Session: h.id, At: seqs[0], Body: `{"messages":[]}`}, "names no model"},
		{"a body with no messages", session.Try{Session: h.id, At: seqs[0], Body: `{"model":"other"}`}, `"messages"`},
		{"a body cut short", session.Try{Session: h.id, At: seqs[0], Body: `{"model":"other","messages":[`}, "Ollama can read"},
		{"two bodies", session.Try{Session: h.id, At: seqs[0], Body: `{"model":"other","messages":[]} {}`}, "more than one"},
		{"num_ctx below 1", session.Try{Session: h.id, At: seqs[0], NumCtx: -5}, "num_ctx"},
		{"temperature out of range", session.Try{Session: h.id, At: seqs[0], Temperature: ptr(9.0)}, "temperature"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := h.m.Try(context.Background(), c.try, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v, want one saying %q", err, c.want)
			}
		})
	}
	if n := len(h.srv.Requests()); n != sent {
		t.Fatalf("%d chat requests sent by refused tries", n-sent)
	}
	if !bytes.Equal(exportedJSON(t, h), before) {
		t.Fatal("the session changed by a refused try")
	}
}

func ptr[T any](v T) *T { return &v }

// closedPort is an address where nothing listens.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// A try stopped while it streams ends at once with the cancel, and the
// session is as it was.
func TestTryCanBeCancelled(t *testing.T) {
	h, seqs := tryHarness(t)
	before := exportedJSON(t, h)
	h.srv.Script(ollamatest.Reply{Chunks: []ollamatest.Chunk{{Content: "one "}, {Content: "two "}, {Content: "three"}}, Delay: 10 * time.Second})
	var tries session.Tries
	done := make(chan error, 1)
	go func() {
		_, err := tries.Run(context.Background(), "t1", func(ctx context.Context) (session.TryResult, error) {
			return h.m.Try(ctx, session.Try{ID: "t1", Session: h.id, At: seqs[1]}, func(d session.TryDelta) {
				if d.ID != "t1" || d.Content != "one " {
					t.Errorf("delta = %+v", d)
				}
				tries.Cancel("t1")
			})
		})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error = %v, want the cancel", err)
		}
	case <-time.After(8 * time.Second):
		t.Fatal("the try went on after its cancel")
	}
	if tries.Cancel("t1") {
		t.Fatal("a try that ended is still listed")
	}
	if !bytes.Equal(exportedJSON(t, h), before) {
		t.Fatal("the session changed by a cancelled try")
	}
}
