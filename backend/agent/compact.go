package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/trace"
)

// Compaction says when a run compacts its history: the model summarises
// the older turns, and the requests after it send the summary instead.
type Compaction struct {
	// On compacts when a prompt reaches AtPercent of num_ctx, and when
	// Ollama refuses one as longer than num_ctx (then sends it again).
	On bool
	// AtPercent is the share of num_ctx that triggers it (default 80).
	AtPercent int
	// KeepRounds are the latest rounds always kept as they are (default 2).
	KeepRounds int
	// Prompt is the summarising instructions (default SummaryPrompt).
	Prompt string
}

// Defaults of Compaction.
const (
	DefaultCompactAt   = 80
	DefaultKeepRounds  = 2
	CodeCompactFailed  = "compaction_failed"
	CodeCompactRetries = "does_not_fit_compacting"
)

// SummaryPrompt is the system prompt of the summarising request.
const SummaryPrompt = `You summarise the earlier part of a conversation between a user and a coding agent, so that the agent can go on with less context.
Write a concise summary in plain text: the user's task and the constraints they gave; what has been done so far (files read, changed or created, commands run and what they showed); decisions made and why; what is left to do and any open problems.
Keep exact file paths, names, numbers and error messages that matter. Say only what the conversation says. Do not call tools.`

func (c Compaction) at() int {
	if c.AtPercent <= 0 || c.AtPercent > 100 {
		return DefaultCompactAt
	}
	return c.AtPercent
}

func (c Compaction) keep() int {
	if c.KeepRounds <= 0 {
		return DefaultKeepRounds
	}
	return c.KeepRounds
}

func (c Compaction) prompt() string {
	if strings.TrimSpace(c.Prompt) == "" {
		return SummaryPrompt
	}
	return c.Prompt
}

// squeeze is what a run keeps for compaction: the prompt size Ollama
// read for the last answer (0 after a compaction, until the next one),
// and the round whose refused prompt was compacted already, so that a
// prompt is compacted for at most once.
type squeeze struct {
	lastPrompt int
	fitRound   int
	// autoFailed is set when a compaction at the threshold failed (the
	// model gave no usable summary): the run does not ask again by itself,
	// which would send a summarising request every round for nothing.
	autoFailed bool
}

// ErrNothingToCompact is what Compact says when the history holds
// nothing older than the rounds it keeps.
var ErrNothingToCompact = errors.New("nothing to compact")

// ErrRunGoing is what Compact says while the session's run goes.
var ErrRunGoing = errors.New("a run is going: compact when it has ended (or stop it)")

// Compact summarises the session's older history now, between runs: the
// Compact now button. Its events belong to the last run, after its end,
// as a restore's do.
func (a *Agent) Compact(ctx context.Context) (trace.Compaction, error) {
	st := trace.StateOf(a.log)
	if st.Open {
		return trace.Compaction{}, ErrRunGoing
	}
	r, err := a.begin()
	if err != nil {
		return trace.Compaction{}, err
	}
	r.num, r.round = st.Run, st.Round+1
	if _, ok := r.hist.PlanCompaction(r.cfg.Compaction.keep()); !ok {
		return trace.Compaction{}, fmt.Errorf("%w: the history holds nothing older than the latest %d rounds, which are always kept", ErrNothingToCompact, r.cfg.Compaction.keep())
	}
	c, why, err := r.compact(ctx, trace.CompactButton)
	switch {
	case err != nil:
		return c, unwrapStore(err)
	case why != "":
		return c, errors.New("the history was not compacted: " + why)
	}
	return c, nil
}

// autoCompact compacts before a round's request when the prompt reached
// the set share of num_ctx: the one Ollama read for the last answer, or
// Loupe's estimate of the one about to be sent. It only replaces a part
// worth it (half the conversation at least), so that a history whose
// latest rounds alone come near the threshold is not summarised again
// every round; a prompt that does not fit at all is compacted anyway.
func (r *run) autoCompact(ctx context.Context) error {
	cc, numCtx := r.cfg.Compaction, r.cfg.Options.NumCtx
	if !cc.On || numCtx <= 0 || ctx.Err() != nil {
		return nil
	}
	r.mu.Lock()
	used := max(r.rate.Tokens(r.hist.PromptBytes(r.cfg.System, r.toolsJSON)), r.squeeze.lastPrompt)
	// The threshold first: planning walks the whole history, and a round
	// under the threshold (almost every round) must not cost the history's
	// length.
	if used*100 < cc.at()*numCtx || r.squeeze.autoFailed {
		r.mu.Unlock()
		return nil
	}
	plan, ok := r.hist.PlanCompaction(cc.keep())
	worth := ok && plan.Bytes*2 >= r.hist.Size()
	r.mu.Unlock()
	if !worth {
		return nil
	}
	_, why, err := r.compact(ctx, trace.CompactThreshold)
	if why != "" && ctx.Err() == nil {
		r.squeeze.autoFailed = true
	}
	return err
}

// compactToFit answers a prompt Ollama refused as too long: when
// compaction is on and this round's prompt was not compacted already, it
// says so, compacts, and reports whether to send the request again.
func (r *run) compactToFit(ctx context.Context, fit trace.Fit) (bool, error) {
	if !r.cfg.Compaction.On || r.squeeze.fitRound == r.round {
		return false, nil
	}
	r.squeeze.fitRound = r.round
	r.mu.Lock()
	_, ok := r.hist.PlanCompaction(r.cfg.Compaction.keep())
	r.mu.Unlock()
	if !ok {
		return false, r.notice(ctx, CodeCompactFailed, fmt.Sprintf(
			"compaction cannot make room: the history holds nothing older than the latest %d rounds, which are always kept.", r.cfg.Compaction.keep()))
	}
	if err := r.notice(ctx, CodeCompactRetries, fmt.Sprintf(
		"the prompt does not fit the context (about %d tokens needed, num_ctx %d): compacting the older turns and sending it again.", fit.Needed, fit.NumCtx)); err != nil {
		return false, err
	}
	_, why, err := r.compact(ctx, trace.CompactDoesNotFit)
	if err != nil {
		return false, err
	}
	if ctx.Err() != nil {
		// Stopped while summarising: the next ask says so.
		return true, nil
	}
	// A failed summary has said why in its notice.
	return why == "", nil
}

// compact asks the model for a summary of the older history and records
// it as a compaction. why says, when nothing was compacted, why not; a
// failed summarising request is noted in the log and leaves the history
// as it was. A non-nil error means the log could not be written.
func (r *run) compact(ctx context.Context, trigger string) (trace.Compaction, string, error) {
	cc := r.cfg.Compaction
	r.mu.Lock()
	plan, ok := r.hist.PlanCompaction(cc.keep())
	before := r.rate.Tokens(r.hist.PromptBytes(r.cfg.System, r.toolsJSON))
	r.mu.Unlock()
	if !ok {
		return trace.Compaction{}, fmt.Sprintf("the history holds nothing older than the latest %d rounds, which are always kept", cc.keep()), nil
	}
	noTruncate := false
	mr := trace.ModelRequest{
		Model:    r.cfg.Model,
		Options:  r.cfg.Options,
		Think:    r.cfg.Think,
		Truncate: &noTruncate,
		System:   cc.prompt(),
		Purpose:  trace.PurposeCompaction,
		Compact:  plan.Through,
	}
	r.mu.Lock()
	mr.HistoryBase, mr.HistoryAdded = r.hist.Delta()
	req := trace.BuildRequest(r.hist, mr, nil)
	mr.MessageCount = len(req.Messages)
	mr.PromptEstimate = r.rate.Tokens(trace.PromptBytesOf(req))
	r.mu.Unlock()
	reqEv, err := r.record(ctx, trace.KindModelRequest, mr)
	if err != nil {
		return trace.Compaction{}, "", err
	}
	run, round := r.num, r.round
	resp, chatErr := r.model.Chat(ctx, req, func(c llm.Chunk) {
		r.a.seams.OnDelta(Delta{SessionID: r.cfg.SessionID, Run: run, Round: round, Content: c.Content, Thinking: c.Thinking, Agent: r.agent})
	})
	if se := (errStore{}); errors.As(chatErr, &se) {
		return trace.Compaction{}, "", se
	}
	answer := trace.ModelResponse{
		RequestSeq: reqEv.Seq,
		Content:    resp.Message.Content,
		Thinking:   resp.Message.Thinking,
		// No tools were offered: calls in a summary are not taken up
		// (Raw keeps what the model sent).
		DoneReason: resp.DoneReason,
		Incomplete: chatErr != nil || !resp.Complete(),
		Metrics:    resp.Metrics,
		Chunks:     resp.Chunks,
		Raw:        resp.Raw,
	}
	if _, err := r.record(ctx, trace.KindModelResponse, answer); err != nil {
		return trace.Compaction{}, "", err
	}
	summary := strings.TrimSpace(answer.Content)
	var why string
	switch {
	case chatErr != nil && ctx.Err() != nil:
		return trace.Compaction{}, "the run was stopped while the model summarised", nil
	case chatErr != nil:
		why = "the summarising request failed: " + chatErr.Error()
	case answer.Incomplete:
		why = fmt.Sprintf("the summary was cut off (done_reason %q)", answer.DoneReason)
	case summary == "":
		why = "the model answered the summarising request with no text"
	}
	r.mu.Lock()
	after := r.rate.Tokens(r.hist.CompactedBytes(plan.Through, summary, r.cfg.System, r.toolsJSON))
	r.mu.Unlock()
	if why == "" && after >= before {
		why = fmt.Sprintf("the summary (about %d tokens with the rest) is no shorter than what it would replace (%d)", after, before)
	}
	if why != "" {
		msg := "the history was not compacted: " + why + ". Nothing was replaced; the requests go on with the whole history."
		if trigger == trace.CompactThreshold {
			msg += " Loupe will not try again by itself in this run; Compact now tries again between runs."
		}
		err := r.notice(ctx, CodeCompactFailed, msg)
		return trace.Compaction{}, why, err
	}
	c := trace.Compaction{
		RequestSeq: reqEv.Seq, Trigger: trigger, Summary: summary,
		From: plan.From, Through: plan.Through, Messages: plan.Messages,
		FromRun: plan.FromRun, FromRound: plan.FromRound, ThroughRun: plan.ThroughRun, ThroughRound: plan.ThroughRound,
		TokensBefore: before, TokensAfter: after,
	}
	if _, err := r.record(ctx, trace.KindCompaction, c); err != nil {
		return c, "", err
	}
	return c, "", nil
}
