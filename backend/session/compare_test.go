package session_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
)

// The compare view's alignment, over sessions the real loop recorded
// against the fake Ollama: two models on one task, run after run in one
// database, as a user tries them.

// second is another model the fake serves, so that two sessions of a
// compare run on two models.
const secondModel = "scripted-b"

// runAlso runs text in a new session on model in the harness's database
// and workspace, with the replies scripted, and returns its id.
func (h *harness) runAlso(model, text string, opt session.RunOptions, replies ...ollamatest.Reply) string {
	h.t.Helper()
	ctx := context.Background()
	if model == secondModel {
		h.srv.AddModel(ollamatest.ModelSpec{Name: secondModel, ContextLength: 32768})
	}
	sum, err := h.m.Create(ctx, h.ws, model)
	if err != nil {
		h.t.Fatal(err)
	}
	h.srv.Script(replies...)
	if _, err := h.m.Run(ctx, sum.ID, text, opt); err != nil {
		h.t.Fatalf("run on %s: %v", model, err)
	}
	return sum.ID
}

func compare(t *testing.T, h *harness, a, b string) session.Comparison {
	t.Helper()
	c, err := h.m.Compare(context.Background(), a, b)
	if err != nil {
		t.Fatal(err)
	}
	// What the window shows is what `loupe compare` reads: the same
	// function on the same store.
	if d, err := session.Compare(context.Background(), h.st, a, b); err != nil || len(d.Rows) != len(c.Rows) || d.Diverge != c.Diverge {
		t.Fatalf("Compare on the store = %+v, %v; the manager's = %+v", d, err, c)
	}
	return c
}

// names is each row's calls on one side, "-" where the side has no such
// round: the shape of the side-by-side.
func names(rows []trace.Row, a bool) []string {
	var out []string
	for _, r := range rows {
		f := r.B
		if a {
			f = r.A
		}
		if f == nil {
			out = append(out, "-")
			continue
		}
		var cs []string
		for _, c := range f.Calls {
			cs = append(cs, c.Name+":"+c.Outcome)
		}
		out = append(out, strings.Join(cs, ",")+"|"+f.Outcome)
	}
	return out
}

// The same task on two models that do the same thing and word the answer
// differently: every round is the same, nothing diverges, and arguments
// written in another key order are the same arguments.
func TestCompareSameTaskTwoModels(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	task := "Where is beta?"
	a := h.runAlso(testModel, task, session.RunOptions{},
		calls(call("c1", "grep", `{"pattern":"beta","path":"."}`)),
		calls(call("c2", "read_file", `{"path":"notes.txt"}`)),
		ollamatest.Text("beta is on line 2 of notes.txt."),
	)
	b := h.runAlso(secondModel, task, session.RunOptions{},
		calls(call("x1", "grep", `{ "path": ".", "pattern": "beta" }`)),
		calls(call("x2", "read_file", `{"path":"notes.txt"}`)),
		ollamatest.Text("notes.txt, line 2."),
	)
	c := compare(t, h, a, b)
	if c.Diverge != -1 {
		t.Fatalf("diverge = %d (%s), want none: the models did the same", c.Diverge, c.Why)
	}
	want := []string{"grep:ran|tools", "read_file:ran|tools", "|answered"}
	if got := names(c.Rows, true); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("first session's rounds = %q, want %q", got, want)
	}
	for i, r := range c.Rows {
		if !r.Same || r.A == nil || r.B == nil || r.A.Run != 1 || r.A.Round != i+1 {
			t.Fatalf("row %d = %+v, want round %d the same on both sides", i, r, i+1)
		}
		if r.A.Model != testModel || r.B.Model != secondModel {
			t.Fatalf("row %d models = %q, %q", i, r.A.Model, r.B.Model)
		}
		if r.A.PromptTokens == 0 || r.A.OutputTokens == 0 || r.A.Seq == 0 {
			t.Fatalf("row %d has no counts or request: %+v", i, r.A)
		}
	}
	if c.Rows[0].A.Calls[0].Args != `{"path":".","pattern":"beta"}` || c.Rows[0].A.Calls[0].Args != c.Rows[0].B.Calls[0].Args {
		t.Fatalf("canonical arguments = %q and %q", c.Rows[0].A.Calls[0].Args, c.Rows[0].B.Calls[0].Args)
	}
	if c.Rows[2].A.Answer != "beta is on line 2 of notes.txt." || c.Rows[2].B.Answer != "notes.txt, line 2." {
		t.Fatalf("answers = %q, %q", c.Rows[2].A.Answer, c.Rows[2].B.Answer)
	}
	// The totals add up the rounds, with Ollama's counts as the log has them.
	for i, f := range []trace.Figures{c.A, c.B} {
		tt := f.Totals
		if tt.Rounds != 3 || tt.Calls != 2 || tt.Runs != 1 || tt.End != trace.EndAnswered || tt.Denials != 0 || tt.Errors != 0 || f.Open {
			t.Fatalf("side %d totals = %+v open %v", i, tt, f.Open)
		}
		sum := 0
		for _, r := range f.Rounds {
			sum += r.PromptTokens
		}
		if tt.PromptTokens != sum || sum == 0 {
			t.Fatalf("side %d prompt tokens %d, rounds add up to %d", i, tt.PromptTokens, sum)
		}
	}
	if c.Sessions[0].ID != a || c.Sessions[1].ID != b || c.Sessions[1].Model != secondModel {
		t.Fatalf("sessions = %+v", c.Sessions)
	}
}

// The second model takes one more round to the answer: they diverge where
// one answers and the other calls again, and the round only one has is
// drawn with the other side empty.
func TestCompareDifferentNumberOfRounds(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	task := "What do the files say?"
	a := h.runAlso(testModel, task, session.RunOptions{},
		calls(call("c1", "list_dir", `{"path":"."}`)),
		ollamatest.Text("A README and notes."),
	)
	b := h.runAlso(secondModel, task, session.RunOptions{},
		calls(call("x1", "list_dir", `{"path":"."}`)),
		calls(call("x2", "read_file", `{"path":"README.md"}`)),
		ollamatest.Text("A demo README and notes."),
	)
	c := compare(t, h, a, b)
	if len(c.Rows) != 3 || c.Rows[2].A != nil || c.Rows[2].B == nil {
		t.Fatalf("rows = %q | %q, want three with the first session's third empty", names(c.Rows, true), names(c.Rows, false))
	}
	if c.Diverge != 1 || !strings.Contains(c.Why, "round 2: A made no tool calls, B 1 tool call") {
		t.Fatalf("diverge = %d (%s), want round 2, where one answered and the other called read_file", c.Diverge, c.Why)
	}
	if !c.Rows[0].Same || c.Rows[1].Same || c.Rows[2].Same {
		t.Fatalf("same = %v %v %v", c.Rows[0].Same, c.Rows[1].Same, c.Rows[2].Same)
	}
	if c.A.Totals.Rounds != 2 || c.B.Totals.Rounds != 3 {
		t.Fatalf("rounds = %d, %d", c.A.Totals.Rounds, c.B.Totals.Rounds)
	}
	// In the other order the same round diverges, told from the other side.
	r := compare(t, h, b, a)
	if r.Diverge != 1 || !strings.Contains(r.Why, "A made 1 tool call, B no tool calls") {
		t.Fatalf("reversed: diverge = %d (%s)", r.Diverge, r.Why)
	}
}

// One model's stream breaks in round 2: the run ends in an error there,
// which diverges from the answer the other gave, and the error is counted.
func TestCompareOneErrored(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	task := "Read the notes"
	a := h.runAlso(testModel, task, session.RunOptions{},
		calls(call("c1", "read_file", `{"path":"notes.txt"}`)),
		ollamatest.Text("alpha and beta."),
	)
	broken := ollamatest.Text("alpha and")
	broken.Fault = ollamatest.CutAfter(1)
	b := h.runAlso(secondModel, task, session.RunOptions{},
		calls(call("x1", "read_file", `{"path":"notes.txt"}`)),
		broken,
	)
	c := compare(t, h, a, b)
	if c.Diverge != 1 || !strings.Contains(c.Why, "A ended the run (answered), B ended the run (error)") {
		t.Fatalf("diverge = %d (%s), want round 2: answered against an error", c.Diverge, c.Why)
	}
	got := c.Rows[1].B
	if got.Outcome != trace.EndError || got.Errors != 1 || !got.Incomplete || got.Answer != "alpha and" {
		t.Fatalf("the broken round = %+v", got)
	}
	if c.B.Totals.Errors != 1 || c.B.Totals.End != trace.EndError || c.A.Totals.Errors != 0 || c.A.Totals.End != trace.EndAnswered {
		t.Fatalf("totals = %+v | %+v", c.A.Totals, c.B.Totals)
	}
}

// Both models try a command the user denies, then go different ways in
// round 3 (other arguments to the same tool): the mark is on round 3, and
// the denials are counted on both sides.
func TestCompareDivergingAtRoundK(t *testing.T) {
	h := newHarness(t, permission.ModeAsk, nil)
	task := "Save a note, then read something"
	deny := session.RunOptions{Approver: session.DenyAll{}}
	a := h.runAlso(testModel, task, deny,
		calls(call("c1", "list_dir", `{"path":"."}`)),
		calls(call("c2", "run_command", `{"command":"echo hi > note.txt"}`)),
		calls(call("c3", "read_file", `{"path":"README.md"}`)),
		ollamatest.Text("Read the README."),
	)
	b := h.runAlso(secondModel, task, deny,
		calls(call("x1", "list_dir", `{"path":"."}`)),
		calls(call("x2", "run_command", `{"command":"echo hi > note.txt"}`)),
		calls(call("x3", "read_file", `{"path":"notes.txt"}`)),
		ollamatest.Text("Read the notes."),
	)
	c := compare(t, h, a, b)
	if c.Diverge != 2 || !strings.Contains(c.Why, `round 3: call 1 (read_file) has other arguments: {"path":"README.md"} in A, {"path":"notes.txt"} in B`) {
		t.Fatalf("diverge = %d (%s), want round 3, by read_file's arguments", c.Diverge, c.Why)
	}
	for i, r := range c.Rows[:2] {
		if !r.Same {
			t.Fatalf("row %d is not the same: %q | %q", i, names(c.Rows, true), names(c.Rows, false))
		}
	}
	if d := c.Rows[1]; d.A.Denials != 1 || d.B.Denials != 1 || d.A.Calls[0].Outcome != trace.ErrDenied {
		t.Fatalf("round 2 = %+v | %+v, want the command denied on both sides", d.A, d.B)
	}
	if c.A.Totals.Denials != 1 || c.B.Totals.Denials != 1 {
		t.Fatalf("denials = %d, %d", c.A.Totals.Denials, c.B.Totals.Denials)
	}
	// The rounds after the divergence are drawn as they are: the answers
	// line up again but the mark stays on the first difference.
	if !c.Rows[3].Same {
		t.Fatalf("round 4 = %+v", c.Rows[3])
	}

	// The same denial against a command that ran is an outcome that
	// differs with the same call: the mark is on round 2.
	ran := h.runAlso(testModel, task, session.RunOptions{Mode: permission.ModeAuto},
		calls(call("y1", "list_dir", `{"path":"."}`)),
		calls(call("y2", "run_command", `{"command":"echo hi > note.txt"}`)),
		ollamatest.Text("Saved."),
	)
	o := compare(t, h, a, ran)
	if o.Diverge != 1 || !strings.Contains(o.Why, "call 1 (run_command) was denied in A, ran in B") {
		t.Fatalf("diverge = %d (%s), want round 2, by the command's outcome", o.Diverge, o.Why)
	}
}

// An empty session and one still going: figures say so, a running
// session's rounds not reached yet are no divergence, and its round still
// going is compared on its calls only.
func TestCompareEmptyAndRunning(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	done := h.runAlso(testModel, "go", session.RunOptions{},
		calls(call("c1", "list_dir", `{"path":"."}`)),
		ollamatest.Text("Two files."),
	)
	// h.id: a run left open in round 1 while its list_dir ran.
	h.crashedDuringCall("list_dir", `{"path":"."}`)
	c := compare(t, h, h.id, done)
	if !c.A.Open || c.B.Open {
		t.Fatalf("open = %v, %v", c.A.Open, c.B.Open)
	}
	if c.Diverge != -1 || len(c.Rows) != 2 || c.Rows[0].A.Outcome != trace.OutcomeRunning || c.Rows[0].A.Calls[0].Outcome != trace.CallPending {
		t.Fatalf("diverge = %d (%s), rows %q | %q", c.Diverge, c.Why, names(c.Rows, true), names(c.Rows, false))
	}

	empty, err := h.m.Create(context.Background(), h.ws, testModel)
	if err != nil {
		t.Fatal(err)
	}
	e := compare(t, h, empty.ID, done)
	if len(e.A.Rounds) != 0 || e.A.Open || e.A.Totals.Runs != 0 || e.Diverge != 0 || !strings.Contains(e.Why, "only B has this round") {
		t.Fatalf("empty: %+v diverge %d (%s)", e.A, e.Diverge, e.Why)
	}
}

// Asked badly, Compare says what to do and changes nothing.
func TestCompareRefusesBadInput(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	ctx := context.Background()
	if _, err := h.m.Compare(ctx, h.id, h.id); !errors.Is(err, session.ErrSameSession) {
		t.Fatalf("same session: %v", err)
	}
	if _, err := h.m.Compare(ctx, h.id, "nope"); !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), `no session "nope"`) {
		t.Fatalf("unknown session: %v", err)
	}
	if _, err := h.m.Compare(ctx, "", h.id); err == nil || !strings.Contains(err.Error(), "name two sessions") {
		t.Fatalf("no session: %v", err)
	}
}
