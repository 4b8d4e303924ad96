package trace

import (
	"fmt"
	"math"
	"strings"

	"github.com/loupe-dev/loupe/backend/llm"
)

// The context meter: how much of the context each request took, by part.
//
// Ollama reports one number per request, prompt_eval_count. Loupe splits
// it into the system prompt, the tool schemas, the history and the new
// observations by the size of each part as sent: the split is an
// estimate, the total is Ollama's count.
//
// Does prompt_eval_count include the tokens Ollama reused from its KV
// cache? In Ollama v0.17.4 it does: both runners (runner/ollamarunner and
// runner/llamarunner, runner.go NewSequence) set numPromptInputs to the
// length of the whole tokenized prompt when the sequence is made, before
// InputCache.LoadCacheSlot drops the cached prefix from what is
// evaluated, and the final response reports numPromptInputs. Only
// prompt_eval_duration shrinks on a cache hit. Other servers differ:
// Ollama v0.30.0, which ran GGML models on llama-server, reported
// llama-server's timings.prompt_n, the tokens evaluated without the cached
// ones (fixed in v0.30.1, ollama#16414, by adding cache_n back), and the
// llama.cpp-server Ollama of early 2024 did the same. On such a server the
// count of a follow-up round is about the size of what is new since the
// last request. The meter must not show less than the context holds, so a
// count that small is read as the previous full prompt and answer plus
// the new tokens (Source SourceCache), and such a round neither
// calibrates the estimate nor counts as a cut.

// DefaultBytesPerToken is Loupe's estimate before a session has a count of
// Ollama's for its model: about four bytes of JSON a token.
const DefaultBytesPerToken = 4.0

// Where a meter's Prompt comes from.
const (
	// SourceOllama: Ollama's prompt_eval_count.
	SourceOllama = "ollama"
	// SourceCache: Ollama counted only the tokens that were not in its
	// cache; Prompt adds the previous prompt and answer (an upper bound).
	SourceCache = "cache"
	// SourceEstimate: Ollama gave no count (the answer did not finish);
	// Prompt is Loupe's estimate.
	SourceEstimate = "estimate"
)

// Parts is a prompt by part, in tokens: the system prompt, the tool
// schemas, the history (the conversation up to the previous request,
// the model's answers included) and the new observations (the tool
// results and the user's message added since the previous request).
type Parts struct {
	System  int `json:"system"`
	Tools   int `json:"tools"`
	History int `json:"history"`
	New     int `json:"new"`
}

// Sum is the whole prompt.
func (p Parts) Sum() int { return p.System + p.Tools + p.History + p.New }

// Split is Loupe's estimate of a request's prompt, by part, recorded with
// the request: the JSON size of each part as sent, at BytesPerToken.
type Split struct {
	Parts
	// Bytes is the size of the whole prompt as sent (messages and tool
	// schemas as JSON).
	Bytes int `json:"bytes"`
	// BytesPerToken is the rate of the estimate: DefaultBytesPerToken
	// until the session has a full count of Ollama's for this model, then
	// the latest such count's (the model_response CalibratedBy).
	BytesPerToken float64 `json:"bytes_per_token"`
	CalibratedBy  int64   `json:"calibrated_by,omitempty"`
}

// Rate is the bytes per token a session's counts have shown so far.
type Rate struct {
	BytesPerToken float64
	// From is the model_response whose count set it (0: the default).
	From int64
}

// DefaultRate is the rate of a session without a count yet.
func DefaultRate() Rate { return Rate{BytesPerToken: DefaultBytesPerToken} }

// Tokens estimates n bytes at this rate.
func (r Rate) Tokens(n int) int {
	bpt := r.BytesPerToken
	if bpt <= 0 {
		bpt = DefaultBytesPerToken
	}
	return int(math.Ceil(float64(n) / bpt))
}

// SplitOf estimates a prompt of the given parts (in bytes) at rate r.
func SplitOf(system, tools, history, fresh int, r Rate) Split {
	if r.BytesPerToken <= 0 {
		r = DefaultRate()
	}
	return Split{
		Parts:         Parts{System: r.Tokens(system), Tools: r.Tokens(tools), History: r.Tokens(history), New: r.Tokens(fresh)},
		Bytes:         system + tools + history + fresh,
		BytesPerToken: round3(r.BytesPerToken),
		CalibratedBy:  r.From,
	}
}

// PartBytes splits the history's JSON size into the messages added since
// the last request of the conversation (a summarising request does not
// count) that are not the model's own answers (fresh: the new
// tool results and user messages) and the rest. It costs what was added
// since, not the whole history.
func (h *History) PartBytes() (history, fresh int) {
	for _, seq := range h.fresh {
		if i, ok := h.at[seq]; ok && h.msgs[i].Role != llm.RoleAssistant {
			fresh += h.size[i]
		}
	}
	return h.total - fresh, fresh
}

// Meter is the context meter of one answered request, recorded with the
// answer.
type Meter struct {
	// Prompt is the tokens the prompt takes in the context (see Source).
	Prompt int    `json:"prompt"`
	Source string `json:"source"`
	// Counted is Ollama's prompt_eval_count as reported (0: none).
	Counted int `json:"counted,omitempty"`
	// Output is the answer's tokens (eval_count): the next prompt holds
	// them too.
	Output int `json:"output,omitempty"`
	// NumCtx is what the request asked for; Loaded what Ollama allocated
	// for the loaded model after the answer (/api/ps context_length; 0:
	// not known). When Loaded is known it is the context that counts.
	NumCtx int `json:"num_ctx"`
	Loaded int `json:"loaded,omitempty"`
	// Parts split Prompt in proportion to the request's Split (so they are
	// estimated; they add up to Prompt). When Ollama dropped messages,
	// the loss is taken from the history.
	Parts Parts `json:"parts"`
	// BytesPerToken is this round's measured rate, when its count is a
	// full count the next estimates can be calibrated by (0: it is not:
	// no count, a cache-only count, a cut prompt).
	BytesPerToken float64 `json:"bytes_per_token,omitempty"`
	// Dropped is set when Ollama probably dropped part of the prompt.
	Dropped bool `json:"dropped,omitempty"`
}

// Context is the context that counts: what Ollama allocated, else num_ctx.
func (m Meter) Context() int {
	if m.Loaded > 0 {
		return m.Loaded
	}
	return m.NumCtx
}

// Previous is what the meter needs of the request this one extends: its
// prompt and its answer, in tokens.
type Previous struct {
	Prompt int
	Output int
}

// Reading is what MeterOf makes of a count: the meter, and when Ollama
// probably dropped messages, how many tokens (Lost, by Loupe's estimate).
type Reading struct {
	Meter Meter
	Lost  int
}

// How far below Loupe's estimate a count must be to mean that messages
// were dropped: with a rate calibrated on this session, under 60% of the
// estimate; with the default rate, which is off by a factor of two on
// some tokenizers, under 35%. And by at least minLost tokens, so that a
// short prompt's rounding never fires.
const (
	farBelowCalibrated = 0.6
	farBelowDefault    = 0.35
	minLost            = 128
)

// MeterOf reads the metrics of request s's answer. prev is the request it
// extends (nil: none, or its count is not known). numCtx and loaded are
// the asked and allocated context.
func MeterOf(s Split, prev *Previous, m llm.Metrics, numCtx, loaded int) Reading {
	est := s.Sum()
	mt := Meter{Counted: m.PromptEvalCount, Output: m.EvalCount, NumCtx: numCtx, Loaded: loaded}
	c := m.PromptEvalCount
	if c <= 0 {
		mt.Prompt, mt.Source, mt.Parts = est, SourceEstimate, s.Parts
		return Reading{Meter: mt}
	}
	mt.Prompt, mt.Source = c, SourceOllama
	far := farBelowDefault
	if s.CalibratedBy != 0 {
		far = farBelowCalibrated
	}
	low := float64(c) < far*float64(est) && est-c >= minLost
	full := CutSuspected(m, mt.Context())
	switch {
	case low && prev != nil && cacheOnly(c, s, *prev):
		// The count leaves the cached prefix out: what is new since the
		// previous request is about its size.
		mt.Prompt, mt.Source = prev.Prompt+prev.Output+c, SourceCache
		mt.Parts = scale(s.Parts, mt.Prompt)
		return Reading{Meter: mt}
	case low:
		mt.Dropped = true
		mt.Parts = dropped(s.Parts, c)
		return Reading{Meter: mt, Lost: est - c}
	case full:
		mt.Dropped = true
		mt.Parts = dropped(s.Parts, c)
		return Reading{Meter: mt}
	}
	mt.Parts = scale(s.Parts, c)
	if s.Bytes > 0 {
		mt.BytesPerToken = round3(float64(s.Bytes) / float64(c))
	}
	return Reading{Meter: mt}
}

// cacheOnly reports whether count c is better read as what a server that
// leaves cached tokens out counts (about the size of what is new since
// the previous request: its answer and the new observations) than as a
// cut prompt, which still holds the system prompt, the tool schemas and
// the latest messages (Ollama keeps them when it cuts): whichever c is
// nearer to. Read either way, the meter errs on the high side.
func cacheOnly(c int, s Split, prev Previous) bool {
	delta := s.New + prev.Output
	kept := s.System + s.Tools + s.New
	return absInt(c-delta) < absInt(c-kept)
}

func absInt(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// scale splits total in proportion to p; the rounding goes to the
// biggest part, so the parts add up to total.
func scale(p Parts, total int) Parts {
	sum := p.Sum()
	if sum <= 0 {
		return Parts{History: total}
	}
	f := float64(total) / float64(sum)
	out := Parts{
		System:  int(math.Round(float64(p.System) * f)),
		Tools:   int(math.Round(float64(p.Tools) * f)),
		History: int(math.Round(float64(p.History) * f)),
		New:     int(math.Round(float64(p.New) * f)),
	}
	d := total - out.Sum()
	switch max(out.System, out.Tools, out.History, out.New) {
	case out.History:
		out.History += d
	case out.Tools:
		out.Tools += d
	case out.New:
		out.New += d
	default:
		out.System += d
	}
	return out
}

// dropped splits a count c of a prompt Ollama cut: it keeps the system
// prompt, the tool schemas and the latest messages, and drops the oldest
// history, so the history takes the loss (all of it, if need be, and then
// the rest shrinks in proportion).
func dropped(p Parts, c int) Parts {
	kept := p.System + p.Tools + p.New
	if kept <= c {
		p.History = c - kept
		return p
	}
	p.History = 0
	return scale(p, c)
}

// LostMessages names the oldest messages after the system prompt whose
// estimated size adds up to lost tokens: the ones Ollama probably dropped
// (it drops whole messages from the front, keeping system messages and
// the latest one: server/prompt.go chatPrompt).
func LostMessages(msgs []llm.Message, lost int, r Rate, sizeOf func(llm.Message) int) []string {
	var names []string
	sum := 0
	last := len(msgs) - 1
	for i, m := range msgs {
		if sum >= lost || i == last {
			break
		}
		if m.Role == llm.RoleSystem {
			continue
		}
		sum += r.Tokens(sizeOf(m))
		names = append(names, messageName(i, m))
	}
	return names
}

// DroppedNotice is the notice of a count far below the estimate.
func DroppedNotice(rd Reading, est int, r Rate, lost []string) Notice {
	from := "Loupe's default of 4 bytes a token"
	if r.From != 0 {
		from = fmt.Sprintf("this session's earlier counts, %.1f bytes a token", r.BytesPerToken)
	}
	what := "the oldest messages after the system prompt"
	if len(lost) > 0 {
		what = strings.Join(lost, "; ")
	}
	return Notice{Code: CodeContextDropped, Message: fmt.Sprintf(
		"Ollama read %d prompt tokens, far fewer than the %d Loupe expects (from %s): it probably dropped about %d tokens of the oldest messages to fit the context: %s. The model answered without them. Compact, raise num_ctx, or drop old tool outputs.",
		rd.Meter.Counted, est, from, rd.Lost, what)}
}

// AllocatedNotice says that Ollama allocated another context than num_ctx.
func AllocatedNotice(model string, numCtx, loaded int) Notice {
	why := "the model's own context length is smaller, or the server caps it"
	if loaded > numCtx {
		why = "the server raised it (vision models get at least 2048)"
	}
	return Notice{Code: CodeContextAllocated, Message: fmt.Sprintf(
		"Ollama allocated a context of %d tokens for %s, not the num_ctx %d Loupe asked for (%s): the context meter counts against %d.",
		loaded, model, numCtx, why, loaded)}
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }
