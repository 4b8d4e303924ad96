package trace

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loupe-dev/loupe/backend/llm"
)

// PurposeCompaction marks the model_request that asks the model to
// summarise the older history. Its answer is recorded as a model_response
// like any other (the timeline shows it), but it is not a message: the
// compaction event after it is.
const PurposeCompaction = "compaction"

// What made Loupe compact.
const (
	CompactThreshold  = "threshold"    // the prompt reached the set share of num_ctx
	CompactDoesNotFit = "does_not_fit" // Ollama refused a prompt as too long
	CompactButton     = "button"       // the user pressed Compact now
)

// Compaction replaces the oldest part of the history with a summary the
// model wrote: the messages from the conversation's start through the
// message of event Through become one message holding Summary. The events
// it replaced stay in the log; the history that requests after it send
// (and show) is the compacted one. The system prompt is never part of it,
// and a call and its results are always replaced together or kept
// together (see PlanCompaction).
type Compaction struct {
	// RequestSeq is the summarising model_request; Summary its answer.
	RequestSeq int64  `json:"request_seq"`
	Trigger    string `json:"trigger"`
	Summary    string `json:"summary"`
	// From and Through are the first and last replaced history events;
	// Messages how many messages they were.
	From     int64 `json:"from_seq"`
	Through  int64 `json:"through_seq"`
	Messages int   `json:"messages"`
	// The runs and rounds of the first and last replaced events (round 0:
	// the run's user message).
	FromRun      int `json:"from_run"`
	FromRound    int `json:"from_round"`
	ThroughRun   int `json:"through_run"`
	ThroughRound int `json:"through_round"`
	// TokensBefore and TokensAfter are Loupe's estimates of the round's
	// prompt with the history before and after.
	TokensBefore int `json:"tokens_before"`
	TokensAfter  int `json:"tokens_after"`
}

// Span says which runs and rounds a compaction replaced, in words.
func (c Compaction) Span() string {
	at := func(run, round int) string {
		if round == 0 {
			return fmt.Sprintf("run %d's message", run)
		}
		return fmt.Sprintf("run %d round %d", run, round)
	}
	if c.FromRun == c.ThroughRun {
		return fmt.Sprintf("run %d, rounds %d–%d", c.FromRun, c.FromRound, c.ThroughRound)
	}
	return at(c.FromRun, c.FromRound) + " to " + at(c.ThroughRun, c.ThroughRound)
}

// CompactPlan is which messages a compaction would replace.
type CompactPlan struct {
	From, Through int64
	Messages      int
	// Bytes is the JSON size of the replaced messages.
	Bytes                    int
	FromRun, FromRound       int
	ThroughRun, ThroughRound int
}

// PlanCompaction picks the oldest messages to summarise: the longest run
// of messages from the conversation's start that leaves the latest keep
// model answers (rounds) in place, with everything after them, and cuts
// no call from its results: a call and every result for it are both
// replaced or both kept. ok is false when there is nothing worth
// replacing (no model answer before the rounds kept).
func (h *History) PlanCompaction(keep int) (CompactPlan, bool) {
	n := len(h.msgs) - 1
	keep = max(keep, 1)
	// limit is the last message that may be replaced: the one before the
	// keep-th model answer from the end.
	limit, seen := 0, 0
	for i := n; i >= 1; i-- {
		if h.msgs[i].Role == llm.RoleAssistant {
			if seen++; seen == keep {
				limit = i - 1
				break
			}
		}
	}
	if limit < 1 {
		return CompactPlan{}, false
	}
	// A cut after message k is clean when no call spans it: every call's
	// answer and its results lie on one side. span[id] is the first and
	// last message holding the call id.
	// A call with no result yet spans to the end: its result is still to
	// come, and must find its call.
	type span struct {
		lo, hi   int
		answered bool
	}
	spans := map[string]*span{}
	mark := func(id string, i int, result bool) {
		s := spans[id]
		if s == nil {
			s = &span{lo: i, hi: i}
			spans[id] = s
		}
		s.lo, s.hi = min(s.lo, i), max(s.hi, i)
		s.answered = s.answered || result
	}
	for i := 1; i <= n; i++ {
		m := h.msgs[i]
		for _, c := range m.ToolCalls {
			mark(c.ID, i, false)
		}
		if m.Role == llm.RoleTool {
			mark(m.ToolCallID, i, true)
		}
	}
	for _, s := range spans {
		if !s.answered {
			s.hi = n + 1
		}
	}
	// open[k] counts spans with lo <= k < hi.
	delta := make([]int, n+2)
	for _, s := range spans {
		delta[s.lo]++
		delta[s.hi]--
	}
	cut, open := 0, 0
	for k := 1; k <= limit; k++ {
		open += delta[k]
		if open == 0 {
			cut = k
		}
	}
	// Worth replacing: at least one of the model's answers. A user's
	// message or an earlier summary alone is shorter than a summary of it.
	answers := 0
	for i := 1; i <= cut; i++ {
		if h.msgs[i].Role == llm.RoleAssistant {
			answers++
		}
	}
	if answers == 0 {
		return CompactPlan{}, false
	}
	from := h.seqs[1]
	if from == h.summary {
		// An earlier summary stands for what it replaced.
		from = h.summaryFrom
	}
	p := CompactPlan{From: from, Through: h.seqs[cut], Messages: cut,
		FromRun: h.places[1].run, FromRound: h.places[1].round, ThroughRun: h.places[cut].run, ThroughRound: h.places[cut].round}
	for i := 1; i <= cut; i++ {
		p.Bytes += h.size[i]
	}
	return p, true
}

// Compact applies the compaction of event seq: the messages through
// c.Through become the summary message. It fails on a log whose
// compaction names an event the history does not hold.
func (h *History) Compact(seq int64, c Compaction) error {
	k, ok := h.at[c.Through]
	if !ok || k < 1 {
		return fmt.Errorf("trace: compaction %d replaces the history through event %d, which is not in it (the log was changed?)", seq, c.Through)
	}
	sum := h.summaryMessage(k, c.Summary)
	// The summary stands where the first message it replaces stood.
	at := h.places[1]
	keep := len(h.msgs) - k - 1
	msgs := append(make([]llm.Message, 0, keep+2), llm.Message{}, sum)
	seqs := append(make([]int64, 0, keep+2), 0, seq)
	places := append(make([]place, 0, keep+2), at, at)
	h.msgs = append(msgs, h.msgs[k+1:]...)
	h.seqs = append(seqs, h.seqs[k+1:]...)
	h.places = append(places, h.places[k+1:]...)
	h.size = make([]int, len(h.msgs))
	h.total = 0
	h.at, h.calls, h.results = map[int64]int{}, map[string]int{}, map[string]int{}
	for i := 1; i < len(h.msgs); i++ {
		h.resize(i)
		h.at[h.seqs[i]] = i
		for _, tc := range h.msgs[i].ToolCalls {
			h.calls[tc.ID] = i
		}
		if h.msgs[i].Role == llm.RoleTool {
			h.results[h.msgs[i].ToolCallID] = i
		}
	}
	h.summary, h.summaryFrom = seq, c.From
	h.note(seq)
	return nil
}

// summaryMessage is the message that replaces messages 1..k: the summary,
// said to be one, and the user's latest message as they wrote it when no
// message of theirs is left after it, so that the task survives word for
// word.
func (h *History) summaryMessage(k int, summary string) llm.Message {
	var b strings.Builder
	fmt.Fprintf(&b, "[Loupe compacted the conversation: this summary, written by the model, replaces the %d earlier messages. The messages after it are as they were.]\n\n%s", k, strings.TrimSpace(summary))
	userLeft := false
	for i := k + 1; i < len(h.msgs); i++ {
		if h.msgs[i].Role == llm.RoleUser {
			userLeft = true
			break
		}
	}
	if !userLeft && h.task != "" {
		fmt.Fprintf(&b, "\n\n[The user's latest message, as they wrote it:]\n%s", h.task)
	}
	return llm.Message{Role: llm.RoleUser, Content: b.String()}
}

// CompactedBytes is PromptBytes as it would be after a compaction that
// replaces through event through with summary (the history itself is not
// changed).
func (h *History) CompactedBytes(through int64, summary, system string, toolsJSON int) int {
	k, ok := h.at[through]
	if !ok {
		return h.PromptBytes(system, toolsJSON)
	}
	replaced := 0
	for i := 1; i <= k; i++ {
		replaced += h.size[i]
	}
	b, _ := json.Marshal(h.summaryMessage(k, summary))
	return promptBytes(len(h.msgs)-1-k+1, h.total-replaced+len(b), system, toolsJSON)
}

// Size is the JSON size of the conversation's messages.
func (h *History) Size() int { return h.total }

// IsSummaryAnswer reports whether an answer is the model's reply to a
// compaction request (a summary, not a message of the conversation).
func (h *History) IsSummaryAnswer(p ModelResponse) bool {
	return h.summarising != 0 && p.RequestSeq == h.summarising
}

// SummaryRequested notes that the model_request of event seq asks for a
// summary: its answer does not join the history.
func (h *History) SummaryRequested(seq int64) { h.summarising = seq }

// transcriptShare is the part of num_ctx the transcript sent for
// summarising may take, leaving the rest for the instructions and the
// summary itself.
const transcriptShare = 2

// Cap per message of the transcript, in bytes, before the budget of the
// context shrinks it; and the least it shrinks to.
const (
	transcriptMessageCap = 2000
	transcriptMessageMin = 120
)

// summaryRequest is the request a compaction request describes: its
// system prompt (the summarising instructions) and one user message with
// the replaced messages written out, each cut to fit the context.
func summaryRequest(h *History, mr ModelRequest) llm.Request {
	k, ok := h.at[mr.Compact]
	if !ok {
		k = 0
	}
	budget := 64 << 10
	if mr.Options.NumCtx > 0 {
		budget = mr.Options.NumCtx * 4 / transcriptShare
	}
	each := transcriptMessageCap
	if k > 0 && k*each > budget {
		each = max(budget/k, transcriptMessageMin)
	}
	var b strings.Builder
	b.WriteString("The conversation so far, oldest first:\n\n")
	for i := 1; i <= k; i++ {
		m := h.msgs[i]
		switch {
		case h.seqs[i] == h.summary:
			b.WriteString("EARLIER SUMMARY: ")
			b.WriteString(clip(m.Content, each*2))
		case m.Role == llm.RoleTool:
			fmt.Fprintf(&b, "RESULT of %s (%s): %s", m.ToolName, m.ToolCallID, clip(m.Content, each))
		case m.Role == llm.RoleAssistant:
			b.WriteString("ASSISTANT: ")
			b.WriteString(clip(m.Content, each))
			for _, c := range m.ToolCalls {
				fmt.Fprintf(&b, "\nASSISTANT called %s %s (%s)", c.Name, clip(string(c.Args), each/2), c.ID)
			}
		default:
			b.WriteString(strings.ToUpper(m.Role) + ": ")
			b.WriteString(clip(m.Content, each))
		}
		b.WriteString("\n\n")
	}
	b.WriteString("Write the summary now.")
	msgs := []llm.Message{{Role: llm.RoleUser, Content: b.String()}}
	if mr.System != "" {
		msgs = append([]llm.Message{{Role: llm.RoleSystem, Content: mr.System}}, msgs...)
	}
	return llm.Request{Model: mr.Model, Messages: msgs, Options: mr.Options, Think: mr.Think, Truncate: mr.Truncate}
}

// clip keeps the start and end of s within n bytes (on rune boundaries),
// saying how much it left out.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head, tail := n*2/3, n/3
	for head > 0 && !utf8Start(s[head]) {
		head--
	}
	cut := len(s) - tail
	for cut < len(s) && !utf8Start(s[cut]) {
		cut++
	}
	return fmt.Sprintf("%s […%d bytes left out…] %s", s[:head], cut-head, s[cut:])
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// PromptBytes is the JSON size of the request built from this history
// with the given system prompt and tools (toolsJSON is the size of the
// tools' JSON), without encoding the history again: it equals
// PromptBytesOf(that request). The loop turns bytes into tokens at the
// session's measured rate (Rate.Tokens), the one the context meter uses.
func (h *History) PromptBytes(system string, toolsJSON int) int {
	return promptBytes(len(h.msgs)-1, h.total, system, toolsJSON)
}

// promptBytes is PromptBytes of n conversation messages of bytes JSON.
func promptBytes(n, bytes int, system string, toolsJSON int) int {
	if system != "" {
		b, _ := json.Marshal(llm.Message{Role: llm.RoleSystem, Content: system})
		n, bytes = n+1, bytes+len(b)
	}
	msgs := 2 + bytes // [ ... ]
	if n > 1 {
		msgs += n - 1 // commas
	}
	// {"m":MSGS,"t":TOOLS}
	return len(`{"m":,"t":}`) + msgs + toolsJSON
}

// PromptBytesOf is the size of a request already built.
func PromptBytesOf(r llm.Request) int {
	b, _ := json.Marshal(struct {
		M []llm.Message  `json:"m"`
		T []llm.ToolSpec `json:"t"`
	}{r.Messages, r.Tools})
	return len(b)
}
