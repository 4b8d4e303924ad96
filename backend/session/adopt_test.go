package session_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

// adoptAndRun adopts try res, checks what every adoption keeps, lets the
// fork go on to its end (the next answer scripted as next) and returns
// its log.
func adoptAndRun(t *testing.T, h *harness, res session.TryResult, sent []byte, parentBefore []byte, next ...ollamatest.Reply) (session.Forked, []trace.Event) {
	t.Helper()
	ctx := context.Background()
	parent := h.events()
	f, err := h.m.Adopt(ctx, session.Adopt{Try: res})
	if err != nil {
		t.Fatal(err)
	}
	if f.Summary.ForkedFrom != h.id || f.Summary.ForkSeq != res.At-1 {
		t.Fatalf("the fork is of %s at %d, want of %s at %d (the event before the request)", f.Summary.ForkedFrom, f.Summary.ForkSeq, h.id, res.At-1)
	}
	if f.Summary.Model != res.Alternative.Model {
		t.Fatalf("the fork goes on with %q, want the try's %q", f.Summary.Model, res.Alternative.Model)
	}
	child, _ := h.st.Events(ctx, f.Summary.ID)
	for i := int64(0); i < res.At-1; i++ {
		if eventJSON(t, parent[i]) != eventJSON(t, child[i]) {
			t.Fatalf("event %d differs from the parent's", i+1)
		}
	}
	// The request the fork records is the one the try sent: the Raw view
	// rebuilds the bytes the server received.
	var req int64
	for _, e := range child[res.At-1:] {
		if e.Kind == trace.KindModelRequest {
			req = e.Seq
			break
		}
	}
	raw, err := session.RawRequest(ctx, h.st, f.Summary.ID, req)
	if err != nil {
		t.Fatal(err)
	}
	if raw != string(sent) {
		t.Fatalf("the fork's request rebuilds as\n%s\nthe try sent\n%s", raw, sent)
	}
	ans, err := trace.Decode[trace.ModelResponse](child[req])
	if err != nil || ans.RequestSeq != req || ans.Content != res.Alternative.Content {
		t.Fatalf("the event after the request is not the adopted answer: %+v %v", ans, err)
	}
	p := waitPaused(t, h.m, f.Summary.ID)
	h.srv.Script(next...)
	if _, err := h.m.Do(ctx, session.Continue{Session: f.Summary.ID, At: p.Seq}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		s, _ := h.st.GetSession(ctx, f.Summary.ID)
		return s.OpenRun == 0
	}, "the fork's run to end")
	child, _ = h.st.Events(ctx, f.Summary.ID)
	invariants.Check(t, child)
	if !bytes.Equal(exportedJSON(t, h), parentBefore) {
		t.Fatal("the parent changed by the try, the adoption or the fork's run")
	}
	return f, child
}

// A try on another model, temperature and num_ctx adopted: the fork's log
// is the parent's through the event before the request, then the request
// as the try sent it (its model and options, byte for byte in the Raw
// view), then the try's answer, whose call runs in the fork, which goes on
// with the other model and options.
func TestAdoptForksWithTheRequestTheTrySent(t *testing.T) {
	h, seqs := tryHarness(t)
	ctx := context.Background()
	before := exportedJSON(t, h)
	h.srv.Script(calls(call("alt_1", "read_file", `{"path":"notes.txt"}`)))
	temp := 0.3
	res, err := h.m.Try(ctx, session.Try{Session: h.id, At: seqs[0], Model: "other", NumCtx: 8192, Temperature: &temp}, nil)
	if err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	sent := reqs[len(reqs)-1].Body
	_, child := adoptAndRun(t, h, res, sent, before, ollamatest.Text("It holds alpha and beta."))
	rs := results(t, child)
	if len(rs) != 1 || rs[0].CallID != "alt_1" || !strings.Contains(rs[0].Content, "alpha") {
		t.Fatalf("the adopted answer's call did not run in the fork: %+v", rs)
	}
	reqs = h.srv.Requests()
	last := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(last, `"model":"other"`) || !strings.Contains(last, `"num_ctx":8192`) || !strings.Contains(last, `"temperature":0.3`) {
		t.Fatalf("the fork's next request is not on the try's model and options: %s", last)
	}
	for _, e := range child {
		if e.Kind == trace.KindEdit || (e.Kind == trace.KindCheckpoint && e.Seq < seqs[0]+1) {
			t.Fatalf("a try that changed no text left a pause or an edit in the fork: event %d %s", e.Seq, e.Kind)
		}
	}
}

// A try of an edited body adopted: what it changed of the system prompt
// and of a message's text are edits at a pause before the request, so the
// log holds the request that was sent (the Raw view rebuilds its bytes),
// and the fork goes on with the edited system prompt and message.
func TestAdoptRecordsAnEditedBodyAsEditsAtAPause(t *testing.T) {
	h, seqs := tryHarness(t)
	ctx := context.Background()
	before := exportedJSON(t, h)
	recorded, err := session.RawRequest(ctx, h.st, h.id, seqs[1])
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(recorded, `"content":"What does the README say?"`, `"content":"Say what the README says, in French."`, 1)
	i := strings.Index(edited, `{"role":"system","content":"`)
	if edited == recorded || i < 0 {
		t.Fatalf("the recorded body has no user message or system prompt to edit: %s", recorded)
	}
	at := i + len(`{"role":"system","content":"`)
	edited = edited[:at] + "Answer in French. " + edited[at:]
	h.srv.Script(ollamatest.Text("Le README dit bonjour."))
	res, err := h.m.Try(ctx, session.Try{Session: h.id, At: seqs[1], Body: edited, Model: "other"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	sent := reqs[len(reqs)-1].Body
	f, child := adoptAndRun(t, h, res, sent, before)
	var targets []string
	for _, e := range child[seqs[1]-1:] {
		if e.Kind == trace.KindEdit {
			ed, _ := trace.Decode[trace.Edit](e)
			targets = append(targets, ed.Target)
		}
	}
	if strings.Join(targets, ",") != "system,message" {
		t.Fatalf("the fork's edits = %v, want the system prompt and the message", targets)
	}
	if st := trace.StateOf(child); st.BadEdit != nil {
		t.Fatalf("an edit does not fit its pause: %v", st.BadEdit)
	}
	// The run ended with the adopted answer (it called no tool); a new
	// message goes on with the edits: the system prompt and the message
	// as edited.
	h.srv.Script(ollamatest.Text("Voilà."))
	if _, err := h.m.Run(ctx, f.Summary.ID, "Thanks.", session.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	reqs = h.srv.Requests()
	last := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(last, "in French.") || !strings.Contains(last, `"model":"other"`) {
		t.Fatalf("the fork's next request lost the edits or the model: %s", last)
	}
	if !bytes.Equal(exportedJSON(t, h), before) {
		t.Fatal("the parent changed")
	}
}

// What a log cannot hold of an edited body is refused, and nothing is
// made: a message added, an option Loupe does not record; so is an
// adoption at an event that is no request.
func TestAdoptRefusesWhatTheLogCannotHold(t *testing.T) {
	h, seqs := tryHarness(t)
	ctx := context.Background()
	before := exportedJSON(t, h)
	recorded, err := session.RawRequest(ctx, h.st, h.id, seqs[1])
	if err != nil {
		t.Fatal(err)
	}
	n := sessionCount(t, h)
	for _, c := range []struct{ name, body, want string }{
		{"a message added", strings.Replace(recorded, `"messages":[`, `"messages":[{"role":"user","content":"First this."},`, 1), "messages added"},
		{"another option", strings.Replace(recorded, `"options":{`, `"options":{"top_p":0.5,`, 1), `"options"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.body == recorded {
				t.Fatalf("the body is not shaped as this test expects: %s", recorded)
			}
			h.srv.Script(ollamatest.Text("Sure."))
			res, err := h.m.Try(ctx, session.Try{Session: h.id, At: seqs[1], Body: c.body}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := h.m.Adopt(ctx, session.Adopt{Try: res}); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v, want one saying %q", err, c.want)
			}
		})
	}
	h.srv.Script(ollamatest.Text("Sure."))
	res, err := h.m.Try(ctx, session.Try{Session: h.id, At: seqs[1]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res.At = seqs[1] + 1
	if _, err := h.m.Adopt(ctx, session.Adopt{Try: res}); err == nil || !strings.Contains(err.Error(), "not a request") {
		t.Fatalf("an answer adopted at an event that is no request: %v", err)
	}
	if sessionCount(t, h) != n {
		t.Fatal("a refused adoption made a session")
	}
	if !bytes.Equal(exportedJSON(t, h), before) {
		t.Fatal("the parent changed")
	}
}
