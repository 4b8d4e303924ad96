package session_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/readiness"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/trace"
)

// A small model picked with care, as the window lives it: the readiness
// checklist of three models (one that calls, one without tools, one that
// prints its call), a session created with two tools, a run, its second
// request as the model read it, and a tool dropped in the session's Tools
// panel, which checks the model again.
func TestRecordingsSmallModel(t *testing.T) {
	w := newWindow(t, "small_model", "The readiness check of three models, a session offering read_file and list_dir, one run, its second request rendered by Ollama, then list_dir dropped.", permission.ModeAsk, nil)
	w.srv.AddModel(ollamatest.ModelSpec{Name: "gemma3:1b", Family: "gemma3", ContextLength: 32768, Capabilities: []string{"completion"}})
	w.srv.AddModel(ollamatest.ModelSpec{Name: "llama3.2:1b", ContextLength: 131072, Capabilities: []string{"completion", "tools", "thinking"}})
	w.started(nil)
	ctx := context.Background()
	oc := ollama.New(w.srv.URL(), nil)
	check := func(c session.ModelCheck) readiness.Report {
		t.Helper()
		var rep readiness.Report
		w.must(w.rec.Query("checkModel", func() (any, error) {
			var err error
			rep, err = session.CheckModel(ctx, w.st, oc, c)
			return rep, err
		}, c))
		return rep
	}
	two := []string{"read_file", "list_dir"}

	// Picked with every tool, then with two: the schemas take less.
	all := check(session.ModelCheck{Model: recordedModel, Workspace: w.ws})
	some := check(session.ModelCheck{Model: recordedModel, Workspace: w.ws, Tools: &two})
	if some.ToolTokens >= all.ToolTokens || !all.Ready || !some.Ready {
		t.Fatalf("all %+v\nsome %+v", all, some)
	}
	// The round trip: a real call, no tools capability, a call printed.
	w.srv.Script(calls(call("call_p1", "list_dir", `{"path":"."}`)))
	if rep := check(session.ModelCheck{Model: recordedModel, Workspace: w.ws, Tools: &two, RoundTrip: true}); rep.Reply == nil || rep.Reply.Kind != "call" {
		t.Fatalf("real call: %+v", rep)
	}
	if rep := check(session.ModelCheck{Model: "gemma3:1b", Workspace: w.ws, Tools: &two, RoundTrip: true}); rep.Ready {
		t.Fatalf("no tools: %+v", rep)
	}
	w.srv.Script(text(`<tool_call>{"name": "list_dir", "arguments": {"path": "."}}</tool_call>`))
	if rep := check(session.ModelCheck{Model: "llama3.2:1b", Workspace: w.ws, Tools: &two, RoundTrip: true}); rep.Reply == nil || rep.Reply.Kind != "printed" {
		t.Fatalf("printed: %+v", rep)
	}
	probes := len(w.srv.Requests())

	out := w.mustDo(session.Create{Workspace: w.ws, Model: recordedModel, Tools: &two})
	w.id = out.Summary.ID
	w.srv.Script(
		calls(call("call_1", "read_file", `{"path":"README.md"}`)),
		text("The README says hello from the workspace."),
	)
	w.send("What does README.md say?")
	w.untilEnded()
	if got := w.srv.Requests()[probes]; len(got.Chat.Tools) != 2 {
		t.Fatalf("the run offered %d tools", len(got.Chat.Tools))
	}
	w.rec.Mark("ran")

	second := w.seqOf(trace.KindModelRequest, 1) // nth from 0
	var r session.RenderedPrompt
	w.must(w.rec.Query("renderedPrompt", func() (any, error) {
		var err error
		r, err = session.RenderRequest(ctx, w.st, oc, w.id, second)
		return r, err
	}, w.id, second))
	if !strings.Contains(r.Text, "<tool_response>") {
		t.Fatalf("rendered %s", r.Text)
	}
	if strings.Contains(r.Text, `"name":"run_command"`) || !strings.Contains(r.Text, `"name":"list_dir"`) {
		t.Fatalf("rendered tools %s", r.Text)
	}

	one := []string{"read_file"}
	out = w.mustDo(session.SetTools{Session: w.id, Tools: &one})
	if !slices.Equal(*out.Summary.Tools, one) {
		t.Fatalf("set tools: %+v", out.Summary)
	}
	// The session's Tools panel checks its model for what it now offers.
	if rep := check(session.ModelCheck{Model: recordedModel, Workspace: w.ws, Tools: &one}); len(rep.Tools) != 1 || rep.ToolTokens >= some.ToolTokens {
		t.Fatalf("one tool: %+v", rep)
	}
	w.saveAs("small_model")
}
