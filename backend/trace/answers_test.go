package trace

import (
	"encoding/json"
	"testing"

	"github.com/loupe-dev/loupe/backend/llm"
)

func tc(name, args string) llm.ToolCall {
	return llm.ToolCall{ID: "c_" + name, Name: name, Args: json.RawMessage(args)}
}

// Calls are matched by tool in order, and a matched pair's arguments by
// name: the same JSON in another key order or spacing is the same.
func TestCompareAnswersPairsCallsByToolAndArgumentsByName(t *testing.T) {
	cases := []struct {
		name     string
		rec, alt []llm.ToolCall
		verdicts []string
		same     bool
	}{
		{"same calls, keys reordered", []llm.ToolCall{tc("read_file", `{"path":"a","limit":3}`)}, []llm.ToolCall{tc("read_file", `{ "limit": 3, "path": "a" }`)}, []string{CallSame}, true},
		{"other arguments", []llm.ToolCall{tc("grep", `{"pattern":"x"}`)}, []llm.ToolCall{tc("grep", `{"pattern":"y"}`)}, []string{CallArgsDiffer}, false},
		{"another tool", []llm.ToolCall{tc("grep", `{}`)}, []llm.ToolCall{tc("glob", `{}`)}, []string{CallOnlyRecorded, CallOnlyAlternative}, false},
		{"a call more", []llm.ToolCall{tc("read_file", `{}`)}, []llm.ToolCall{tc("list_dir", `{}`), tc("read_file", `{}`)}, []string{CallOnlyAlternative, CallSame}, false},
		{"a call less", []llm.ToolCall{tc("read_file", `{}`), tc("grep", `{}`), tc("write_file", `{}`)}, []llm.ToolCall{tc("read_file", `{}`), tc("write_file", `{}`)}, []string{CallSame, CallOnlyRecorded, CallSame}, false},
		{"no calls either side", nil, nil, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := CompareAnswers(&Answer{ToolCalls: c.rec}, Answer{ToolCalls: c.alt})
			var verdicts []string
			for _, p := range got.Calls {
				verdicts = append(verdicts, p.Verdict)
			}
			if len(verdicts) != len(c.verdicts) {
				t.Fatalf("verdicts %v, want %v", verdicts, c.verdicts)
			}
			for i := range verdicts {
				if verdicts[i] != c.verdicts[i] {
					t.Fatalf("verdicts %v, want %v", verdicts, c.verdicts)
				}
			}
			if got.SameCalls != c.same {
				t.Fatalf("same calls = %v, want %v", got.SameCalls, c.same)
			}
		})
	}
	args := pairArgs(json.RawMessage(`{"path":"a","old":1}`), json.RawMessage(`{"path":"b","new":2}`))
	want := []ArgPair{{Name: "path", Verdict: ArgChanged}, {Name: "old", Verdict: ArgOnlyRecorded}, {Name: "new", Verdict: ArgOnlyAlternative}}
	if len(args) != len(want) {
		t.Fatalf("args = %+v", args)
	}
	for i, a := range args {
		if a.Name != want[i].Name || a.Verdict != want[i].Verdict {
			t.Fatalf("arg %d = %+v, want %+v", i, a, want[i])
		}
	}
}

// The text diff is line by line, recorded first; the figures hold both
// sides' meters and timings, and null where a side has none.
func TestCompareAnswersDiffsTextAndFigures(t *testing.T) {
	rec := &Answer{Content: "one\ntwo\nthree", Options: llm.Options{NumCtx: 100}, Metrics: llm.Metrics{PromptEvalCount: 40, EvalCount: 10, EvalDuration: 2e9}}
	alt := Answer{Content: "one\n2\nthree\nfour", Options: llm.Options{NumCtx: 200}, Metrics: llm.Metrics{PromptEvalCount: 40, EvalCount: 20}}
	c := CompareAnswers(rec, alt)
	// The last line has no line break in the recorded text, so it is
	// another line than "three\n".
	want := []DiffLine{{LineSame, "one"}, {LineRemoved, "two"}, {LineRemoved, "three"}, {LineAdded, "2"}, {LineAdded, "three"}, {LineAdded, "four"}}
	if c.SameText || len(c.Text) != len(want) {
		t.Fatalf("text diff = %+v", c.Text)
	}
	for i := range want {
		if c.Text[i] != want[i] {
			t.Fatalf("text diff = %+v, want %+v", c.Text, want)
		}
	}
	fig := map[string]Figure{}
	for _, f := range c.Figures {
		fig[f.Key] = f
	}
	if f := fig["output_tokens"]; f.Recorded == nil || *f.Recorded != 10 || *f.Alternative != 20 {
		t.Fatalf("output tokens = %+v", f)
	}
	if f := fig["context_share"]; *f.Recorded != 0.5 || *f.Alternative != 0.3 {
		t.Fatalf("context share = %v, %v", *f.Recorded, *f.Alternative)
	}
	if f := fig["speed"]; *f.Recorded != 5 || f.Alternative != nil {
		t.Fatalf("speed = %+v, want 5 tokens/s recorded and none for an answer without eval duration", f)
	}
	if none := CompareAnswers(nil, alt); none.SameText || none.SameCalls || none.Figures[0].Recorded != nil || none.Text[0].Op != LineAdded {
		t.Fatalf("compared with no recorded answer: %+v", none)
	}
}
