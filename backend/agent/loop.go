package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/tools"
	"github.com/loupe-dev/loupe/backend/trace"
)

// Agent runs one run of a session: a new one (Run), one that was paused
// when the app last exited (Resume), or closes one the app left open
// (Recover). Where the session's log stands is read once, when it starts.
type Agent struct {
	cfg   Config
	seams Seams
	log   []trace.Event
	// all is the session's whole log, sub-agents' runs too (Recover
	// closes theirs).
	all []trace.Event

	// streams is set when the agent was given OnDelta: only then do its
	// tools get an output sink (tools.WithOutput).
	streams bool
	// running are the calls whose tool is running now, by call id: what
	// StopCall may stop.
	mu      sync.Mutex
	running map[string]context.CancelCauseFunc
}

// New builds an agent over a session's log as it is now: its own loop's
// events (a sub-agent's nested runs are theirs, see trace.Loop).
func New(cfg Config, seams Seams, log []trace.Event) *Agent {
	all := log
	log = trace.Loop(log)
	streams := seams.OnDelta != nil
	if !streams {
		seams.OnDelta = func(Delta) {}
	}
	return &Agent{cfg: cfg, seams: seams, log: log, all: all, streams: streams, running: map[string]context.CancelCauseFunc{}}
}

// run is one run's state. The loop keeps everything it needs here as it
// records it; nothing is read back from the log.
type run struct {
	a     *Agent
	cfg   Config
	model Model
	perm  *permits

	num   int
	round int
	// tools are the tools offered now (the seams' until a pause switches
	// some off, see use), specs and names theirs, and toolsJSON the size
	// of their JSON encoding (for the prompt estimate).
	tools     *tools.Registry
	specs     []llm.ToolSpec
	names     []string
	toolsJSON int
	// lastNumCtx and lastModel are the session's last request's, before
	// this run (0, "": none).
	lastNumCtx int
	lastModel  string
	// rate is the bytes per token this session's counts of this model
	// show (the default until one); prev is the session's last answered
	// request, which the next one extends; allocated the context Ollama
	// last said it allocated, in this run (0: none said yet).
	rate      trace.Rate
	prev      *previous
	allocated int
	// loaded is what Ollama last said it allocated, and for which model
	// and num_ctx (see loadedContext).
	loaded loadedAsked
	// lastCalls are recent rounds' calls, to notice a model that repeats
	// itself; lastText is the newest answer's text.
	lastCalls []string
	lastText  string
	// rescues are the calls recovered from text or repaired, by call id;
	// repeatNote is the note the results of this round's calls end with.
	rescues    map[string]trace.Rescue
	bad        map[string]string
	repeatNote string
	// restored is the pause a resumed run waits at first, without
	// recording it again; checkpoints before it were passed already.
	restored    *trace.Checkpoint
	restoredSeq int64

	// mu guards what the executor's goroutines share: the history and the
	// calls still open.
	mu   sync.Mutex
	hist *trace.History
	// open are the calls of complete answers that have no result yet, in
	// the order they were asked for: what a stop must answer.
	open []llm.ToolCall
	// squeeze is what compaction keeps between rounds (compact.go).
	squeeze squeeze

	// agent is the sub-run this run is ("" for the session's own loop,
	// see trace.Event.Agent); tasks holds a place for each of its task
	// calls that runs now (SubAgents.MaxParallel).
	agent string
	tasks chan struct{}
}

// begin sets up a run over the agent's log: the history it forms, the
// calls it leaves open and the newest answer's text.
func (a *Agent) begin() (*run, error) {
	hist, err := trace.Replay(a.log)
	if err != nil {
		return nil, err
	}
	r := &run{a: a, cfg: a.cfg, hist: hist, open: trace.Unanswered(a.log), rescues: map[string]trace.Rescue{}, bad: map[string]string{}}
	r.model = retrying{model: a.seams.Model, delays: r.cfg.retryDelays(), notice: r.notice}
	r.perm = &permits{policy: r.cfg.Policy, approver: a.seams.Approver, onGrant: r.cfg.OnGrant, sessionID: r.cfg.SessionID, denied: personDenials(a.log)}
	r.tasks = make(chan struct{}, r.cfg.SubAgents.maxParallel())
	r.use(a.seams.Tools)
	r.rate = trace.DefaultRate()
	models := map[int64]string{}
	for _, e := range a.log {
		r.num = max(r.num, e.Run)
		if e.Kind == trace.KindModelResponse {
			if p, err := trace.Decode[trace.ModelResponse](e); err == nil {
				r.meterFrom(e.Seq, p, models[p.RequestSeq])
				r.lastText = p.Content
				for _, rs := range p.Rescued {
					r.rescues[rs.CallID] = rs
					if rs.Unparsed {
						r.bad[rs.CallID] = rs.Original
					}
				}
			}
		}
		if e.Kind == trace.KindModelRequest {
			if p, err := trace.Decode[trace.ModelRequest](e); err == nil {
				r.lastNumCtx, r.lastModel = p.Options.NumCtx, p.Model
				models[e.Seq] = p.Model
			}
		}
	}
	return r, nil
}

// Run appends the user's message (unless the log ends with it, see Begun)
// and loops until the run ends. It returns
// the run_end payload that closed the run. A non-nil error means the log
// itself could not be written.
func (a *Agent) Run(ctx context.Context, text string) (trace.RunEnd, error) {
	r, err := a.begin()
	if err != nil {
		return trace.RunEnd{}, err
	}
	if !Begun(a.log, text) {
		r.num++
		if _, err := r.record(ctx, trace.KindUserMessage, trace.UserMessage{Text: text}); err != nil {
			return trace.RunEnd{}, unwrapStore(err)
		}
	}
	for _, n := range r.cfg.StartNotices {
		if _, err := r.record(ctx, trace.KindNotice, n); err != nil {
			return trace.RunEnd{}, unwrapStore(err)
		}
	}
	if n, ok := r.numCtxChange(); ok {
		if _, err := r.record(ctx, trace.KindNotice, n); err != nil {
			return trace.RunEnd{}, unwrapStore(err)
		}
	}
	return r.finish(ctx, nil)
}

// numCtxChange is the notice that this run's num_ctx differs from the
// session's last request (another model, or the cap changed in Settings):
// said before the first request, since Ollama reloads the model for it.
func (r *run) numCtxChange() (trace.Notice, bool) {
	now := r.cfg.Options.NumCtx
	if r.lastNumCtx == 0 || now == r.lastNumCtx {
		return trace.Notice{}, false
	}
	why := "the num_ctx cap in Settings changed"
	if r.lastModel != r.cfg.Model {
		why = fmt.Sprintf("the model changed from %s to %s", r.lastModel, r.cfg.Model)
	}
	return trace.Notice{Code: CodeNumCtxChanged, Message: fmt.Sprintf(
		"num_ctx changes from %d to %d for this run (%s): Ollama reloads the model with the new context, and the context meter counts against %d from here on.",
		r.lastNumCtx, now, why, now)}, true
}

// CodeNumCtxChanged is the notice that a run's num_ctx differs from the
// session's previous request.
const CodeNumCtxChanged = "num_ctx_changed"

// Begun reports whether the log ends with the user's message text, which
// opened a run that nothing has been written to since: a session created
// with its first message in one transaction (store.CreateSessionWith).
// Run goes on from that message instead of recording it again.
func Begun(log []trace.Event, text string) bool {
	if len(log) == 0 || log[len(log)-1].Kind != trace.KindUserMessage {
		return false
	}
	p, err := trace.Decode[trace.UserMessage](log[len(log)-1])
	return err == nil && p.Text == text
}

// Resume continues a run that was paused when the app last exited, from
// the checkpoint where it waits.
func (a *Agent) Resume(ctx context.Context) (trace.RunEnd, error) {
	r, err := a.begin()
	if err != nil {
		return trace.RunEnd{}, err
	}
	at, err := r.resumePoint(ctx, a.log)
	if err != nil {
		return trace.RunEnd{}, err
	}
	return r.finish(ctx, at)
}

// Recover closes a run the app left open when it exited (one that was not
// paused): every call that was started or asked for gets an "interrupted
// (app exited)" result, and the run gets its run_end.
func (a *Agent) Recover(ctx context.Context) (bool, error) {
	st := trace.StateOf(a.log)
	if !st.Open || st.Paused != nil {
		return false, nil
	}
	r, err := a.begin()
	if err != nil {
		return true, err
	}
	r.num, r.round = st.Run, st.Round
	if err := a.recoverSubAgents(ctx); err != nil {
		return true, unwrapStore(err)
	}
	if err := r.backfill(ctx, trace.ErrInterrupted, "interrupted (app exited) before this call finished"); err != nil {
		return true, unwrapStore(err)
	}
	_, err = r.record(ctx, trace.KindRunEnd, trace.RunEnd{Reason: trace.EndInterrupted, Detail: "Loupe exited while this run was going", Rounds: r.round, FinalText: r.lastText})
	return true, unwrapStore(err)
}

// StopLeftPaused ends a run that waits at a checkpoint with no process to
// take it on (its restore failed): the user stopped it. Its open calls get
// "cancelled" and the run its run_end, as a Stop at that pause would give.
func (a *Agent) StopLeftPaused(ctx context.Context) (bool, error) {
	st := trace.StateOf(a.log)
	if !st.Open || st.Paused == nil {
		return false, nil
	}
	r, err := a.begin()
	if err != nil {
		return true, err
	}
	r.num, r.round = st.Run, st.Round
	end, err := r.cancelled(context.WithoutCancel(ctx))
	if err != nil {
		return true, unwrapStore(err)
	}
	_, err = r.record(ctx, trace.KindRunEnd, end)
	return true, unwrapStore(err)
}

// errStore marks a failure to write the log: the loop cannot go on without
// its record, so it stops and says so.
type errStore struct{ err error }

func (e errStore) Error() string { return "could not save the session: " + e.err.Error() }
func (e errStore) Unwrap() error { return e.err }

// unwrapStore returns the store's own error for an errStore: callers of
// the agent get what the Recorder said.
func unwrapStore(err error) error {
	var se errStore
	if errors.As(err, &se) {
		return se.err
	}
	return err
}

// finish runs the loop and records how the run ended.
func (r *run) finish(ctx context.Context, at *resumeAt) (trace.RunEnd, error) {
	end, err := r.loop(ctx, at)
	if err != nil {
		return trace.RunEnd{}, unwrapStore(err)
	}
	if err := r.endHooks(ctx, end); err != nil {
		return trace.RunEnd{}, unwrapStore(err)
	}
	if _, err := r.record(ctx, trace.KindRunEnd, end); err != nil {
		return end, unwrapStore(err)
	}
	return end, nil
}

// loop is the run: each round sends the history and gets an answer; an
// answer without calls ends the run, otherwise its calls run and their
// results go back in the next round. A resumed run starts where it waits
// (at): in its round, with the answer it already has.
func (r *run) loop(ctx context.Context, at *resumeAt) (trace.RunEnd, error) {
	for {
		var answer trace.ModelResponse
		if at != nil && at.answer != nil {
			answer = *at.answer
		} else {
			if r.round >= r.cfg.maxRounds() {
				return r.stopped(ctx, "round_cap", trace.EndRoundCap,
					fmt.Sprintf("stopped after %d rounds (the round cap); raise it in Settings or send a message to continue", r.round))
			}
			r.round++
			var end *trace.RunEnd
			var err error
			if answer, end, err = r.ask(ctx); err != nil || end != nil {
				return deref(end), err
			}
		}
		if _, err := r.pause(ctx, &stop{cp: Checkpoint{Point: trace.PointAfterResponse}}); err != nil {
			return trace.RunEnd{}, err
		}
		if ctx.Err() != nil {
			return r.cancelled(ctx)
		}
		if len(answer.ToolCalls) == 0 {
			return r.answered(ctx, answer)
		}
		repeats := r.repeats(answer.ToolCalls)
		limit := r.cfg.repeatLimit()
		if repeats == limit {
			r.repeatNote = fmt.Sprintf("[Loupe: you have made this same call %d times in a row with the same arguments. Do not ask for it again: use the result you have, try something different, or answer.]", repeats)
		}
		err := r.runCalls(ctx, answer.ToolCalls, at)
		r.repeatNote = ""
		if err != nil {
			return trace.RunEnd{}, err
		}
		at = nil
		// A restore point that was not met (a log edited by hand) must
		// not hold the loop back.
		r.restored = nil
		if ctx.Err() != nil {
			return r.cancelled(ctx)
		}
		switch {
		case repeats == limit:
			if err := r.notice(ctx, "repeated_calls", fmt.Sprintf("the model asked for the same call%s %d rounds in a row; Loupe told it so with the result. If it asks again, the run stops.", plural(len(answer.ToolCalls)), repeats)); err != nil {
				return trace.RunEnd{}, err
			}
		case repeats > limit:
			return r.stopped(ctx, "loop_detected", trace.EndRepeated,
				fmt.Sprintf("stopped: the model asked for the same call%s %d rounds in a row, after it was told it repeats itself, so it is probably stuck. Send a message to steer it.", plural(len(answer.ToolCalls)), repeats))
		}
	}
}

// notice records a harness decision of the current round; the retrying
// model says through it that it tries again.
func (r *run) notice(ctx context.Context, code, msg string) error {
	_, err := r.record(ctx, trace.KindNotice, trace.Notice{Code: code, Message: msg})
	return err
}

// answered ends the run on an answer without calls.
func (r *run) answered(ctx context.Context, answer trace.ModelResponse) (trace.RunEnd, error) {
	if strings.TrimSpace(answer.Content) == "" {
		// Ollama drops a tool call it cannot parse (malformed JSON, a tool
		// that was not offered), leaving an empty answer.
		if err := r.notice(ctx, "empty_answer", "the model's answer is empty. If it was trying to call a tool, Ollama may have dropped a call it could not parse or one naming a tool that was not offered."); err != nil {
			return trace.RunEnd{}, err
		}
	}
	if u := answer.Unrecovered; u != nil {
		// Not an answer: the model meant to call a tool and nothing ran.
		msg := fmt.Sprintf("the answer looks like a tool call printed as text (%s), but Loupe did not make it a call: %s. Nothing was run; send a message to go on.", u.Form, u.Why)
		if err := r.notice(ctx, trace.CodePrintedCallUnrecovered, msg); err != nil {
			return trace.RunEnd{}, err
		}
		return trace.RunEnd{Reason: trace.EndPrintedCall, Detail: msg, FinalText: answer.Content, Rounds: r.round}, nil
	}
	return trace.RunEnd{Reason: trace.EndAnswered, FinalText: answer.Content, Rounds: r.round}, nil
}

// stopped ends the run on a cap or limit, with a notice that says why.
// mustWait says which events are on the disk before the loop goes on:
// those an action outside the log follows (a request to the model, a tool
// run after its permission, a question or a pause shown to the user, the
// end of the run). Every other event is followed by one of them before
// anything happens that the log must already hold, and that one's wait
// takes it to the disk too.
func mustWait(kind trace.Kind) bool {
	switch kind {
	case trace.KindModelRequest, trace.KindPermission, trace.KindCheckpoint, trace.KindEdit, trace.KindRunEnd:
		return true
	}
	return false
}

// isTimeout reports whether the model's error says it waited too long
// (the client's first-token or stall timeout), as net.Error does.
func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// repeats notes this round's calls and says how many rounds in a row,
// this one included, asked for exactly the same ones.
func (r *run) repeats(calls []llm.ToolCall) int {
	var sig strings.Builder
	for _, c := range calls {
		sig.WriteString(c.Name)
		sig.Write(compactJSON(c.Args))
		sig.WriteByte(0)
	}
	s := sig.String()
	if n := len(r.lastCalls); n > 0 && r.lastCalls[n-1] != s {
		r.lastCalls = r.lastCalls[:0]
	}
	r.lastCalls = append(r.lastCalls, s)
	return len(r.lastCalls)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func compactJSON(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

func deref(e *trace.RunEnd) trace.RunEnd {
	if e == nil {
		return trace.RunEnd{}
	}
	return *e
}
