package readiness_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/readiness"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/tools"
)

// input is what a new session would send, with every built-in tool.
func input(t *testing.T, model string, roundTrip bool) readiness.Input {
	t.Helper()
	set := settings.Defaults()
	system, err := set.PromptFor("/home/me/project")
	if err != nil {
		t.Fatal(err)
	}
	return readiness.Input{Model: model, System: system, Tools: tools.BuiltinSpecs(), NumCtxCap: set.NumCtxCap, RoundTrip: roundTrip}
}

func item(t *testing.T, r readiness.Report, check string) readiness.Item {
	t.Helper()
	for _, it := range r.Items {
		if it.Check == check {
			return it
		}
	}
	t.Fatalf("no %s item in %+v", check, r.Items)
	return readiness.Item{}
}

func server(t *testing.T) (*ollamatest.Server, *ollama.Client) {
	srv := ollamatest.New(t)
	srv.AddModel(ollamatest.ModelSpec{Name: "coder", ContextLength: 32768})
	srv.AddModel(ollamatest.ModelSpec{Name: "plain", ContextLength: 8192, Capabilities: []string{"completion"}})
	srv.AddModel(ollamatest.ModelSpec{Name: "tiny", ContextLength: 2048})
	return srv, ollama.New(srv.URL(), nil)
}

func TestAModelThatCallsIsReady(t *testing.T) {
	srv, c := server(t)
	srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "list_dir", Args: `{"path":"."}`}}})
	rep, err := readiness.Check(context.Background(), c, input(t, "coder", true))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Ready || rep.NumCtx != 16384 || len(rep.Tools) != 7 || rep.Fixed < 1000 || rep.Fixed != rep.SystemTokens+rep.ToolTokens {
		t.Fatalf("report %+v", rep)
	}
	for _, check := range []string{readiness.CheckTools, readiness.CheckFit, readiness.CheckRoundTrip} {
		if it := item(t, rep, check); it.Status != readiness.OK || it.Fix != "" {
			t.Errorf("%s: %+v", check, it)
		}
	}
	if it := item(t, rep, readiness.CheckRoundTrip); !strings.Contains(it.Detail, `real tool call: list_dir {"path":"."} (not run)`) {
		t.Errorf("round trip %q", it.Detail)
	}
	// The probe offered one harmless tool and asked for nothing else.
	reqs := srv.Requests()
	if len(reqs) != 1 || len(reqs[0].Chat.Tools) != 1 || reqs[0].Chat.Tools[0].Function.Name != "list_dir" || rep.Reply.Kind != "call" {
		t.Fatalf("probe %+v", reqs)
	}
	// Without the round trip nothing is sent to the model.
	rep, err = readiness.Check(context.Background(), c, input(t, "coder", false))
	if err != nil || item(t, rep, readiness.CheckRoundTrip).Status != readiness.Skipped || len(srv.Requests()) != 1 {
		t.Errorf("no round trip: %+v, %v", rep, err)
	}
}

func TestAModelWithoutTools(t *testing.T) {
	srv, c := server(t)
	rep, err := readiness.Check(context.Background(), c, input(t, "plain", true))
	if err != nil {
		t.Fatal(err)
	}
	it := item(t, rep, readiness.CheckTools)
	if rep.Ready || it.Status != readiness.Fail || !strings.Contains(it.Detail, "no tools capability (Ollama lists completion)") || !strings.Contains(it.Fix, "Pick a model that lists \"tools\"") {
		t.Errorf("tools item %+v", it)
	}
	// Such a model is sent no schemas, and is not probed.
	if rep.ToolTokens != 0 || item(t, rep, readiness.CheckRoundTrip).Status != readiness.Skipped || len(srv.Requests()) != 0 {
		t.Errorf("report %+v, %d requests", rep, len(srv.Requests()))
	}
}

func TestAModelThatPrintsItsCall(t *testing.T) {
	srv, c := server(t)
	srv.Script(ollamatest.Text("<tool_call>\n", `{"name": "list_dir", "arguments": {"path": "."}}`, "\n</tool_call>"))
	rep, err := readiness.Check(context.Background(), c, input(t, "coder", true))
	if err != nil {
		t.Fatal(err)
	}
	it := item(t, rep, readiness.CheckRoundTrip)
	if it.Status != readiness.Warn || !strings.Contains(it.Detail, "printed the call as text (tool_call tag)") || !strings.Contains(it.Fix, "Recover calls printed as text") {
		t.Errorf("round trip %+v", it)
	}
	if rep.Reply == nil || rep.Reply.Kind != "printed" || rep.Reply.Printed[0].Name != "list_dir" || !rep.Ready {
		t.Errorf("reply %+v", rep.Reply)
	}
}

func TestAModelThatDoesNotCall(t *testing.T) {
	srv, c := server(t)
	srv.Script(ollamatest.Text("Sure! The files are main.go and go.mod."))
	rep, err := readiness.Check(context.Background(), c, input(t, "coder", true))
	if err != nil {
		t.Fatal(err)
	}
	it := item(t, rep, readiness.CheckRoundTrip)
	if rep.Ready || it.Status != readiness.Fail || !strings.Contains(it.Detail, `made no call and wrote "Sure! The files are main.go and go.mod."`) || !strings.Contains(it.Fix, "Pick another model") {
		t.Errorf("round trip %+v", it)
	}
}

func TestFitInASmallContext(t *testing.T) {
	_, c := server(t)
	in := input(t, "tiny", false)
	rep, err := readiness.Check(context.Background(), c, in)
	if err != nil {
		t.Fatal(err)
	}
	it := item(t, rep, readiness.CheckFit)
	if rep.NumCtx != 2048 || it.Status == readiness.OK || !strings.Contains(it.Fix, "Offer fewer tools (the largest schema is read_file") || !strings.Contains(it.Fix, "pick a model with a longer context") {
		t.Fatalf("fit %+v (fixed %d of %d)", it, rep.Fixed, rep.NumCtx)
	}
	// The model's whole context is already used: raising the cap is no way out.
	if strings.Contains(it.Fix, "raise the num_ctx cap") {
		t.Errorf("fix %q", it.Fix)
	}
	// Two small tools: room to work.
	in.Tools = in.Tools[:0]
	for _, s := range tools.BuiltinSpecs() {
		if s.Name == "read_file" || s.Name == "list_dir" {
			in.Tools = append(in.Tools, s)
		}
	}
	rep2, err := readiness.Check(context.Background(), c, in)
	if err != nil {
		t.Fatal(err)
	}
	if rep2.ToolTokens >= rep.ToolTokens || len(rep2.Tools) != 2 {
		t.Errorf("fewer tools: %d tokens of schemas, was %d", rep2.ToolTokens, rep.ToolTokens)
	}
	if it2 := item(t, rep2, readiness.CheckFit); it2.Status != readiness.OK && it2.Status != readiness.Warn {
		t.Errorf("fit with two tools %+v", it2)
	}
}

func TestOllamaNotThere(t *testing.T) {
	_, c := server(t)
	_, err := readiness.Check(context.Background(), c, input(t, "gone", true))
	var nf *ollama.ModelNotFoundError
	if !errors.As(err, &nf) {
		t.Errorf("missing model: %v", err)
	}
}
