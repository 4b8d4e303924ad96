package realscenarios_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/gguf"
)

// "Try this request on…" against a real Ollama server: a session run on
// one scripted model, each of its requests sent again to a second model
// that answers differently. The server gets the recorded bytes with only
// the model changed (or exactly them, for the same model), the answers
// are compared, no call runs, and the session's log is as it was; a
// model without tools is refused before anything is sent.
func TestTryRequestOnAnotherModel(t *testing.T) {
	srv := startServer(t, gguf.Script{Steps: []gguf.Step{
		{Call: []gguf.Call{{Name: "list_dir", Args: `{"path": "."}`}}},
		{Answer: "The workspace has README.md and notes.txt."},
	}})
	createModel(t, srv, "other", gguf.Script{Steps: []gguf.Step{
		{Call: []gguf.Call{{Name: "read_file", Args: `{"path": "README.md"}`}, {Name: "write_file", Args: `{"path": "tried.txt", "content": "no"}`}}},
		{Answer: "Two files: README.md and notes.txt."},
	}})
	srv.CreateModel(t, "plain", gguf.Script{NoTools: true, Steps: []gguf.Step{{Answer: "no tools here"}}})
	r := newRig(t, srv)
	if end := r.run("What is in this folder?"); end.Reason != trace.EndAnswered {
		t.Fatalf("end = %+v", end)
	}
	raws := r.checkRawRequests()
	before := r.events()
	var seqs []int64
	for _, e := range before {
		if e.Kind == trace.KindModelRequest {
			seqs = append(seqs, e.Seq)
		}
	}
	ctx := context.Background()
	lastSent := func() string { b := r.wire.chatBodies(); return string(b[len(b)-1]) }

	// The first request, to the other model: other calls.
	res, err := r.m.Try(ctx, session.Try{Session: r.id, At: seqs[0], Model: "other"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(raws[0], `"model":"scripted"`, `"model":"other"`, 1); lastSent() != want || want == raws[0] {
		t.Fatalf("sent\n%s\nwant the recorded body with only the model changed\n%s", lastSent(), want)
	}
	var verdicts []string
	for _, p := range res.Compare.Calls {
		verdicts = append(verdicts, p.Verdict)
	}
	if got := strings.Join(verdicts, " "); got != "only_recorded only_alternative only_alternative" || res.Compare.SameCalls {
		t.Fatalf("calls compared: %s, want list_dir only recorded and read_file, write_file only the other's", got)
	}
	if res.Alternative.Metrics.PromptEvalCount == 0 || res.Recorded.Metrics.PromptEvalCount == 0 || res.Alternative.Metrics.TotalDuration == 0 {
		t.Fatalf("meters: recorded %+v, alternative %+v", res.Recorded.Metrics, res.Alternative.Metrics)
	}
	if _, err := os.Stat(filepath.Join(r.ws, "tried.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the alternative's write_file ran")
	}

	// The second request, to the other model: another text.
	res, err = r.m.Try(ctx, session.Try{Session: r.id, At: seqs[1], Model: "other"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Compare.SameText || res.Alternative.Content != "Two files: README.md and notes.txt." || res.Recorded.Content != "The workspace has README.md and notes.txt." {
		t.Fatalf("text: recorded %q, alternative %q", res.Recorded.Content, res.Alternative.Content)
	}

	// The same request to the same model: the same bytes, the same answer.
	res, err = r.m.Try(ctx, session.Try{Session: r.id, At: seqs[0]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if lastSent() != raws[0] || !res.Exact || !res.Compare.SameCalls {
		t.Fatalf("unchanged: exact %v, same calls %v", res.Exact, res.Compare.SameCalls)
	}

	sent := len(r.wire.chatBodies())
	if _, err := r.m.Try(ctx, session.Try{Session: r.id, At: seqs[0], Model: "plain"}, nil); err == nil || !strings.Contains(err.Error(), "cannot use tools") {
		t.Fatalf("a model without tools: %v", err)
	}
	if _, err := r.m.Try(ctx, session.Try{Session: r.id, At: seqs[0], Model: "absent"}, nil); err == nil || !strings.Contains(err.Error(), "ollama pull absent") {
		t.Fatalf("a model not installed: %v", err)
	}
	if n := len(r.wire.chatBodies()); n != sent {
		t.Fatalf("%d chat requests sent by refused tries", n-sent)
	}
	after := r.events()
	if len(after) != len(before) {
		t.Fatalf("the log grew from %d to %d events", len(before), len(after))
	}
	for i := range before {
		if !bytes.Equal(before[i].Payload, after[i].Payload) {
			t.Fatalf("event %d changed", before[i].Seq)
		}
	}
}
