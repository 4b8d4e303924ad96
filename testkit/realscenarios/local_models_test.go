package realscenarios_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/readiness"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/gguf"
	"github.com/loupe-dev/loupe/testkit/invariants"
	"github.com/loupe-dev/loupe/testkit/realollama"
)

// A request as the model read it, from the real server: a session offering
// list_dir alone runs one call; its second request, rendered by Ollama with
// the model's template (Qwen's tool section, each schema as JSON), holds
// the one schema offered, the call in <tool_call> and the result framed
// by <tool_response>, and ends with the turn the model was asked for.
func TestRenderedPromptOnRealOllama(t *testing.T) {
	realollamaOnly(t)
	srv := startRaw(t, gguf.Script{Steps: []gguf.Step{
		{Call: []gguf.Call{{Name: "list_dir", Args: `{"path": "."}`}}},
		{Answer: "The workspace has README.md and notes.txt."},
	}})
	r := newRig(t, srv)
	ctx := context.Background()
	one := []string{"list_dir"}
	out, err := r.m.Do(ctx, session.Create{Workspace: r.ws, Model: modelName, Tools: &one})
	if err != nil {
		t.Fatal(err)
	}
	r.id = out.Summary.ID
	if end := r.run("What is in this folder?"); end.Reason != trace.EndAnswered {
		t.Fatalf("end = %+v", end)
	}
	evs := r.events()
	invariants.Check(t, evs)
	var reqs []int64
	for _, e := range evs {
		if e.Kind == trace.KindModelRequest {
			reqs = append(reqs, e.Seq)
			mr, _ := trace.Decode[trace.ModelRequest](e)
			if !slices.Equal(mr.ToolNames, one) {
				t.Fatalf("request %d offered %v", e.Seq, mr.ToolNames)
			}
		}
	}
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	res := payloads[trace.ToolResult](t, evs, trace.KindToolResult)
	rp, err := session.RenderRequest(ctx, r.st, ollama.New(srv.URL(), nil), r.id, reqs[1])
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("rendered by Ollama:\n%s", rp.Text)
	for _, want := range []string{
		"<|im_start|>system\n",
		"# Tools",
		`"name":"list_dir"`,
		"<tool_call>\n{\"name\": \"list_dir\", \"arguments\": {\"path\":\".\"}}\n</tool_call>",
		"<|im_start|>user\n<tool_response>\n" + res[0].Content + "\n</tool_response><|im_end|>",
	} {
		if !strings.Contains(rp.Text, want) {
			t.Errorf("rendered prompt lacks %q", want)
		}
	}
	// Only the tool offered; the prompt ends by asking for turn 1.
	if strings.Contains(rp.Text, `"name":"read_file"`) || !strings.HasSuffix(rp.Text, "<|im_start|>assistant\n<|step_1|>") {
		t.Errorf("rendered prompt:\n%s", rp.Text)
	}
	if rp.Digest == "" || rp.At.IsZero() || rp.Model != modelName {
		t.Errorf("rendered %+v", rp.Rendered)
	}
	// Rendering ran nothing: the log is as it was.
	if after := r.events(); len(after) != len(evs) {
		t.Errorf("the log grew from %d to %d events", len(evs), len(after))
	}
}

// The readiness check on the real server: a model that calls list_dir
// when asked passes; one that prints the call in a code fence (which its
// template's tag does not match, so Ollama leaves it as text) is told
// apart; a model whose template has no tools section fails the tools
// check, and is not sent the round trip.
func TestReadinessOnRealOllama(t *testing.T) {
	realollamaOnly(t)
	srv := startRaw(t, gguf.Script{Steps: []gguf.Step{{Call: []gguf.Call{{Name: "list_dir", Args: `{"path": "."}`}}}}})
	srv.CreateModel(t, "printer", gguf.Script{Steps: []gguf.Step{{Answer: "```json\n{\"name\": \"list_dir\", \"arguments\": {\"path\": \".\"}}\n```"}}})
	srv.CreateModel(t, "chat-only", gguf.Script{NoTools: true, Steps: []gguf.Step{{Answer: "Hello."}}})
	r := newRig(t, srv)
	ctx := context.Background()
	oc := ollama.New(srv.URL(), nil)
	two := []string{"read_file", "list_dir"}
	check := func(model string) readiness.Report {
		t.Helper()
		rep, err := session.CheckModel(ctx, r.st, oc, session.ModelCheck{Model: model, Workspace: r.ws, Tools: &two, RoundTrip: true})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	status := func(rep readiness.Report, c string) readiness.Item {
		for _, it := range rep.Items {
			if it.Check == c {
				return it
			}
		}
		t.Fatalf("no %s in %+v", c, rep.Items)
		return readiness.Item{}
	}

	rep := check(modelName)
	if !rep.Ready || rep.Reply == nil || rep.Reply.Kind != "call" || !realCallID.MatchString(rep.Reply.Calls[0].ID) {
		t.Fatalf("caller: %+v", rep)
	}
	if it := status(rep, readiness.CheckFit); it.Status != readiness.OK || len(rep.Tools) != 2 {
		t.Errorf("fit %+v, tools %+v", it, rep.Tools)
	}
	var args map[string]any
	if err := json.Unmarshal(rep.Reply.Calls[0].Args, &args); err != nil || args["path"] != "." {
		t.Errorf("call args %s", rep.Reply.Calls[0].Args)
	}

	rep = check("printer")
	if it := status(rep, readiness.CheckRoundTrip); it.Status != readiness.Warn || rep.Reply.Kind != "printed" || !strings.Contains(it.Detail, "code fence") {
		t.Errorf("printer: %+v %+v", it, rep.Reply)
	}

	rep = check("chat-only")
	if it := status(rep, readiness.CheckTools); rep.Ready || it.Status != readiness.Fail || status(rep, readiness.CheckRoundTrip).Status != readiness.Skipped {
		t.Errorf("chat-only: %+v", rep.Items)
	}
}

func realollamaOnly(t *testing.T) { t.Helper(); realollama.Require(t) }

// startRaw starts a real server with the scripted model installed as
// modelName, its template printing each tool's JSON schema as Qwen's does
// (createModel lists names only, to keep prompts short): the scenarios here
// offer one or two tools, and the schemas are what they look at.
func startRaw(t *testing.T, sc gguf.Script) *realollama.Server {
	t.Helper()
	srv := realollama.Start(t)
	srv.CreateModel(t, modelName, sc)
	return srv
}
