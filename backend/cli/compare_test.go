package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/cli"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/trace"
)

// runSession runs prompt with loupe run --json on model and returns the
// new session's id, read from its first event.
func (e env) runSession(t *testing.T, model, prompt string) string {
	t.Helper()
	code, out, stderr := e.run("run", "--workspace", e.ws, "--model", model, "--host", e.srv.URL(), "--db", e.db, "--json", prompt)
	if code != cli.ExitAnswered {
		t.Fatalf("run on %s: exit %d, %s", model, code, stderr)
	}
	var ev trace.Event
	if err := json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &ev); err != nil || ev.SessionID == "" {
		t.Fatalf("first line %q: %v", out, err)
	}
	return ev.SessionID
}

// loupe compare puts two runs of one task on two models side by side:
// the totals, the round where they diverge marked, and the same as JSON.
func TestCompareTwoRuns(t *testing.T) {
	e := setup(t)
	e.srv.AddModel(ollamatest.ModelSpec{Name: "other", ContextLength: 4096})
	e.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{ID: "c1", Name: "list_dir", Args: `{"path":"."}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{ID: "c2", Name: "read_file", Args: `{"path":"README.md"}`}}},
		ollamatest.Text("It says hello."),
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{ID: "x1", Name: "list_dir", Args: `{"path":"."}`}}},
		ollamatest.Text("There is a README."),
	)
	a := e.runSession(t, "scripted", "What does the README say?")
	b := e.runSession(t, "other", "What does the README say?")

	code, out, stderr := e.run("compare", a, b, "--db", e.db)
	if code != 0 || stderr != "" {
		t.Fatalf("compare: exit %d, %s", code, stderr)
	}
	for _, want := range []string{
		"A  " + a + "  What does the README say? · scripted\n",
		"B  " + b + "  What does the README say? · other\n",
		"They diverge at run 1, round 2: A made 1 tool call, B no tool calls.",
		"rounds         3",
		"tool calls     2",
		"ended          answered",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Round 2 is marked; round 3 is the first session's alone.
	var marked, third string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, ">") {
			marked = l
		}
		if strings.Contains(l, " 1.3 ") {
			third = l
		}
	}
	if !strings.Contains(marked, "1.2") || !strings.Contains(marked, "read_file") || !strings.Contains(marked, "answer → answered") {
		t.Errorf("marked line = %q\n%s", marked, out)
	}
	if !strings.HasSuffix(strings.TrimSpace(third), "-") {
		t.Errorf("round 3 line = %q, want the second session's side empty", third)
	}

	code, out, _ = e.run("compare", "--json", "--db", e.db, a, b)
	var c session.Comparison
	if err := json.Unmarshal([]byte(out), &c); err != nil || code != 0 {
		t.Fatalf("--json: exit %d, %v: %s", code, err, out)
	}
	if c.Diverge != 1 || len(c.Rows) != 3 || c.Rows[2].B != nil || c.Sessions[1].ID != b || c.A.Totals.Calls != 2 {
		t.Fatalf("--json = %+v", c)
	}
}

// Asked badly, loupe compare says what to do.
func TestCompareRefusesBadInput(t *testing.T) {
	e := setup(t)
	e.srv.Script(ollamatest.Text("hi"))
	a := e.runSession(t, "scripted", "hello")
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{a}, cli.ExitUsage, "name two session ids"},
		{[]string{a, a}, cli.ExitUsage, "two different sessions"},
		{[]string{a, "nope"}, cli.ExitFailed, `no session "nope"`},
	} {
		code, out, stderr := e.run(append([]string{"compare", "--db", e.db}, c.args...)...)
		if code != c.code || out != "" || !strings.Contains(stderr, c.says) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", c.args, code, out, stderr)
		}
	}
}
