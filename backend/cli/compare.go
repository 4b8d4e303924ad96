package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/backend/visible"
)

// compareNotes follow the flags in loupe compare --help.
const compareNotes = `
The two sessions' rounds are put side by side: round r of run n of one beside
round r of run n of the other. Each round shows its tool calls and how each
ended, Ollama's token counts, the time in the model and in tools, denials and
errors; the totals come first.

Two rounds are the same when the model asked for the same tool calls (name
and arguments, as JSON values) in the same order, each ended the same way,
and the round ended the same way (the loop went on, or the run ended for the
same reason). The words of the answers do not count. The first round that is
not the same, or that only one session has, is marked: that is where the two
diverge. A session still running is compared as far as it got.

Exit codes: 0 compared; 2 bad command line; 3 could not open the database, or
no such session.
`

// compareCommand is `loupe compare A B`: two sessions side by side,
// round by round, and where they diverge.
var compareCommand = &command{
	name:      "compare",
	synopsis:  "compare SESSION SESSION [--json] [--db FILE]",
	short:     "two sessions side by side, round by round",
	about:     "Puts two sessions side by side, round by round, and says where they diverge.",
	notes:     compareNotes,
	minArgs:   2,
	maxArgs:   2,
	wrongArgs: "name two session ids (loupe search or the window's session list shows them)",
	flags: func(fs *flag.FlagSet) func(*call) int {
		jsonOut := fs.Bool("json", false, "print the comparison as one JSON object")
		db := fs.String("db", "", "the database `FILE` (default $LOUPE_DB or the user data dir)")
		return func(c *call) int { return compare(c, *jsonOut, *db) }
	},
}

// compare carries loupe compare out.
func compare(c *call, jsonOut bool, db string) int {
	stdout, stderr := c.stdout, c.stderr
	if c.args[0] == c.args[1] {
		return c.usage("%v", session.ErrSameSession)
	}
	// Only reads: the sessions are as they were, a run still going in
	// another Loupe is left alone.
	st, ok := openStore(store.OpenReadOnly, db, stderr)
	if !ok {
		return ExitFailed
	}
	defer st.Close()
	cmp, err := session.Compare(context.Background(), st, c.args[0], c.args[1])
	if err != nil {
		fmt.Fprintf(stderr, "loupe compare: %v\n", err)
		return ExitFailed
	}
	if jsonOut {
		b, _ := json.Marshal(cmp)
		fmt.Fprintf(stdout, "%s\n", visible.Text(string(b)))
		return 0
	}
	printComparison(stdout, cmp)
	return 0
}

// printComparison writes a comparison for a person: the two sessions, the
// totals side by side, where they diverge, then a line per round.
func printComparison(w io.Writer, c session.Comparison) {
	figs := []trace.Figures{c.A, c.B}
	for i, s := range c.Sessions {
		state := ""
		switch {
		case figs[i].Open:
			state = " · still running: figures so far"
		case len(figs[i].Rounds) == 0:
			state = " · no rounds yet"
		}
		fmt.Fprintf(w, "%s  %s  %s · %s%s\n", "AB"[i:i+1], s.ID, visible.Line(s.Title), visible.Line(s.Model), state)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	ta, tb := c.A.Totals, c.B.Totals
	fmt.Fprintf(tw, "\tA\tB\n")
	for _, l := range []struct {
		name string
		a, b string
	}{
		{"rounds", fmt.Sprint(ta.Rounds), fmt.Sprint(tb.Rounds)},
		{"tool calls", fmt.Sprint(ta.Calls), fmt.Sprint(tb.Calls)},
		{"prompt tokens", fmt.Sprint(ta.PromptTokens), fmt.Sprint(tb.PromptTokens)},
		{"output tokens", fmt.Sprint(ta.OutputTokens), fmt.Sprint(tb.OutputTokens)},
		{"model time", ms(ta.ModelMs), ms(tb.ModelMs)},
		{"tool time", ms(ta.ToolMs), ms(tb.ToolMs)},
		{"wall time", ms(ta.WallMs), ms(tb.WallMs)},
		{"denials", fmt.Sprint(ta.Denials), fmt.Sprint(tb.Denials)},
		{"errors", fmt.Sprint(ta.Errors), fmt.Sprint(tb.Errors)},
		{"ended", orDash(ta.End), orDash(tb.End)},
	} {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", l.name, l.a, l.b)
	}
	tw.Flush()
	fmt.Fprintln(w)
	if c.Diverge < 0 {
		fmt.Fprintln(w, "The two do the same in every round they both have.")
	} else {
		fmt.Fprintf(w, "They diverge at %s.\n", visible.Line(c.Why))
	}
	if len(c.Rows) == 0 {
		return
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "\tround\tA\tB\n")
	for i, r := range c.Rows {
		mark := ""
		if i == c.Diverge {
			mark = ">"
		}
		fmt.Fprintf(tw, "%s\t%d.%d\t%s\t%s\n", mark, r.Run, r.Round, roundLine(r.A), roundLine(r.B))
	}
	tw.Flush()
}

// roundLine is one side of a round in a line: its calls and outcome, then
// its figures.
func roundLine(f *trace.RoundFigures) string {
	if f == nil {
		return "-"
	}
	var calls []string
	for _, c := range f.Calls {
		s := c.Name
		if c.Outcome != trace.CallRan {
			s += " (" + c.Outcome + ")"
		}
		calls = append(calls, s)
	}
	what := strings.Join(calls, ", ")
	if what == "" {
		what = "answer"
	}
	if f.Outcome != trace.OutcomeTools {
		what += " → " + f.Outcome
	}
	return visible.Line(fmt.Sprintf("%s · %d+%d tok · %s", what, f.PromptTokens, f.OutputTokens, ms(f.ModelMs+f.ToolMs)))
}

func ms(n int64) string {
	return (time.Duration(n) * time.Millisecond).String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
