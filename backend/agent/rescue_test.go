package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

var offered = []string{"read_file", "list_dir", "write_file"}

// Each form a small model prints a call in is recovered, with its name,
// its arguments as a JSON object, the form, and what was repaired; the
// text left is the prose around it.
func TestRecoverCalls(t *testing.T) {
	type want struct{ name, args, form, repaired string }
	cases := []struct {
		name    string
		content string
		calls   []want
		rest    string
	}{
		{"bare json", `{"name": "list_dir", "arguments": {"path": "."}}`,
			[]want{{"list_dir", `{"path":"."}`, "json", ""}}, ""},
		{"parameters", `{"name": "read_file", "parameters": {"path": "a.go"}}`,
			[]want{{"read_file", `{"path":"a.go"}`, "json", ""}}, ""},
		{"args", ` {"name":"read_file","args":{"path":"a.go"}} `,
			[]want{{"read_file", `{"path":"a.go"}`, "json", ""}}, ""},
		{"function wrapper", `{"type": "function", "function": {"name": "list_dir", "arguments": {"path": "src"}}}`,
			[]want{{"list_dir", `{"path":"src"}`, "json", ""}}, ""},
		{"no arguments needed", `{"name": "list_dir", "arguments": {}}`,
			[]want{{"list_dir", `{}`, "json", ""}}, ""},
		{"no arguments key", `{"name": "list_dir"}`,
			[]want{{"list_dir", `{}`, "json", ""}}, ""},
		{"json fence", "I will list it.\n```json\n{\"name\": \"list_dir\", \"arguments\": {\"path\": \".\"}}\n```",
			[]want{{"list_dir", `{"path":"."}`, "code fence", ""}}, "I will list it."},
		{"plain fence", "```\n{\"name\": \"list_dir\", \"arguments\": {\"path\": \".\"}}\n```",
			[]want{{"list_dir", `{"path":"."}`, "code fence", ""}}, ""},
		{"tag", "<tool_call>\n{\"name\": \"list_dir\", \"arguments\": {\"path\": \".\"}}\n</tool_call>",
			[]want{{"list_dir", `{"path":"."}`, "tool_call tag", ""}}, ""},
		{"unclosed tag at the end", "Let me look.\n<tool_call>{\"name\": \"list_dir\", \"arguments\": {\"path\": \".\"}}",
			[]want{{"list_dir", `{"path":"."}`, "tool_call tag", ""}}, "Let me look."},
		{"two tags", "<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}</tool_call>\n<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"b\"}}</tool_call>",
			[]want{{"read_file", `{"path":"a"}`, "tool_call tag", ""}, {"read_file", `{"path":"b"}`, "tool_call tag", ""}}, ""},
		{"list", `[{"name": "read_file", "arguments": {"path": "a"}}, {"name": "list_dir", "arguments": {"path": "."}}]`,
			[]want{{"read_file", `{"path":"a"}`, "json (list)", ""}, {"list_dir", `{"path":"."}`, "json (list)", ""}}, ""},
		{"tool_calls wrapper", `{"tool_calls": [{"function": {"name": "list_dir", "arguments": {"path": "."}}}]}`,
			[]want{{"list_dir", `{"path":"."}`, "json", ""}}, ""},
		{"arguments as a JSON string", `{"name": "read_file", "arguments": "{\"path\": \"a.go\"}"}`,
			[]want{{"read_file", `{"path":"a.go"}`, "json", "the arguments were a JSON string holding the object"}}, ""},
		{"trailing comma", `{"name": "read_file", "arguments": {"path": "a.go",},}`,
			[]want{{"read_file", `{"path":"a.go"}`, "json", "a trailing comma"}}, ""},
		{"single quotes", `{'name': 'read_file', 'arguments': {'path': 'it"s.go'}}`,
			[]want{{"read_file", `{"path":"it\"s.go"}`, "json", "single quotes"}}, ""},
		{"unquoted keys", `{name: "read_file", arguments: {path: "a.go", limit: 10}}`,
			[]want{{"read_file", `{"limit":10,"path":"a.go"}`, "json", "unquoted keys"}}, ""},
		{"python literals", "<tool_call>{'name': 'write_file', 'arguments': {'path': 'a', 'append': True}}</tool_call>",
			[]want{{"write_file", `{"append":true,"path":"a"}`, "tool_call tag", "single quotes, Python literals"}}, ""},

		// One sample per model family, written from the family's chat
		// template (what its ToolCalls branch renders) and the parser that
		// reads it: Ollama v0.17.4 tools/tools.go and model/parsers/,
		// llama.cpp common/chat.cpp.

		// Llama 3.1/3.2 (Ollama's llama3.x templates render
		// {"name": …, "parameters": …}; <|python_tag|> opens a call,
		// <|eom_id|> ends it).
		{"llama python_tag", `<|python_tag|>{"name": "read_file", "parameters": {"path": "a.go"}}<|eom_id|>`,
			[]want{{"read_file", `{"path":"a.go"}`, "<|python_tag|> (Llama)", ""}}, ""},
		{"llama bare json after prose", "I'll read it.\n\n{\"type\": \"function\", \"name\": \"read_file\", \"parameters\": {\"path\": \"a.go\"}}",
			[]want{{"read_file", `{"path":"a.go"}`, "json", ""}}, "I'll read it."},
		{"llama parallel json", `{"name": "read_file", "parameters": {"path": "a"}}; {"name": "list_dir", "parameters": {"path": "."}}`,
			[]want{{"read_file", `{"path":"a"}`, "json (list)", ""}, {"list_dir", `{"path":"."}`, "json (list)", ""}}, ""},
		// Llama 3.2 1B/3B pythonic form: [func(a=1), func2(b=2)].
		{"llama pythonic", `[read_file(path="a.go"), list_dir(path='.')]`,
			[]want{{"read_file", `{"path":"a.go"}`, "python call (list)", ""}, {"list_dir", `{"path":"."}`, "python call (list)", ""}}, ""},
		// Llama 3.1 custom tools and Functionary v3.1: <function=name>{…}</function>.
		{"llama custom function tag", `<function=read_file>{"path": "a.go"}</function>`,
			[]want{{"read_file", `{"path":"a.go"}`, "<function=…> (Llama 3.1, Functionary)", ""}}, ""},
		{"hermes function name tag", `<function name="list_dir">{"path": "."}</function>`,
			[]want{{"list_dir", `{"path":"."}`, "<function=…> (Llama 3.1, Functionary)", ""}}, ""},
		// Qwen3-Coder (model/parsers/qwen3coder.go): XML parameters in the tag.
		{"qwen3 coder", "<tool_call>\n<function=read_file>\n<parameter=path>\na.go\n</parameter>\n<parameter=limit>\n10\n</parameter>\n</function>\n</tool_call>",
			[]want{{"read_file", `{"limit":10,"path":"a.go"}`, "tool_call tag", ""}}, ""},
		// GLM 4.x (model/parsers/glm46.go).
		{"glm arg keys", "<tool_call>read_file<arg_key>path</arg_key><arg_value>a.go</arg_value></tool_call>",
			[]want{{"read_file", `{"path":"a.go"}`, "tool_call tag", ""}}, ""},
		// Mistral 7B v0.3, Nemo, Small: [TOOL_CALLS] then a JSON list with 9-character ids.
		{"mistral list", `[TOOL_CALLS] [{"name": "read_file", "arguments": {"path": "a.go"}, "id": "a1b2c3d4e"}]</s>`,
			[]want{{"read_file", `{"path":"a.go"}`, "[TOOL_CALLS] (Mistral)", ""}}, ""},
		// Ministral 3, Magistral, Devstral (model/parsers/ministral.go): name[ARGS]{…}, the token again for each call.
		{"mistral args", `[TOOL_CALLS]read_file[ARGS]{"path": "a"}[TOOL_CALLS]list_dir[ARGS]{"path": "."}`,
			[]want{{"read_file", `{"path":"a"}`, "[TOOL_CALLS] (Mistral)", ""}, {"list_dir", `{"path":"."}`, "[TOOL_CALLS] (Mistral)", ""}}, ""},
		{"mistral call id", `[TOOL_CALLS]read_file[CALL_ID]x7Yk2pQ9a[ARGS]{"path": "a.go"}`,
			[]want{{"read_file", `{"path":"a.go"}`, "[TOOL_CALLS] (Mistral)", ""}}, ""},
		// Granite 3.x: <|tool_call|> then a JSON list.
		{"granite", `<|tool_call|>[{"name": "read_file", "arguments": {"path": "a.go"}}]`,
			[]want{{"read_file", `{"path":"a.go"}`, "<|tool_call|> (Granite, Phi)", ""}}, ""},
		// Phi-4-mini: the same token, closed, with "parameters".
		{"phi4 mini", "Reading.<|tool_call|>[{\"type\": \"function\", \"name\": \"read_file\", \"parameters\": {\"path\": \"a.go\"}}]<|/tool_call|>",
			[]want{{"read_file", `{"path":"a.go"}`, "<|tool_call|> (Granite, Phi)", ""}}, "Reading."},
		// Gemma 3 (no tool tokens; Google's guide asks for a tool_code fence of Python calls).
		{"gemma tool_code", "```tool_code\nprint(read_file(path=\"a.go\", limit=5))\n```",
			[]want{{"read_file", `{"limit":5,"path":"a.go"}`, "code fence", ""}}, ""},
		{"gemma default_api", "```tool_code\nprint(default_api.list_dir(path='.'))\n```",
			[]want{{"list_dir", `{"path":"."}`, "code fence", ""}}, ""},
		// DeepSeek V3.1 (model/parsers/deepseek3.go).
		{"deepseek v3.1", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{\"path\": \"a.go\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
			[]want{{"read_file", `{"path":"a.go"}`, "DeepSeek tool-call tokens", ""}}, ""},
		// DeepSeek R1 and V3 (llama.cpp common_chat_parse_deepseek_r1).
		{"deepseek r1", "Let me look.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>list_dir\n```json\n{\"path\": \".\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
			[]want{{"list_dir", `{"path":"."}`, "DeepSeek tool-call tokens", ""}}, "Let me look."},
		// Command R7B: <|START_ACTION|>[{"tool_call_id", "tool_name", "parameters"}]<|END_ACTION|>.
		{"command r", `<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "read_file", "parameters": {"path": "a.go"}}]<|END_ACTION|>`,
			[]want{{"read_file", `{"path":"a.go"}`, "<|START_ACTION|> (Command R)", ""}}, ""},
		// LFM2 (model/parsers/lfm2.go) and OLMo 3 (model/parsers/olmo3.go): Python calls between tokens.
		{"lfm2", `<|tool_call_start|>[read_file(path="a.go")]<|tool_call_end|>`,
			[]want{{"read_file", `{"path":"a.go"}`, "<|tool_call_start|> (LFM2)", ""}}, ""},
		// gpt-oss's harmony format (Ollama's harmony/harmonyparser.go).
		{"harmony", "<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{\"path\": \"a.go\"}<|call|>",
			[]want{{"read_file", `{"path":"a.go"}`, "harmony (gpt-oss)", ""}}, ""},
		{"olmo3", "<function_calls>read_file(path=\"a\")\nlist_dir(path=\".\")</function_calls>",
			[]want{{"read_file", `{"path":"a"}`, "<function_calls> (OLMo)", ""}, {"list_dir", `{"path":"."}`, "<function_calls> (OLMo)", ""}}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, rest := recoverCalls(c.content, offered)
			if len(got) != len(c.calls) {
				t.Fatalf("got %d calls %+v, want %d", len(got), got, len(c.calls))
			}
			for i, w := range c.calls {
				g := got[i]
				if g.Name != w.name || string(g.Args) != w.args || g.Form != w.form || g.Repaired != w.repaired || g.Unparsed {
					t.Errorf("call %d = %+v args %s, want %+v", i, g, g.Args, w)
				}
				if g.Text == "" {
					t.Errorf("call %d keeps no original text", i)
				}
			}
			if rest != c.rest {
				t.Errorf("rest = %q, want %q", rest, c.rest)
			}
		})
	}
}

// Text that only looks like a call is left as it is: a tool that is not
// offered, JSON inside prose, a fence holding code, a list with something
// else in it, an object with other keys, arguments that are not an object,
// a bare word where JSON is expected. Of these, the ones plainly shaped as
// a call (looks) are said to be so, with their form, so the run does not
// end as if the model had answered.
func TestRecoverCallsLeavesNearMissesAlone(t *testing.T) {
	cases := map[string]struct {
		content string
		looks   string // the form of the miss; "" when the text is not a call at all
	}{
		"not offered":                    {`{"name": "delete_all", "arguments": {}}`, "json"},
		"inside prose":                   {`To list a folder, call {"name": "list_dir", "arguments": {"path": "."}} yourself.`, ""},
		"extra keys":                     {`{"name": "list_dir", "arguments": {"path": "."}, "reason": "to look"}`, "json"},
		"two argument keys":              {`{"name": "list_dir", "arguments": {}, "parameters": {}}`, "json"},
		"arguments a list":               {`{"name": "list_dir", "arguments": ["."]}`, "json"},
		"arguments bad text":             {`{"name": "list_dir", "arguments": "the current folder"}`, "json"},
		"mixed list":                     {`[{"name": "list_dir", "arguments": {}}, {"name": "nope", "arguments": {}}]`, "json"},
		"empty list":                     {`[]`, ""},
		"code fence of code":             {"```go\nfunc main() {}\n```", ""},
		"fence with an example and code": {"```json\n{\"name\": \"list_dir\", \"arguments\": {}}\n```\nand\n```\n{\"x\": 1}\n```", "code fence"},
		"json that is data":              {`{"path": ".", "size": 3}`, ""},
		"bare word value":                {`{"name": "list_dir", "arguments": {"path": here}}`, "json"},
		"unclosed quote":                 {`{"name": "list_dir", "arguments": {"path": "}}`, "json"},
		"plain answer":                   {`The folder holds a.go and b.go.`, ""},
		"python code":                    {"```python\nprint(len(files))\n```", ""},
		"a sentence with parentheses":    {`sorted(a) returns a new list.`, ""},
		"tag with other tool":            {"<tool_call>{\"name\": \"shell\", \"arguments\": {}}</tool_call>", "tool_call tag"},
		// Cut off before the end: a small model that hit its stop token.
		"truncated json":               {`{"name": "read_file", "arguments": {"path": "a.go"`, "json"},
		"mistral, tool not offered":    {`[TOOL_CALLS]shell[ARGS]{"cmd": "ls"}`, "[TOOL_CALLS] (Mistral)"},
		"llama builtin tool":           {`<|python_tag|>brave_search.call(query="go modules")`, "<|python_tag|> (Llama)"},
		"gemma, tool not offered":      {"```tool_code\nprint(search(query=\"x\"))\n```", "code fence"},
		"deepseek, tool not offered":   {"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>shell<｜tool▁sep｜>{\"cmd\": \"ls\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>", "DeepSeek tool-call tokens"},
		"pythonic, tool not offered":   {`[get_weather(city="Paris")]`, "python call"},
		"unknown markup":               {"<tool>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go\"}}</tool>", "unknown form"},
		"a call followed by more text": {"I will read it:\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go\"}}\nthen sum up.", "unknown form"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got, rest, m := readPrinted(c.content, offered)
			if len(got) != 0 || rest != c.content {
				t.Fatalf("recovered %+v, rest %q", got, rest)
			}
			switch {
			case c.looks == "" && m != nil:
				t.Fatalf("said to look like a call: %+v", m)
			case c.looks != "" && (m == nil || m.form != c.looks || m.why == "" || m.text == ""):
				t.Fatalf("miss = %+v, want form %q with a reason and the text", m, c.looks)
			}
		})
	}
}

// A tag around an offered tool's name whose JSON is beyond repair is still
// a call (the intent is plain), marked unparsed with the text kept, so the
// model hears what is wrong and what was expected.
func TestRecoverUnparsedTag(t *testing.T) {
	got, _ := recoverCalls(`<tool_call>{"name": "read_file", "arguments": {"path": a.go b.go}}</tool_call>`, offered)
	if len(got) != 1 || got[0].Name != "read_file" || !got[0].Unparsed || got[0].Bad != `{"name": "read_file", "arguments": {"path": a.go b.go}}` {
		t.Fatalf("got %+v", got)
	}
}

// Arguments that arrive as something other than a JSON object are
// repaired when their meaning is plain, and left for validation when not.
func TestRepairArgs(t *testing.T) {
	cases := []struct{ in, out, how string }{
		{`"{\"path\": \"a.go\"}"`, `{"path":"a.go"}`, "the arguments were a JSON string holding the object"},
		{`{"path": "a.go",}`, `{"path":"a.go"}`, "a trailing comma"},
		{`{'path': 'a.go'}`, `{"path":"a.go"}`, "single quotes"},
		{`{path: "a.go"}`, `{"path":"a.go"}`, "unquoted keys"},
		{`"{'path': 'a.go',}"`, `{"path":"a.go"}`, "the arguments were a JSON string holding the object; single quotes, a trailing comma"},
	}
	for _, c := range cases {
		got, how, ok := repairArgs(json.RawMessage(c.in))
		if !ok || string(got) != c.out || how != c.how {
			t.Errorf("repairArgs(%s) = %s %q %v, want %s %q", c.in, got, how, ok, c.out, c.how)
		}
	}
	for _, in := range []string{``, `{"path": "a.go"}`, `"a.go"`, `["a.go"]`, `{path: a.go}`, `{"path": "a.go"`, `42`} {
		if got, how, ok := repairArgs(json.RawMessage(in)); ok {
			t.Errorf("repairArgs(%s) repaired to %s (%s); want it left alone", in, got, how)
		}
	}
}

// A call printed as text is recovered and runs as a call: it is checked
// and permitted like any other, its tool_call event says it was recovered
// with the original text, and the next request shows the model the
// assistant message with that call (and without the printed text).
func TestRecoveredCallRuns(t *testing.T) {
	r := newRig(t)
	r.cfg.RecoverTextCalls = true
	r.model.say(text("Looking.\n<tool_call>{\"name\": \"look\", \"arguments\": {\"x\": \"a\",}}</tool_call>"), text("done"))
	end := r.run(t.Context(), "Look")
	if end.Reason != "answered" || end.FinalText != "done" {
		t.Fatalf("end = %+v", end)
	}
	evs := r.log.all()
	tcs := payloads[trace.ToolCall](t, evs)
	if len(tcs) != 1 || !tcs[0].Valid || tcs[0].Rescue == nil || !tcs[0].Rescue.Recovered ||
		tcs[0].Rescue.Form != "tool_call tag" || tcs[0].Rescue.Repaired != "a trailing comma" || !strings.Contains(tcs[0].Rescue.Text, "<tool_call>") {
		t.Fatalf("tool calls = %+v", tcs)
	}
	if got := payloads[trace.ToolResult](t, evs); len(got) != 1 || got[0].Content != "look:a" {
		t.Fatalf("results = %v", got)
	}
	if perms := payloads[trace.Permission](t, evs); len(perms) != 1 || perms[0].Decision != trace.Allow {
		t.Fatalf("permissions = %+v", perms)
	}
	resp := payloads[trace.ModelResponse](t, evs)[0]
	if resp.Content != "Looking." || !strings.Contains(resp.Printed, "<tool_call>") || len(resp.ToolCalls) != 1 {
		t.Fatalf("response = %+v", resp)
	}
	second := r.model.sent()[1].Messages
	var asst llm.Message
	for _, m := range second {
		if m.Role == "assistant" {
			asst = m
		}
	}
	if asst.Content != "Looking." || len(asst.ToolCalls) != 1 || asst.ToolCalls[0].Name != "look" || string(asst.ToolCalls[0].Args) != `{"x":"a"}` {
		t.Fatalf("assistant message sent back = %+v", asst)
	}
	invariants.Check(t, evs)
}

// With the setting off, a printed call stays text and nothing runs; the
// run ends saying a call was printed, not that the model answered.
func TestRecoveryOff(t *testing.T) {
	r := newRig(t)
	r.model.say(text(`{"name": "look", "arguments": {"x": "a"}}`), text("never sent"))
	end := r.run(t.Context(), "Look")
	evs := r.log.all()
	if end.Reason != trace.EndPrintedCall || len(payloads[trace.ToolCall](t, evs)) != 0 || !strings.Contains(end.Detail, "off") {
		t.Fatalf("end = %+v", end)
	}
	if resp := payloads[trace.ModelResponse](t, evs)[0]; resp.Unrecovered == nil || resp.Unrecovered.Form != "json" {
		t.Fatalf("response = %+v", resp)
	}
}

// Text that plainly holds a call Loupe does not make one of ends the run
// as printed_call, after a notice that names the form and why; never as
// answered.
func TestUnrecoveredCallIsNotAnAnswer(t *testing.T) {
	r := newRig(t)
	r.cfg.RecoverTextCalls = true
	r.model.say(text("[TOOL_CALLS]shell[ARGS]{\"cmd\": \"ls\"}"), text("never sent"))
	end := r.run(t.Context(), "Look")
	evs := r.log.all()
	if end.Reason != trace.EndPrintedCall || !strings.Contains(end.Detail, "Mistral") || !strings.Contains(end.Detail, `"shell"`) {
		t.Fatalf("end = %+v", end)
	}
	ns := payloads[trace.Notice](t, evs)
	if len(ns) != 1 || ns[0].Code != trace.CodePrintedCallUnrecovered {
		t.Fatalf("notices = %+v", ns)
	}
	resp := payloads[trace.ModelResponse](t, evs)[0]
	if resp.Unrecovered == nil || resp.Unrecovered.Form != "[TOOL_CALLS] (Mistral)" || len(resp.ToolCalls) != 0 {
		t.Fatalf("response = %+v", resp)
	}
	if len(r.model.sent()) != 1 {
		t.Fatalf("%d requests", len(r.model.sent()))
	}
	invariants.Check(t, evs)
}

// A recovered call that fails validation (arguments beyond repair, a
// missing property) reaches the model as an invalid_args error that names
// what is wrong and the expected arguments; the tool does not run.
func TestRecoveredCallFailsValidation(t *testing.T) {
	r := newRig(t)
	r.cfg.RecoverTextCalls = true
	r.model.say(
		text(`<tool_call>{"name": "look", "arguments": {"x": a b}}</tool_call>`),
		text(`{"name": "look", "arguments": {"y": "a"}}`),
		text("done"))
	r.run(t.Context(), "Look")
	evs := r.log.all()
	res := payloads[trace.ToolResult](t, evs)
	if len(res) != 2 {
		t.Fatalf("results = %+v", res)
	}
	for i, want := range []string{"not valid JSON", "unknown property \"y\""} {
		if res[i].ErrorKind != trace.ErrInvalidArgs || !strings.Contains(res[i].Content, want) || !strings.Contains(res[i].Content, "expected") {
			t.Errorf("result %d = %+v", i, res[i])
		}
	}
	tcs := payloads[trace.ToolCall](t, evs)
	if !tcs[0].Rescue.Unparsed || tcs[0].Rescue.Original == "" {
		t.Fatalf("call = %+v", tcs[0])
	}
	invariants.Check(t, evs)
}

// Arguments a model sent as a JSON string holding the object are
// repaired, marked with the original, and the call runs.
func TestRepairedArgsRun(t *testing.T) {
	r := newRig(t)
	r.model.say(asks(tc("c1", "look", `"{\"x\": \"a\"}"`)), text("done"))
	r.run(t.Context(), "Look")
	evs := r.log.all()
	tcs := payloads[trace.ToolCall](t, evs)
	if len(tcs) != 1 || !tcs[0].Valid || string(tcs[0].Args) != `{"x":"a"}` || tcs[0].Rescue == nil || tcs[0].Rescue.Recovered ||
		tcs[0].Rescue.Original != `"{\"x\": \"a\"}"` || !strings.Contains(tcs[0].Rescue.Repaired, "JSON string") {
		t.Fatalf("calls = %+v", tcs)
	}
	if got := payloads[trace.ToolResult](t, evs); len(got) != 1 || got[0].Content != "look:a" {
		t.Fatalf("results = %v", got)
	}
	invariants.Check(t, evs)
}
