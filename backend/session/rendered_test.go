package session_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/trace"
)

// A stored request is rendered again on demand: the prompt holds the tool
// schemas the request offered, the call and the result framed by the
// template, and says which model rendered it.
func TestRenderRequestOfAStoredSession(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	h.srv.Script(calls(call("call_1", "read_file", `{"path":"README.md"}`)), ollamatest.Text("It is a demo."))
	h.run("What is in README.md?")
	var second int64
	n := 0
	for _, e := range h.events() {
		if e.Kind == trace.KindModelRequest {
			if n++; n == 2 {
				second = e.Seq
			}
		}
	}
	if second == 0 {
		t.Fatal("no second request")
	}
	before := len(h.srv.Requests())
	oc := ollama.New(h.srv.URL(), nil)
	r, err := session.RenderRequest(context.Background(), h.st, oc, h.id, second)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"<|im_start|>system\n",
		`"name":"run_command"`, `"name":"read_file"`,
		"<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\":\"README.md\"}}\n</tool_call>",
		"<|im_start|>user\n<tool_response>\n",
		"What is in README.md?",
	} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("rendered prompt lacks %q:\n%s", want, r.Text)
		}
	}
	if r.Seq != second || r.Model != "scripted" || len(r.Digest) != 64 || r.At.IsZero() {
		t.Errorf("rendered %+v", r.Rendered)
	}
	// It asked Ollama for a rendering of exactly the body that was sent.
	reqs := h.srv.Requests()
	if len(reqs) != before+1 || !reqs[before].Chat.DebugRenderOnly {
		t.Fatalf("%d requests after render", len(reqs)-before)
	}
	raw, _ := session.RawRequest(context.Background(), h.st, h.id, second)
	if got, want := strings.Replace(string(reqs[before].Body), `"stream":false`, `"stream":true`, 1), raw; !strings.HasPrefix(got, want[:len(want)-1]) {
		t.Errorf("render body\n%s\nsent body\n%s", got, want)
	}

	// Ollama stopped: say to start it.
	// (A new client: the old one's idle connection would fail as cut.)
	h.srv.Close()
	_, err = session.RenderRequest(context.Background(), h.st, ollama.New(h.srv.URL(), nil), h.id, second)
	var un *ollama.UnreachableError
	if !errors.As(err, &un) {
		t.Errorf("Ollama stopped: %v", err)
	}
	if _, err := session.RenderRequest(context.Background(), h.st, oc, h.id, 1); err == nil || !strings.Contains(err.Error(), "no model request 1") {
		t.Errorf("not a request: %v", err)
	}
}

func TestRenderRequestModelGone(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	h.srv.Script(ollamatest.Text("Hello."))
	h.run("hi")
	other := ollamatest.New(t) // the same Ollama, after `ollama rm scripted`
	_, err := session.RenderRequest(context.Background(), h.st, ollama.New(other.URL(), nil), h.id, 2)
	var nf *ollama.ModelNotFoundError
	if !errors.As(err, &nf) || !strings.Contains(err.Error(), "ollama pull scripted") {
		t.Errorf("model gone: %v", err)
	}
}

// At a pause before a request, the request it will send is rendered, with
// the edits made there: once stepped, the stored request renders the same.
func TestRenderPendingRequestIsWhatIsSent(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	h.srv.Script(calls(call("call_1", "read_file", `{"path":"README.md"}`)), ollamatest.Text("Hello."))
	stepping(t, h)
	ctx := context.Background()
	oc := ollama.New(h.srv.URL(), nil)
	done := startRun(t, h, "Read README.md")
	p := waitPaused(t, h.m, h.id)
	system := "You are a careful agent."
	if _, err := h.m.Do(ctx, session.EditRequest{Session: h.id, At: p.Seq, Request: &agent.RequestEdit{System: &system,
		Messages: []agent.MessageEdit{{Seq: p.Request.Messages[0].Seq, Content: "Read notes.txt"}}}}); err != nil {
		t.Fatal(err)
	}
	pending, err := session.RenderRequest(ctx, h.st, oc, h.id, p.Seq)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(pending.Text, "<|im_start|>system\nYou are a careful agent.") || !strings.Contains(pending.Text, "Read notes.txt") {
		t.Fatalf("pending rendered:\n%s", pending.Text)
	}
	step(t, h) // send it
	waitPaused(t, h.m, h.id)
	var sent int64
	for _, e := range h.events() {
		if e.Kind == trace.KindModelRequest {
			sent = e.Seq
		}
	}
	stored, err := session.RenderRequest(ctx, h.st, oc, h.id, sent)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Text != pending.Text {
		t.Errorf("rendered at the pause:\n%s\nrendered as sent:\n%s", pending.Text, stored.Text)
	}
	// The pause is over: its checkpoint is no request.
	if _, err := session.RenderRequest(ctx, h.st, oc, h.id, p.Seq); err == nil {
		t.Error("a pause that is over rendered")
	}
	if _, err := h.m.Do(ctx, session.Continue{Session: h.id, At: 0}); err != nil {
		t.Fatal(err)
	}
	<-done
}
