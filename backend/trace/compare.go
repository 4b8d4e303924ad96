package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
)

// A compare is two sessions' logs aligned round by round: what each round
// cost (tokens, time), what the model asked for in it (tool calls by name
// and arguments), what came of it (each call's outcome, denials, errors,
// how the run went on), and the first round where the two went different
// ways. It is computed here, once, from the logs alone; the window and
// `loupe compare` only draw it.
//
// Rounds are aligned by their place in the log: round r of run n of one
// session beside round r of run n of the other. Two runs of the same task
// are run 1 of each; a fork's child shares its parent's rounds up to the
// fork point and goes on from there, in the same numbering.
//
// Two aligned rounds are the same when
//   - the model asked for the same tool calls, in the same order, each of
//     the same name and the same arguments (as JSON values: key order and
//     spacing do not count), and
//   - the outcome is the same: each call ended the same way (ran, or the
//     kind of error: denied, failed, invalid arguments…) and the round
//     ended the same way (its calls ran and the loop went on, or the run
//     ended there, for the same reason).
//
// The answer's words, the tokens and the times are not part of it: two
// models never write the same text, and what a user learns from a compare
// is where they stopped doing the same thing. The first round that is not
// the same, or that one session has and the other has not, is where they
// diverge. A round still going (its answer or a call's result not in yet)
// is compared on what it has so far, and the rounds a running session has
// not reached yet do not count as a divergence.

// Outcomes of a round besides a run's end reason (End*).
const (
	// OutcomeTools: the answer's calls ran and the loop went on.
	OutcomeTools = "tools"
	// OutcomeRunning: the round is not over yet.
	OutcomeRunning = "running"
)

// Outcomes of a call besides an error kind (Err*).
const (
	// CallRan: the call ran and its result is not an error.
	CallRan = "ran"
	// CallPending: no result yet (the run is going or paused).
	CallPending = "pending"
	// CallNotRun: the answer did not finish, so its calls never ran.
	CallNotRun = "not_run"
)

// CallFigure is one tool call of a round: its name, its arguments as the
// model wrote them and in the canonical form they are compared in (keys
// sorted, no spacing), and how it ended.
type CallFigure struct {
	Name string `json:"name"`
	Args string `json:"args"`
	// Outcome is CallRan, CallPending, CallNotRun or an error kind (Err*).
	Outcome    string `json:"outcome"`
	DurationMs int64  `json:"duration_ms"`
}

// RoundFigures is one round of a session: its model request (Seq, where
// the session opens at it), the tokens and times of its answers (a
// compaction's summary in the round included, as the timeline's totals
// count it), its calls, and how it ended.
type RoundFigures struct {
	Run   int    `json:"run"`
	Round int    `json:"round"`
	Seq   int64  `json:"seq"`
	Model string `json:"model"`
	// PromptTokens and OutputTokens are Ollama's counts
	// (prompt_eval_count, eval_count).
	PromptTokens int `json:"prompt_tokens"`
	OutputTokens int `json:"output_tokens"`
	// ModelMs is Ollama's total_duration; ToolMs the calls' durations
	// summed; WallMs from the request to the round's last event.
	ModelMs int64        `json:"model_ms"`
	ToolMs  int64        `json:"tool_ms"`
	WallMs  int64        `json:"wall_ms"`
	Calls   []CallFigure `json:"calls"`
	// Denials are calls the policy or the user refused; Errors the calls
	// that failed otherwise and the run's own errors in the round.
	Denials int `json:"denials"`
	Errors  int `json:"errors"`
	// Outcome is OutcomeTools, OutcomeRunning, or the reason the run ended
	// in this round (End*).
	Outcome string `json:"outcome"`
	// Answer is the start of the answer's text (the whole is in the log).
	Answer string `json:"answer,omitempty"`
	// Incomplete marks an answer that did not finish.
	Incomplete bool `json:"incomplete,omitempty"`
	// Compacted marks a round that summarised the older history first.
	Compacted bool `json:"compacted,omitempty"`
}

// Totals add up a session's rounds.
type Totals struct {
	Runs         int   `json:"runs"`
	Rounds       int   `json:"rounds"`
	Calls        int   `json:"calls"`
	PromptTokens int   `json:"prompt_tokens"`
	OutputTokens int   `json:"output_tokens"`
	ModelMs      int64 `json:"model_ms"`
	ToolMs       int64 `json:"tool_ms"`
	// WallMs adds each run's time from the user's message to its end (to
	// its last event, for a run still going).
	WallMs  int64 `json:"wall_ms"`
	Denials int   `json:"denials"`
	Errors  int   `json:"errors"`
	// End is why the last run ended ("" while it goes on).
	End string `json:"end"`
}

// Figures are one session's rounds and totals, and whether its last run
// is still going.
type Figures struct {
	Rounds []RoundFigures `json:"rounds"`
	Totals Totals         `json:"totals"`
	Open   bool           `json:"open"`
}

// Row is one aligned round: A and B are nil where that session has no
// such round.
type Row struct {
	Run   int           `json:"run"`
	Round int           `json:"round"`
	A     *RoundFigures `json:"a"`
	B     *RoundFigures `json:"b"`
	// Same is set when the round is the same on both sides (see above).
	Same bool `json:"same"`
}

// Alignment is two sessions' figures side by side.
type Alignment struct {
	A    Figures `json:"a"`
	B    Figures `json:"b"`
	Rows []Row   `json:"rows"`
	// Diverge is the index in Rows of the first round where the two go
	// different ways, or -1 when they have not (yet); Why says how.
	Diverge int    `json:"diverge"`
	Why     string `json:"why,omitempty"`
}

// answerShown is how much of an answer's text a round carries.
const answerShown = 280

// FiguresOf folds a log into its rounds and totals: the session's own
// loop's (a sub-agent's rounds and calls are its task call's, not rounds
// of the session).
func FiguresOf(events []Event) Figures {
	events = Own(events, "")
	var f Figures
	var cur *RoundFigures
	byCall := map[string]*CallFigure{}
	var first time.Time // the current round's request
	var runStart time.Time
	var last time.Time
	// ended is set from a run's end to the next user message: what comes
	// between (Compact now) is no round, though its answer's cost counts.
	ended := false
	var after RoundFigures
	summarising := map[int64]bool{}
	closeRun := func() {
		if !runStart.IsZero() && !last.IsZero() {
			f.Totals.WallMs += last.Sub(runStart).Milliseconds()
		}
		runStart = time.Time{}
	}
	for _, e := range events {
		last = e.Time
		if cur != nil && (e.Run != cur.Run || e.Round != cur.Round) {
			cur = nil
		}
		switch e.Kind {
		case KindUserMessage:
			closeRun()
			f.Totals.Runs++
			f.Open, f.Totals.End = true, ""
			runStart, ended = e.Time, false
			continue
		case KindRunEnd:
			p, err := Decode[RunEnd](e)
			if err == nil {
				f.Totals.End = p.Reason
				// The run ends in its last round.
				if n := len(f.Rounds); n > 0 && f.Rounds[n-1].Run == e.Run {
					f.Rounds[n-1].Outcome = p.Reason
				}
			}
			f.Open, cur, ended = false, nil, true
			closeRun()
			continue
		}
		if ended {
			if p, err := Decode[ModelResponse](e); err == nil {
				after.PromptTokens += p.Metrics.PromptEvalCount
				after.OutputTokens += p.Metrics.EvalCount
				after.ModelMs += p.Metrics.TotalDuration.Milliseconds()
			}
			continue
		}
		if e.Round == 0 {
			// Before the run's first request: only its errors count.
			if e.Kind == KindError {
				f.Totals.Errors++
			}
			continue
		}
		if cur == nil {
			if e.Kind != KindModelRequest {
				// A round is made by its request; a restore or a notice
				// recorded after the run's end is none.
				if e.Kind == KindError {
					f.Totals.Errors++
				}
				continue
			}
			f.Rounds = append(f.Rounds, RoundFigures{Run: e.Run, Round: e.Round, Seq: e.Seq, Calls: []CallFigure{}, Outcome: OutcomeRunning})
			cur = &f.Rounds[len(f.Rounds)-1]
			byCall = map[string]*CallFigure{}
			first = e.Time
		}
		cur.WallMs = e.Time.Sub(first).Milliseconds()
		switch e.Kind {
		case KindModelRequest:
			p, err := Decode[ModelRequest](e)
			if err != nil {
				continue
			}
			if p.Purpose == PurposeCompaction {
				cur.Compacted = true
				summarising[e.Seq] = true
				continue
			}
			cur.Seq, cur.Model = e.Seq, p.Model
		case KindModelResponse:
			p, err := Decode[ModelResponse](e)
			if err != nil {
				continue
			}
			cur.PromptTokens += p.Metrics.PromptEvalCount
			cur.OutputTokens += p.Metrics.EvalCount
			cur.ModelMs += p.Metrics.TotalDuration.Milliseconds()
			if summarising[p.RequestSeq] {
				continue // the compaction's summary
			}
			cur.Answer = startOf(p.Content, answerShown)
			cur.Incomplete = p.Incomplete
			cur.Calls = cur.Calls[:0]
			byCall = map[string]*CallFigure{}
			outcome := CallPending
			if p.Incomplete {
				outcome = CallNotRun
			}
			for _, c := range p.ToolCalls {
				cur.Calls = append(cur.Calls, CallFigure{Name: c.Name, Args: CanonicalArgs(c.Args), Outcome: outcome})
			}
			for i, c := range p.ToolCalls {
				byCall[c.ID] = &cur.Calls[i]
			}
		case KindToolResult:
			p, err := Decode[ToolResult](e)
			if err != nil {
				continue
			}
			c := byCall[p.CallID]
			if c == nil {
				continue
			}
			c.DurationMs = p.DurationMs
			cur.ToolMs += p.DurationMs
			switch {
			case p.ErrorKind == ErrDenied:
				c.Outcome = ErrDenied
				cur.Denials++
			case p.ErrorKind == ErrSkipped:
				c.Outcome = ErrSkipped
			case p.IsError:
				c.Outcome = p.ErrorKind
				if c.Outcome == "" {
					c.Outcome = ErrFailed
				}
				cur.Errors++
			default:
				c.Outcome = CallRan
			}
		case KindError:
			cur.Errors++
		}
		if cur.Outcome == OutcomeRunning && e.Kind == KindToolResult && allIn(cur.Calls) {
			cur.Outcome = OutcomeTools
		}
	}
	if f.Open {
		closeRun()
		// The last round of a run still going is not over.
		if n := len(f.Rounds); n > 0 {
			f.Rounds[n-1].Outcome = OutcomeRunning
		}
	}
	t := &f.Totals
	t.PromptTokens, t.OutputTokens, t.ModelMs = after.PromptTokens, after.OutputTokens, after.ModelMs
	for _, r := range f.Rounds {
		t.Rounds++
		t.Calls += len(r.Calls)
		t.PromptTokens += r.PromptTokens
		t.OutputTokens += r.OutputTokens
		t.ModelMs += r.ModelMs
		t.ToolMs += r.ToolMs
		t.Denials += r.Denials
		t.Errors += r.Errors
	}
	return f
}

// allIn reports whether every call has its result.
func allIn(cs []CallFigure) bool {
	for _, c := range cs {
		if c.Outcome == CallPending {
			return false
		}
	}
	return len(cs) > 0
}

// Align puts two logs' rounds side by side and finds where they diverge.
func Align(a, b []Event) Alignment {
	al := Alignment{A: FiguresOf(a), B: FiguresOf(b), Diverge: -1, Rows: []Row{}}
	type key struct{ run, round int }
	at := map[key]int{}
	add := func(r *RoundFigures, side int) {
		k := key{r.Run, r.Round}
		i, ok := at[k]
		if !ok {
			i = len(al.Rows)
			at[k] = i
			al.Rows = append(al.Rows, Row{Run: r.Run, Round: r.Round})
		}
		if side == 0 {
			al.Rows[i].A = r
		} else {
			al.Rows[i].B = r
		}
	}
	for i := range al.A.Rounds {
		add(&al.A.Rounds[i], 0)
	}
	for i := range al.B.Rounds {
		add(&al.B.Rounds[i], 1)
	}
	sort.SliceStable(al.Rows, func(i, j int) bool {
		x, y := al.Rows[i], al.Rows[j]
		if x.Run != y.Run {
			return x.Run < y.Run
		}
		return x.Round < y.Round
	})
	for i := range al.Rows {
		r := &al.Rows[i]
		why := differ(r.A, r.B, al.A.Open, al.B.Open)
		r.Same = why == "" && r.A != nil && r.B != nil
		if why != "" && al.Diverge < 0 {
			al.Diverge, al.Why = i, fmt.Sprintf("run %d, round %d: %s", r.Run, r.Round, why)
		}
	}
	return al
}

// differ says how two aligned rounds differ, or "" when they do not (or
// not yet: a missing round of a session still running).
func differ(a, b *RoundFigures, aOpen, bOpen bool) string {
	switch {
	case a == nil && b == nil:
		return ""
	case a == nil:
		if aOpen {
			return ""
		}
		return "only B has this round"
	case b == nil:
		if bOpen {
			return ""
		}
		return "only A has this round"
	}
	if len(a.Calls) != len(b.Calls) {
		return fmt.Sprintf("A made %s, B %s", callCount(len(a.Calls)), callCount(len(b.Calls)))
	}
	for i := range a.Calls {
		x, y := a.Calls[i], b.Calls[i]
		if x.Name != y.Name {
			return fmt.Sprintf("call %d is %s in A, %s in B", i+1, x.Name, y.Name)
		}
		if x.Args != y.Args {
			return fmt.Sprintf("call %d (%s) has other arguments: %s in A, %s in B", i+1, x.Name, x.Args, y.Args)
		}
	}
	going := a.Outcome == OutcomeRunning || b.Outcome == OutcomeRunning
	for i := range a.Calls {
		x, y := a.Calls[i], b.Calls[i]
		if x.Outcome == CallPending || y.Outcome == CallPending {
			continue
		}
		if x.Outcome != y.Outcome {
			return fmt.Sprintf("call %d (%s) %s in A, %s in B", i+1, x.Name, callOutcome(x.Outcome), callOutcome(y.Outcome))
		}
	}
	if !going && a.Outcome != b.Outcome {
		return fmt.Sprintf("A %s, B %s", roundOutcome(a.Outcome), roundOutcome(b.Outcome))
	}
	return ""
}

func callCount(n int) string {
	switch n {
	case 0:
		return "no tool calls"
	case 1:
		return "1 tool call"
	}
	return fmt.Sprintf("%d tool calls", n)
}

func callOutcome(o string) string {
	switch o {
	case CallRan:
		return "ran"
	case CallNotRun:
		return "never ran (the answer did not finish)"
	case ErrFailed:
		return "failed"
	case ErrInvalidArgs:
		return "had bad arguments"
	case ErrUnknownTool:
		return "named an unknown tool"
	}
	return "was " + o
}

func roundOutcome(o string) string {
	if o == OutcomeTools {
		return "went on after its calls"
	}
	return "ended the run (" + o + ")"
}

// CanonicalArgs is a call's arguments as the JSON value they are, with
// object keys sorted and no spacing: two calls with the same arguments
// written in another order or spacing have the same CanonicalArgs.
// Arguments that are not JSON are kept as written.
func CanonicalArgs(raw json.RawMessage) string {
	if len(bytes.TrimSpace(raw)) == 0 {
		return "{}"
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil || d.More() {
		return string(raw)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return string(raw)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// startOf is the start of s, at most n bytes, on a rune boundary, with an
// ellipsis when something was left out.
func startOf(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8Start(s[i]) {
		i--
	}
	return s[:i] + "…"
}
