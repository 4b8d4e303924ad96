package session_test

import (
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

// printedSamples are tool calls as each family of local models prints
// them when it does not make a native call, one per family, written from
// the family's chat template (the text its ToolCalls branch renders, which
// is what the model was trained to write) and the parser that reads it
// (Ollama v0.17.4 tools/tools.go and model/parsers/, llama.cpp
// common/chat.cpp). Each calls read_file on README.md.
var printedSamples = []struct{ family, text, form string }{
	// Ollama's llama3.1/3.2 templates: {"name": …, "parameters": …}, after
	// <|python_tag|> in the 3.1 prompt format (<|eom_id|> ends a call).
	{"Llama 3.1", `<|python_tag|>{"name": "read_file", "parameters": {"path": "README.md"}}<|eom_id|>`, "<|python_tag|> (Llama)"},
	{"Llama 3.2", "I will read the README.\n\n{\"type\": \"function\", \"name\": \"read_file\", \"parameters\": {\"path\": \"README.md\"}}", "json"},
	// Llama 3.2 1B/3B's pythonic form.
	{"Llama 3.2 pythonic", `[read_file(path="README.md")]`, "python call"},
	// Llama 3.1's custom-tool format, also Functionary v3.1's.
	{"Llama 3.1 custom tool", `<function=read_file>{"path": "README.md"}</function>`, "<function=…> (Llama 3.1, Functionary)"},
	// Qwen 2.5/3 and Hermes templates: <tool_call>{…}</tool_call>.
	{"Qwen 2.5", "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"README.md\"}}\n</tool_call>", "tool_call tag"},
	// Qwen3-Coder: XML parameters inside the tag.
	{"Qwen3-Coder", "<tool_call>\n<function=read_file>\n<parameter=path>\nREADME.md\n</parameter>\n</function>\n</tool_call>", "tool_call tag"},
	// Mistral 7B v0.3, Nemo: [TOOL_CALLS] then a JSON list.
	{"Mistral Nemo", `[TOOL_CALLS] [{"name": "read_file", "arguments": {"path": "README.md"}, "id": "a1b2c3d4e"}]`, "[TOOL_CALLS] (Mistral)"},
	// Ministral 3, Magistral, Devstral: name[ARGS]{…}.
	{"Ministral 3", `[TOOL_CALLS]read_file[ARGS]{"path": "README.md"}`, "[TOOL_CALLS] (Mistral)"},
	// Granite 3.x: <|tool_call|> then a JSON list.
	{"Granite 3", `<|tool_call|>[{"name": "read_file", "arguments": {"path": "README.md"}}]`, "<|tool_call|> (Granite, Phi)"},
	// Gemma 3: no tool tokens; Google's guide asks for Python in a tool_code fence.
	{"Gemma 3", "```tool_code\nprint(read_file(path=\"README.md\"))\n```", "code fence"},
	// Gemma and others: JSON in a json fence.
	{"Gemma json fence", "```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"README.md\"}}\n```", "code fence"},
	// DeepSeek V3.1 and R1.
	{"DeepSeek V3.1", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{\"path\": \"README.md\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>", "DeepSeek tool-call tokens"},
	{"DeepSeek R1", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{\"path\": \"README.md\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>", "DeepSeek tool-call tokens"},
	// Command R7B.
	{"Command R7B", `<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "read_file", "parameters": {"path": "README.md"}}]<|END_ACTION|>`, "<|START_ACTION|> (Command R)"},
	// gpt-oss: the harmony format's commentary channel to a function.
	{"gpt-oss", "<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{\"path\": \"README.md\"}<|call|>", "harmony (gpt-oss)"},
	// LFM2: Python calls between its tokens.
	{"LFM2", `<|tool_call_start|>[read_file(path="README.md")]<|tool_call_end|>`, "<|tool_call_start|> (LFM2)"},
}

// A call printed as text in each family's form, sent by the fake Ollama
// as the answer's content, is recovered and runs through the loop like a
// native call: its tool_call says it was recovered and from which form,
// the model reads the file's content, and the run ends with the answer
// that follows.
func TestPrintedCallsOfEveryFamilyRun(t *testing.T) {
	for _, s := range printedSamples {
		t.Run(s.family, func(t *testing.T) {
			h := newHarness(t, permission.ModeAuto, nil)
			h.srv.Script(ollamatest.Text(s.text), ollamatest.Text("It says hello."))
			if end := h.run("Read the README"); end.Reason != trace.EndAnswered || end.FinalText != "It says hello." {
				t.Fatalf("end = %+v", end)
			}
			evs := h.events()
			invariants.Check(t, evs)
			var tc trace.ToolCall
			var resp trace.ModelResponse
			for _, e := range evs {
				switch e.Kind {
				case trace.KindToolCall:
					tc, _ = trace.Decode[trace.ToolCall](e)
				case trace.KindModelResponse:
					if resp.RequestSeq == 0 {
						resp, _ = trace.Decode[trace.ModelResponse](e)
					}
				}
			}
			if tc.Name != "read_file" || !tc.Valid || tc.Rescue == nil || !tc.Rescue.Recovered || tc.Rescue.Form != s.form || tc.Rescue.Text == "" {
				t.Fatalf("tool call = %+v rescue %+v", tc, tc.Rescue)
			}
			if resp.Printed != s.text || len(resp.ToolCalls) != 1 || len(resp.Rescued) != 1 || resp.Unrecovered != nil {
				t.Fatalf("response = %+v", resp)
			}
			rs := results(t, evs)
			if len(rs) != 1 || rs[0].IsError || !strings.Contains(rs[0].Content, "hello from the workspace") {
				t.Fatalf("results = %+v", rs)
			}
			// The model is shown its message as the call it meant.
			second := h.srv.Requests()[1].Chat.Messages
			asst := second[len(second)-2]
			if asst.Role != "assistant" || len(asst.ToolCalls) != 1 || asst.ToolCalls[0].Function.Name != "read_file" {
				t.Fatalf("assistant message sent back = %+v", asst)
			}
		})
	}
}

// Text that still looks like a call but is not one Loupe can make (a tool
// that was not offered, JSON cut off, a form it does not read) runs
// nothing, and the run ends printed_call after a notice that names the
// form and why: never "answered".
func TestPrintedCallsNotRecoveredAreNotAnswers(t *testing.T) {
	cases := []struct{ name, text, form, why string }{
		{"tool not offered", `[TOOL_CALLS]shell[ARGS]{"cmd": "ls"}`, "[TOOL_CALLS] (Mistral)", `"shell"`},
		{"json cut off", `{"name": "read_file", "parameters": {"path": "READ`, "json", "cut off"},
		{"llama builtin tool", `<|python_tag|>brave_search.call(query="loupe")`, "<|python_tag|> (Llama)", `"brave_search"`},
		{"gemma tool not offered", "```tool_code\nprint(search(query=\"README\"))\n```", "code fence", `"search"`},
		{"unknown form", "<tool>{\"name\": \"read_file\", \"arguments\": {\"path\": \"README.md\"}}</tool>", "unknown form", "does not read"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, permission.ModeAuto, nil)
			h.srv.Script(ollamatest.Text(c.text), ollamatest.Text("never sent"))
			end := h.run("Read the README")
			if end.Reason != trace.EndPrintedCall || end.FinalText != c.text || !strings.Contains(end.Detail, c.form) || !strings.Contains(end.Detail, c.why) {
				t.Fatalf("end = %+v", end)
			}
			evs := h.events()
			invariants.Check(t, evs)
			var notices []trace.Notice
			for _, e := range evs {
				switch e.Kind {
				case trace.KindToolCall, trace.KindToolResult:
					t.Fatalf("a call was made: %s", e.Payload)
				case trace.KindNotice:
					n, _ := trace.Decode[trace.Notice](e)
					notices = append(notices, n)
				case trace.KindModelResponse:
					if r, _ := trace.Decode[trace.ModelResponse](e); r.Unrecovered == nil || r.Unrecovered.Form != c.form {
						t.Fatalf("response = %+v", r)
					}
				}
			}
			if len(notices) != 1 || notices[0].Code != trace.CodePrintedCallUnrecovered {
				t.Fatalf("notices = %+v", notices)
			}
			if n := len(h.srv.Requests()); n != 1 {
				t.Fatalf("%d requests, want 1", n)
			}
		})
	}
}

// The golden log of a model that prints its calls in Mistral's and
// Gemma's forms, then one of a tool that was not offered.
func TestPrintedCallsGolden(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	h.srv.Script(
		ollamatest.Text(`[TOOL_CALLS]read_file[ARGS]{"path": "README.md"}`),
		ollamatest.Text("Now the notes.\n```tool_code\nprint(read_file(path=\"notes.txt\"))\n```"),
		ollamatest.Text(`[TOOL_CALLS]send_email[ARGS]{"to": "me", "body": "alpha and beta"}`),
	)
	if end := h.run("Read both files and mail me what they say"); end.Reason != trace.EndPrintedCall {
		t.Fatalf("end = %+v", end)
	}
	invariants.Check(t, h.events())
	h.golden("printed_calls")
}
