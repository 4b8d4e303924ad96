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
// a bare word where JSON is expected.
func TestRecoverCallsLeavesNearMissesAlone(t *testing.T) {
	cases := map[string]string{
		"not offered":                    `{"name": "delete_all", "arguments": {}}`,
		"inside prose":                   `To list a folder, call {"name": "list_dir", "arguments": {"path": "."}} yourself.`,
		"no arguments key":               `{"name": "list_dir"}`,
		"extra keys":                     `{"name": "list_dir", "arguments": {"path": "."}, "reason": "to look"}`,
		"two argument keys":              `{"name": "list_dir", "arguments": {}, "parameters": {}}`,
		"arguments a list":               `{"name": "list_dir", "arguments": ["."]}`,
		"arguments bad text":             `{"name": "list_dir", "arguments": "the current folder"}`,
		"mixed list":                     `[{"name": "list_dir", "arguments": {}}, {"name": "nope", "arguments": {}}]`,
		"empty list":                     `[]`,
		"code fence of code":             "```go\nfunc main() {}\n```",
		"fence with an example and code": "```json\n{\"name\": \"list_dir\", \"arguments\": {}}\n```\nand\n```\n{\"x\": 1}\n```",
		"json that is data":              `{"path": ".", "size": 3}`,
		"bare word value":                `{"name": "list_dir", "arguments": {"path": here}}`,
		"unclosed quote":                 `{"name": "list_dir", "arguments": {"path": "}}`,
		"plain answer":                   `The folder holds a.go and b.go.`,
		"tag with other tool":            "<tool_call>{\"name\": \"shell\", \"arguments\": {}}</tool_call>",
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			if got, rest := recoverCalls(content, offered); len(got) != 0 || rest != content {
				t.Fatalf("recovered %+v, rest %q", got, rest)
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

// With the setting off, a printed call stays text and ends the run.
func TestRecoveryOff(t *testing.T) {
	r := newRig(t)
	r.model.say(text(`{"name": "look", "arguments": {"x": "a"}}`), text("never sent"))
	if end := r.run(t.Context(), "Look"); end.Reason != "answered" || len(payloads[trace.ToolCall](t, r.log.all())) != 0 {
		t.Fatalf("end = %+v", end)
	}
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
