package realscenarios_test

import (
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/gguf"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

// A model that prints its calls as text, through the real server: Ollama
// leaves each form it does not parse in the content, and Loupe recovers
// it as a call (marked, the text kept), runs it, and sends it back as the
// assistant message's call, paired with its result.
func TestTextCallsRecoveredOnRealOllama(t *testing.T) {
	forms := []struct{ text, form string }{
		{`{"name": "list_dir", "arguments": {"path": "."}}`, "json"},
		{"Reading it:\n```json\n{\"name\": \"read_file\", \"parameters\": {\"path\": \"README.md\"}}\n```", "code fence"},
		{`{"type": "function", "function": {"name": "read_file", "arguments": {"path": "notes.txt"}}}`, "json"},
		{`[{"name": "list_dir", "args": {"path": "."}}, {"name": "read_file", "arguments": {"path": "notes.txt"}}]`, "json (list)"},
		{`<function_call>{'name': 'read_file', 'arguments': {'path': 'README.md',}}</function_call>`, "tool_call tag"},
	}
	var steps []gguf.Step
	for _, f := range forms {
		steps = append(steps, gguf.Step{Raw: []string{f.text}})
	}
	steps = append(steps, gguf.Step{Answer: "All read."})
	srv := startServer(t, gguf.Script{Steps: steps})
	r := newRig(t, srv)
	end := r.run("Read everything")
	if end.Reason != trace.EndAnswered || end.FinalText != "All read." || end.Rounds != len(forms)+1 {
		t.Fatalf("end = %+v", end)
	}
	evs := r.events()
	invariants.Check(t, evs)
	var got []string
	for _, c := range payloads[trace.ToolCall](t, evs, trace.KindToolCall) {
		if !c.Valid || c.Rescue == nil || !c.Rescue.Recovered || c.Rescue.Text == "" {
			t.Fatalf("call %+v is not a valid recovered call", c)
		}
		got = append(got, c.Rescue.Form)
	}
	if want := "json|code fence|json|json (list)|json (list)|tool_call tag"; strings.Join(got, "|") != want {
		t.Fatalf("forms = %s, want %s", strings.Join(got, "|"), want)
	}
	for _, res := range payloads[trace.ToolResult](t, evs, trace.KindToolResult) {
		if res.IsError {
			t.Fatalf("result %+v", res)
		}
	}
	resp := payloads[trace.ModelResponse](t, evs, trace.KindModelResponse)
	if resp[4].Rescued[0].Repaired != "single quotes, a trailing comma" {
		t.Fatalf("round 5 rescue = %+v", resp[4].Rescued)
	}
	// What the model was shown next: its message with the call, not the
	// printed text, and the result paired with the call's id.
	raws := r.checkRawRequests()
	msgs := chatMessages(t, raws[2])
	asst, tool := msgs[len(msgs)-2], msgs[len(msgs)-1]
	if asst.Role != "assistant" || asst.Content != "Reading it:" || len(asst.ToolCalls) != 1 || asst.ToolCalls[0].Function.Name != "read_file" ||
		tool.Role != "tool" || tool.ToolCallID != asst.ToolCalls[0].ID {
		t.Fatalf("round 3 ends with %+v then %+v", asst, tool)
	}
}

// The forms other families print their calls in (Mistral's [TOOL_CALLS],
// Llama's <|python_tag|>, Granite's <|tool_call|>, Gemma's tool_code
// fence, DeepSeek's tokens) come from the real server as the answer's
// text and are recovered and run; then a call of a tool that was not
// offered ends the run printed_call, not answered.
func TestPrintedCallFamiliesOnRealOllama(t *testing.T) {
	forms := []struct{ text, form string }{
		{`[TOOL_CALLS]list_dir[ARGS]{"path": "."}`, "[TOOL_CALLS] (Mistral)"},
		{`<|python_tag|>{"name": "read_file", "parameters": {"path": "README.md"}}`, "<|python_tag|> (Llama)"},
		{`<|tool_call|>[{"name": "read_file", "arguments": {"path": "notes.txt"}}]`, "<|tool_call|> (Granite, Phi)"},
		{"```tool_code\nprint(list_dir(path=\".\"))\n```", "code fence"},
		{"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{\"path\": \"README.md\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>", "DeepSeek tool-call tokens"},
	}
	var steps []gguf.Step
	for _, f := range forms {
		steps = append(steps, gguf.Step{Raw: []string{f.text}})
	}
	steps = append(steps, gguf.Step{Raw: []string{`[TOOL_CALLS]send_email[ARGS]{"to": "me"}`}})
	srv := startServer(t, gguf.Script{Steps: steps})
	r := newRig(t, srv)
	end := r.run("Read everything")
	if end.Reason != trace.EndPrintedCall || end.Rounds != len(forms)+1 || !strings.Contains(end.Detail, `"send_email"`) {
		t.Fatalf("end = %+v", end)
	}
	evs := r.events()
	invariants.Check(t, evs)
	var got []string
	for _, c := range payloads[trace.ToolCall](t, evs, trace.KindToolCall) {
		if !c.Valid || c.Rescue == nil || !c.Rescue.Recovered {
			t.Fatalf("call %+v is not a valid recovered call", c)
		}
		got = append(got, c.Rescue.Form)
	}
	want := make([]string, len(forms))
	for i, f := range forms {
		want[i] = f.form
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("forms = %s, want %s", strings.Join(got, "|"), strings.Join(want, "|"))
	}
	for _, res := range payloads[trace.ToolResult](t, evs, trace.KindToolResult) {
		if res.IsError {
			t.Fatalf("result %+v", res)
		}
	}
	ns := payloads[trace.Notice](t, evs, trace.KindNotice)
	if len(ns) == 0 || ns[len(ns)-1].Code != trace.CodePrintedCallUnrecovered {
		t.Fatalf("notices = %+v", ns)
	}
}

// A model that asks for the same call again and again: the third time the
// result ends with a note to the model and a notice is recorded; the
// fourth time the run stops with that reason.
func TestRepeatedCallOnRealOllama(t *testing.T) {
	same := gguf.Step{Call: []gguf.Call{{Name: "list_dir", Args: `{"path": "."}`}}}
	srv := startServer(t, gguf.Script{Steps: []gguf.Step{same, same, same, same, {Answer: "never said"}}})
	r := newRig(t, srv)
	end := r.run("List")
	if end.Reason != trace.EndRepeated || end.Rounds != 4 || !strings.Contains(end.Detail, "4 rounds in a row") {
		t.Fatalf("end = %+v", end)
	}
	evs := r.events()
	invariants.Check(t, evs)
	var codes []string
	for _, n := range payloads[trace.Notice](t, evs, trace.KindNotice) {
		codes = append(codes, n.Code)
	}
	if strings.Join(codes, " ") != "repeated_calls loop_detected" {
		t.Fatalf("notices = %v", codes)
	}
	raws := r.checkRawRequests()
	msgs := chatMessages(t, raws[3])
	if last := msgs[len(msgs)-1]; last.Role != "tool" || !strings.Contains(last.Content, "same call 3 times in a row") {
		t.Fatalf("round 4's last message = %+v", last)
	}
}
