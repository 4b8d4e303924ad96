package trace

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/loupe-dev/loupe/backend/llm"
)

// Two answers to one request side by side: the one the log recorded and
// one got by sending the request again to another model, temperature or
// num_ctx ("Try this request on…"). The comparison is made here, once; the
// window and `loupe try` show what it says.

// Answer is one model's answer to a request as a comparison shows it.
type Answer struct {
	Model string `json:"model"`
	// Host is the Ollama server that answered (its base URL); HostName its
	// Settings name, "" for the local host or an address.
	Host     string      `json:"host,omitempty"`
	HostName string      `json:"host_name,omitempty"`
	Options  llm.Options `json:"options"`
	Content  string      `json:"content"`
	Thinking string      `json:"thinking,omitempty"`
	// ToolCalls are the calls the model asked for; nothing ran them.
	ToolCalls  []llm.ToolCall `json:"tool_calls"`
	DoneReason string         `json:"done_reason"`
	// Incomplete marks an answer that did not end normally (cut stream,
	// done_reason "length").
	Incomplete bool        `json:"incomplete"`
	Metrics    llm.Metrics `json:"metrics"`
}

// Line ops of a text diff.
const (
	LineSame    = "same"
	LineRemoved = "removed" // only in the recorded answer
	LineAdded   = "added"   // only in the alternative
)

// DiffLine is one line of a text diff from the recorded answer to the
// alternative, without its line break.
type DiffLine struct {
	Op   string `json:"op"`
	Text string `json:"text"`
}

// Verdicts on a pair of calls, and on one argument of a pair.
const (
	CallSame            = "same"             // same tool, same arguments
	CallArgsDiffer      = "args_differ"      // same tool, other arguments
	CallOnlyRecorded    = "only_recorded"    // the recorded answer made it, the alternative did not
	CallOnlyAlternative = "only_alternative" // the alternative made it, the recorded answer did not
	ArgSame             = "same"
	ArgChanged          = "changed"
	ArgOnlyRecorded     = "only_recorded"
	ArgOnlyAlternative  = "only_alternative"
)

// CallPair is a call of the recorded answer beside the call of the
// alternative it matches (the same tool, in the same order), or alone.
type CallPair struct {
	Recorded    *llm.ToolCall `json:"recorded"`
	Alternative *llm.ToolCall `json:"alternative"`
	Verdict     string        `json:"verdict"`
	// Args compares the arguments of a matched pair by name, the recorded
	// call's order first: values are equal when they are the same JSON
	// (key order and spacing aside). Nil for an unmatched call.
	Args []ArgPair `json:"args"`
}

// ArgPair is one argument of a matched pair of calls; a side that lacks it
// is null.
type ArgPair struct {
	Name        string          `json:"name"`
	Recorded    json.RawMessage `json:"recorded"`
	Alternative json.RawMessage `json:"alternative"`
	Verdict     string          `json:"verdict"`
}

// Figure units.
const (
	UnitTokens    = "tokens"
	UnitNs        = "ns"
	UnitPerSecond = "tokens_per_second"
	UnitShare     = "share" // a fraction of num_ctx, 0 to 1 and above
)

// Figure is one number of the meters or timings for both answers; a side
// that has none (no answer recorded, no count reported) is null.
type Figure struct {
	Key         string   `json:"key"`
	Label       string   `json:"label"`
	Unit        string   `json:"unit"`
	Recorded    *float64 `json:"recorded"`
	Alternative *float64 `json:"alternative"`
}

// AnswerComparison is what differs between the recorded answer and the
// alternative.
type AnswerComparison struct {
	SameText bool `json:"same_text"`
	// Text is the diff of the answers' text, line by line, recorded first.
	Text         []DiffLine `json:"text"`
	SameThinking bool       `json:"same_thinking"`
	// SameCalls: the same tools called with the same arguments in the same
	// order.
	SameCalls bool       `json:"same_calls"`
	Calls     []CallPair `json:"calls"`
	// Figures are the meters (tokens read and written, the share of
	// num_ctx) and the timings, in that order.
	Figures []Figure `json:"figures"`
}

// CompareAnswers compares the alternative answer with the recorded one;
// recorded nil (the log holds no answer to the request) compares with
// nothing, so every line and call is the alternative's alone.
func CompareAnswers(recorded *Answer, alt Answer) AnswerComparison {
	var rec Answer
	if recorded != nil {
		rec = *recorded
	}
	c := AnswerComparison{
		SameText:     recorded != nil && rec.Content == alt.Content,
		SameThinking: recorded != nil && rec.Thinking == alt.Thinking,
		Text:         diffLines(rec.Content, alt.Content),
		Calls:        pairCalls(rec.ToolCalls, alt.ToolCalls),
	}
	c.SameCalls = recorded != nil
	for _, p := range c.Calls {
		if p.Verdict != CallSame {
			c.SameCalls = false
		}
	}
	c.Figures = figures(recorded, alt)
	return c
}

// diffLines is the line diff from a to b (go-udiff's, which bounds its own
// work on long texts).
func diffLines(a, b string) []DiffLine {
	out := []DiffLine{}
	add := func(op, text string) {
		if text == "" {
			return
		}
		text = strings.TrimSuffix(text, "\n")
		for _, l := range strings.Split(text, "\n") {
			out = append(out, DiffLine{Op: op, Text: l})
		}
	}
	at := 0
	for _, e := range udiff.Lines(a, b) {
		add(LineSame, a[at:e.Start])
		add(LineRemoved, a[e.Start:e.End])
		add(LineAdded, e.New)
		at = e.End
	}
	add(LineSame, a[at:])
	return out
}

// pairCalls matches the calls of two answers by tool name, keeping their
// order (the longest common run of names), then compares each matched
// pair's arguments. Calls left over are each side's alone, in place.
func pairCalls(rec, alt []llm.ToolCall) []CallPair {
	n, m := len(rec), len(alt)
	// lcs[i][j]: the longest common run of names of rec[i:] and alt[j:].
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if rec[i].Name == alt[j].Name {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	out := []CallPair{}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && rec[i].Name == alt[j].Name:
			p := CallPair{Recorded: &rec[i], Alternative: &alt[j], Args: pairArgs(rec[i].Args, alt[j].Args)}
			p.Verdict = CallSame
			for _, a := range p.Args {
				if a.Verdict != ArgSame {
					p.Verdict = CallArgsDiffer
				}
			}
			out = append(out, p)
			i, j = i+1, j+1
		case j == m || (i < n && lcs[i+1][j] >= lcs[i][j+1]):
			out = append(out, CallPair{Recorded: &rec[i], Verdict: CallOnlyRecorded})
			i++
		default:
			out = append(out, CallPair{Alternative: &alt[j], Verdict: CallOnlyAlternative})
			j++
		}
	}
	return out
}

// pairArgs compares two calls' arguments by name. Arguments that are not a
// JSON object compare as one value named "".
func pairArgs(a, b json.RawMessage) []ArgPair {
	ka, va, okA := members(a)
	kb, vb, okB := members(b)
	if !okA || !okB {
		p := ArgPair{Recorded: a, Alternative: b, Verdict: ArgChanged}
		if sameJSON(a, b) {
			p.Verdict = ArgSame
		}
		return []ArgPair{p}
	}
	out := []ArgPair{}
	for _, k := range ka {
		p := ArgPair{Name: k, Recorded: va[k]}
		if v, ok := vb[k]; ok {
			p.Alternative = v
			p.Verdict = ArgChanged
			if sameJSON(va[k], v) {
				p.Verdict = ArgSame
			}
		} else {
			p.Verdict = ArgOnlyRecorded
		}
		out = append(out, p)
	}
	for _, k := range kb {
		if _, ok := va[k]; !ok {
			out = append(out, ArgPair{Name: k, Alternative: vb[k], Verdict: ArgOnlyAlternative})
		}
	}
	return out
}

// members reads a JSON object's keys in order with their raw values; false
// when raw is not an object. Empty arguments are an empty object.
func members(raw json.RawMessage) ([]string, map[string]json.RawMessage, bool) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return nil, map[string]json.RawMessage{}, true
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, false
	}
	var keys []string
	vals := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, false
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, false
		}
		if _, dup := vals[k]; !dup {
			keys = append(keys, k)
		}
		vals[k] = v
	}
	return keys, vals, true
}

// sameJSON says whether two JSON texts hold the same value, key order and
// spacing aside: the comparison the side-by-side view makes of calls
// (CanonicalArgs), so a try and a compare never disagree on "same".
func sameJSON(a, b json.RawMessage) bool {
	return CanonicalArgs(bytes.TrimSpace(a)) == CanonicalArgs(bytes.TrimSpace(b))
}

// figures are the meters and timings of both answers.
func figures(rec *Answer, alt Answer) []Figure {
	type get func(a Answer) (float64, bool)
	count := func(n int) (float64, bool) { return float64(n), n > 0 }
	dur := func(d int64) (float64, bool) { return float64(d), d > 0 }
	rows := []struct {
		key, label, unit string
		of               get
	}{
		{"prompt_tokens", "Prompt tokens read", UnitTokens, func(a Answer) (float64, bool) { return count(a.Metrics.PromptEvalCount) }},
		{"output_tokens", "Tokens written", UnitTokens, func(a Answer) (float64, bool) { return count(a.Metrics.EvalCount) }},
		{"context_share", "Share of num_ctx", UnitShare, func(a Answer) (float64, bool) {
			if a.Metrics.PromptEvalCount <= 0 || a.Options.NumCtx <= 0 {
				return 0, false
			}
			return float64(a.Metrics.PromptEvalCount+a.Metrics.EvalCount) / float64(a.Options.NumCtx), true
		}},
		{"time_to_first_token", "Time to first token", UnitNs, func(a Answer) (float64, bool) { return dur(int64(a.Metrics.TimeToFirstToken)) }},
		{"load", "Loading the model", UnitNs, func(a Answer) (float64, bool) { return dur(int64(a.Metrics.LoadDuration)) }},
		{"prompt_eval", "Reading the prompt", UnitNs, func(a Answer) (float64, bool) { return dur(int64(a.Metrics.PromptEvalDuration)) }},
		{"eval", "Writing the answer", UnitNs, func(a Answer) (float64, bool) { return dur(int64(a.Metrics.EvalDuration)) }},
		{"total", "Total", UnitNs, func(a Answer) (float64, bool) { return dur(int64(a.Metrics.TotalDuration)) }},
		{"speed", "Writing speed", UnitPerSecond, func(a Answer) (float64, bool) {
			if a.Metrics.EvalCount <= 0 || a.Metrics.EvalDuration <= 0 {
				return 0, false
			}
			return float64(a.Metrics.EvalCount) / a.Metrics.EvalDuration.Seconds(), true
		}},
	}
	out := make([]Figure, 0, len(rows))
	for _, r := range rows {
		f := Figure{Key: r.key, Label: r.label, Unit: r.unit}
		if rec != nil {
			if v, ok := r.of(*rec); ok {
				f.Recorded = &v
			}
		}
		if v, ok := r.of(alt); ok {
			f.Alternative = &v
		}
		out = append(out, f)
	}
	return out
}
