package demo

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/llm"
)

var allTools = []llm.ToolSpec{{Name: "read_file"}, {Name: "edit_file"}, {Name: "list_dir"}, {Name: "run_command"}}

// convo builds a history: the task, then for each answer the demo's calls
// and the results that came back.
type convo struct{ msgs []llm.Message }

func newConvo(task string) *convo {
	return &convo{msgs: []llm.Message{{Role: llm.RoleSystem, Content: "system"}, {Role: llm.RoleUser, Content: task}}}
}

// answer asks the demo for its next step, appends it, and returns it.
func (c *convo) answer(t *testing.T) llm.Response {
	t.Helper()
	r, err := Model{}.Chat(context.Background(), llm.Request{Model: Name, Messages: c.msgs, Tools: allTools}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.msgs = append(c.msgs, r.Message)
	return r
}

// results answers the last answer's calls with contents, in order.
func (c *convo) results(contents ...string) {
	last := c.msgs[len(c.msgs)-1]
	for i, call := range last.ToolCalls {
		c.msgs = append(c.msgs, llm.Message{Role: llm.RoleTool, ToolCallID: call.ID, ToolName: call.Name, Content: contents[i]})
	}
}

func calls(r llm.Response) string {
	var out []string
	for _, c := range r.Message.ToolCalls {
		out = append(out, c.Name+" "+string(c.Args))
	}
	return strings.Join(out, "; ")
}

const (
	listing  = "README.md\nslug.sh\ntest.sh\n"
	failing  = "ok    \"Hello World\" -> hello-world\nFAIL  \"Hello, World!\": got \"hello-world-\", want \"hello-world\"\n1 of 4 cases failed\nexit code 1"
	passing  = "ok    \"Hello World\" -> hello-world\nall 4 cases passed\nexit code 0"
	deniedBy = "denied: %s did not run (denied by you). Ask the user or try another approach."
)

func denied(tool string) string { return strings.Replace(deniedBy, "%s", tool, 1) }

func TestScriptPlaysTheTaskAndReadsWhatCameBack(t *testing.T) {
	c := newConvo(Task)
	steps := []struct {
		calls   string
		results []string
		says    string
	}{
		{`list_dir {"path":"."}`, []string{listing}, "looking at what is in the project"},
		{`read_file {"path":"slug.sh"}; read_file {"path":"test.sh"}`, []string{"slugify() {", ". ./slug.sh"}, "I'll read both"},
		{`run_command {"command":"sh test.sh"}`, []string{failing}, "run the tests"},
		// The failing lines it quotes are the ones the run printed.
		{`edit_file {"path":"slug.sh","old_string":"-e 's/^-//'","new_string":"-e 's/^-//' -e 's/-$//'"}`, []string{"edited slug.sh: replaced 1 occurrence at line 7"}, "got \"hello-world-\""},
		{`run_command {"command":"sh test.sh"}`, []string{passing}, "run the tests again"},
		{"", nil, "all 4 cases passed"},
	}
	for i, s := range steps {
		r := c.answer(t)
		if got := calls(r); got != s.calls {
			t.Fatalf("step %d: calls %s, want %s", i+1, got, s.calls)
		}
		if !strings.Contains(r.Message.Content, s.says) {
			t.Fatalf("step %d: text %q does not say %q", i+1, r.Message.Content, s.says)
		}
		if !r.Done || r.DoneReason != "stop" || !r.Complete() {
			t.Fatalf("step %d: answer not complete: %+v", i+1, r)
		}
		c.results(s.results...)
	}
	if strings.Contains(steps[0].says, "not an AI") {
		t.Fatal("the task itself is not answered with the demo's disclaimer")
	}
}

func TestScriptDeniedCommandFixesByReadingAndDoesNotAskAgain(t *testing.T) {
	c := newConvo(Task)
	c.answer(t)
	c.results(listing)
	c.answer(t)
	c.results("slugify() {", ". ./slug.sh")
	c.answer(t)
	c.results(denied("run_command"))
	r := c.answer(t)
	if !strings.HasPrefix(calls(r), "edit_file") || !strings.Contains(r.Message.Content, "You did not let me run the tests") {
		t.Fatalf("after the denied test run: %q %s", r.Message.Content, calls(r))
	}
	c.results("edited slug.sh: replaced 1 occurrence at line 7")
	r = c.answer(t)
	if len(r.Message.ToolCalls) != 0 || !strings.Contains(r.Message.Content, "I did not run the tests, since you said no") {
		t.Fatalf("after the fix: %q %s", r.Message.Content, calls(r))
	}
	// A new message is a new turn: the no counted for the last one only.
	c.msgs = append(c.msgs, llm.Message{Role: llm.RoleUser, Content: "Go ahead and run them."})
	if r = c.answer(t); calls(r) != `run_command {"command":"sh test.sh"}` {
		t.Fatalf("next turn: %q %s", r.Message.Content, calls(r))
	}
	c.results(passing)
	if r = c.answer(t); !strings.Contains(r.Message.Content, "The tests pass") {
		t.Fatalf("after the passing run: %q", r.Message.Content)
	}
	c.msgs = append(c.msgs, llm.Message{Role: llm.RoleUser, Content: "Thanks! Now add a test."})
	if r = c.answer(t); len(r.Message.ToolCalls) != 0 || !strings.Contains(r.Message.Content, "not an AI") || !strings.Contains(r.Message.Content, "ollama pull") {
		t.Fatalf("after the task is done: %q %s", r.Message.Content, calls(r))
	}
}

func TestScriptReactsToWhatItObserves(t *testing.T) {
	cases := []struct {
		name    string
		results [][]string
		says    string
	}{
		{"not its project", [][]string{{"main.go\ngo.mod\n"}}, "does not hold the demo's project"},
		{"listing denied", [][]string{{denied("list_dir")}}, "did not let me list"},
		{"file gone", [][]string{{listing}, {"read_file failed: slug.sh: no such file", ". ./slug.sh"}}, "could not read `slug.sh`: read_file failed"},
		{"tests pass already", [][]string{{listing}, {"a", "b"}, {passing}}, "pass already"},
		{"tests cannot run", [][]string{{listing}, {"a", "b"}, {"sh: 1: test.sh: not found\nexit code 127"}}, "did not run: sh: 1: test.sh: not found"},
		{"edit denied", [][]string{{listing}, {"a", "b"}, {failing}, {denied("edit_file")}}, "did not let me change `slug.sh`"},
		{"edit failed", [][]string{{listing}, {"a", "b"}, {failing}, {"edit_file failed: old_string not found in slug.sh"}}, "did not apply: edit_file failed"},
		{"still failing", [][]string{{listing}, {"a", "b"}, {failing}, {"edited"}, {failing}}, "still fail"},
		{"check denied", [][]string{{listing}, {"a", "b"}, {failing}, {"edited"}, {denied("run_command")}}, "did not let me run the tests to check"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newConvo(Task)
			for _, rs := range tc.results {
				c.answer(t)
				c.results(rs...)
			}
			r := c.answer(t)
			if len(r.Message.ToolCalls) != 0 || !strings.Contains(r.Message.Content, tc.says) {
				t.Fatalf("answer %q (calls %s), want one that says %q", r.Message.Content, calls(r), tc.says)
			}
		})
	}
}

func TestScriptSaysItIsScriptedWhenAskedSomethingElse(t *testing.T) {
	c := newConvo("Write me a poem")
	r := c.answer(t)
	if !strings.Contains(r.Message.Content, "not an AI") || calls(r) != `list_dir {"path":"."}` {
		t.Fatalf("%q %s", r.Message.Content, calls(r))
	}
}

func TestNoToolOfferedNoCall(t *testing.T) {
	r, err := Model{}.Chat(context.Background(), llm.Request{Messages: newConvo(Task).msgs}, nil)
	if err != nil || len(r.Message.ToolCalls) != 0 || !strings.Contains(r.Message.Content, "offers no such tool") {
		t.Fatalf("%+v %v", r, err)
	}
}

func TestChatStreamsAtItsPaceAndStopsOnCancel(t *testing.T) {
	req := llm.Request{Model: Name, Messages: newConvo(Task).msgs, Tools: allTools}
	var got []string
	start := time.Now()
	r, err := Model{Pace: 5 * time.Millisecond}.Chat(context.Background(), req, func(c llm.Chunk) { got = append(got, c.Content) })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) < 3 || strings.Join(got, "") != r.Message.Content || r.Chunks != len(got)+1 {
		t.Fatalf("pieces %q, chunks %d, content %q", got, r.Chunks, r.Message.Content)
	}
	if min := time.Duration(len(got)+4) * 5 * time.Millisecond; time.Since(start) < min || r.Metrics.TotalDuration < min {
		t.Fatalf("answer took %v (metrics %v), want at least %v", time.Since(start), r.Metrics.TotalDuration, min)
	}
	var raw struct {
		Model   string `json:"model"`
		Message struct {
			ToolCalls []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
		Scripted        string `json:"scripted"`
		Counts          string `json:"counts"`
		PromptEvalCount int    `json:"prompt_eval_count"`
		EvalCount       int    `json:"eval_count"`
	}
	if err := json.Unmarshal(r.Raw, &raw); err != nil || raw.Model != Name || raw.Scripted == "" || len(raw.Message.ToolCalls) != 1 ||
		raw.Counts == "" || raw.PromptEvalCount <= 0 || raw.PromptEvalCount != r.Metrics.PromptEvalCount || raw.EvalCount <= 0 || raw.EvalCount != r.Metrics.EvalCount ||
		raw.Message.ToolCalls[0].ID != r.Message.ToolCalls[0].ID || string(raw.Message.ToolCalls[0].Function.Arguments) != `{"path":"."}` {
		t.Fatalf("raw %s (%v)", r.Raw, err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	r, err = Model{Pace: 20 * time.Millisecond}.Chat(ctx, req, func(llm.Chunk) {
		if n++; n == 1 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || r.Done || len(r.Message.ToolCalls) != 0 || r.Message.Content == "" {
		t.Fatalf("cancelled answer: %+v %v", r, err)
	}
}

func TestPiecesKeepEveryCharacter(t *testing.T) {
	for _, s := range []string{"", "one", "a b c d e f g", "two  spaces\n\nand ```\ncode\n```", " lead"} {
		if got := strings.Join(pieces(s), ""); got != s {
			t.Fatalf("pieces(%q) joined = %q", s, got)
		}
	}
	if n := len(pieces("a b c d e f g")); n != 3 {
		t.Fatalf("7 words in %d pieces, want 3", n)
	}
}

func TestNewWorkspaceCopiesTheProjectIntoAFolderItKnowsAgain(t *testing.T) {
	dir, err := NewWorkspace()
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for _, f := range []string{"README.md", "slug.sh", "test.sh"} {
		got, err := os.ReadFile(filepath.Join(dir, f))
		want, _ := ProjectFile(f)
		if err != nil || string(got) != want {
			t.Fatalf("%s: %q %v", f, got, err)
		}
	}
	if !IsCopy(dir) {
		t.Fatalf("IsCopy(%s) = false", dir)
	}
	// A folder of the same name elsewhere, or another name, is not one.
	elsewhere := filepath.Join(t.TempDir(), filepath.Base(dir))
	for _, d := range []string{elsewhere, filepath.Join(os.TempDir(), "loupe-demo-notmine"), filepath.Dir(dir)} {
		if IsCopy(d) {
			t.Fatalf("IsCopy(%s) = true", d)
		}
	}
}
