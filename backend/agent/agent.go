// Package agent is the loop: send the history to the model, check the tool
// calls it asks for, decide and run each, append the results, repeat until
// the model answers without calls or a cap, an error or a cancel stops it.
// Every step is an event committed through the Recorder before the next
// step starts, and the loop keeps what it needs (the history, the round's
// calls) as it goes: it never reads the log back. The history sent to the
// model is a trace.History fed with the same events, so what is shown is
// what was sent.
//
// The package knows interfaces only: no Ollama, no store, no Wails.
package agent

import (
	"context"
	"encoding/json"
	"time"

	"github.com/loupe-dev/loupe/backend/hooks"
	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/tools"
	"github.com/loupe-dev/loupe/backend/trace"
)

// Model streams one answer. On a cut stream, error or cancel it returns the
// partial response together with the error.
type Model interface {
	Chat(ctx context.Context, req llm.Request, onChunk func(llm.Chunk)) (llm.Response, error)
}

// Recorder commits an event durably and returns it with its seq and time.
type Recorder interface {
	Append(ctx context.Context, e trace.Event) (trace.Event, error)
}

// A Recorder may also commit soon: AppendSoon puts the event in the log at
// once and on the disk by the time the next Append returns. The loop uses
// it for the events no action outside the log follows before its next
// durable event, so that what is on the disk never falls behind what
// happened, with fewer waits on the disk.
type soonRecorder interface {
	AppendSoon(ctx context.Context, e trace.Event) (trace.Event, error)
}

// Approver answers a permission question; it may block until a person
// answers or ctx is done. It calls asked, which records the question in
// the log, once it is ready to take the answer: whoever sees the question
// may answer it at once. If it never calls asked, the loop records the
// question before the decision.
type Approver interface {
	Approve(ctx context.Context, r permission.Request, asked func() error) (permission.Answer, error)
}

// Pauser is the stepping hook. The loop asks it at each of its four
// checkpoints (before a request, after the answer, before each call, after
// each result) whether to stop there. When it stops, the loop records a
// paused checkpoint with what may be edited there, and takes Commands
// (edits, then step, continue or skip) until one resumes it or the run is
// cancelled. Edits are applied and recorded by the loop itself, so the
// log keeps one writer and is all the window needs to draw the pause.
type Pauser interface {
	// Stops reports whether to pause at c, and whether a breakpoint (not
	// stepping) is the reason. It must not block: the loop also asks it
	// ahead, to know which calls may pause.
	Stops(c Checkpoint) (stop, breakpoint bool)
	// Waiting says that run (its number) takes Commands at the paused
	// checkpoint of event seq, and seq 0 when it no longer does, so that
	// a command sent to a pause that is over is refused at once instead
	// of waiting.
	Waiting(run int, seq int64)
	// Commands delivers the user's commands while paused.
	Commands() <-chan Command
}

// Delta is one streamed piece of the model's answer, or of a running
// call's output, for live display: the window gets it as it is. Nothing of
// it is stored: the model_response and the tool_result are the record.
type Delta struct {
	SessionID string `json:"session_id"`
	Run       int    `json:"run"`
	Round     int    `json:"round"`
	Content   string `json:"content,omitempty"`
	Thinking  string `json:"thinking,omitempty"`
	// CallID is set for a call's output (and Content and Thinking are
	// not): Output holds what the call wrote since its last delta, in
	// order, each piece from stdout or stderr; Omitted counts the bytes
	// it wrote past what is streamed (see tools.Output).
	CallID  string              `json:"call_id,omitempty"`
	Output  []tools.OutputPiece `json:"output,omitempty"`
	Omitted int                 `json:"omitted,omitempty"`
	// Agent is the sub-run the delta is of ("" for the session's own
	// loop), as on its events (trace.Event.Agent).
	Agent string `json:"agent,omitempty"`
}

// Seams are what the loop talks to.
type Seams struct {
	Model    Model
	Recorder Recorder
	// Tools are the tools offered to the model.
	Tools    *tools.Registry
	Approver Approver
	// Pauser may be nil: the run never pauses.
	Pauser Pauser
	// Hooks may be nil: no hooks run.
	Hooks *hooks.Set
	// OnDelta may be nil: then nothing is streamed, and a command's
	// output is read as one stream, in exactly the order it was written
	// (see sandbox.Command.OnOutput).
	OnDelta func(Delta)
}

// Config is what one run needs besides its seams.
type Config struct {
	SessionID string
	Model     string
	System    string
	// Instructions is where the workspace's AGENTS.md sits in System, nil
	// when it is not there.
	Instructions *trace.Instructions
	// Host, when set, says where the next request goes (its Settings name,
	// "" for the local host, and its base URL), for its model_request.
	Host    func() (name, url string)
	Options llm.Options
	Think   *bool
	// ToolSet is the id under which the session stores the tools' specs
	// (0 when no tools are offered); requests refer to it.
	ToolSet int
	// ToolSets stores the specs of other tools a run offers (a sub-agent's,
	// the run's own once a pause switched some off) for its requests to
	// name, as ToolSet names the first; nil names none (ToolSet 0).
	ToolSets func(ctx context.Context, specs []llm.ToolSpec) (int, error)
	// MaxRounds caps model requests per run (default 50).
	MaxRounds int
	// MaxParallel bounds the calls of one answer that run at once
	// (default 4).
	MaxParallel int
	// RetryDelays are the waits before each new try of a request that
	// failed before any of its answer arrived with an error that may pass
	// (nil: RetryDelays).
	RetryDelays []time.Duration
	// Policy decides which calls run, ask or are refused.
	Policy permission.Policy
	// OnGrant keeps a "for this session" or "for this workspace" answer
	// beyond this run. An error (the answer could not be saved) is said on
	// the run as a notice; the answer still holds for the rest of the run.
	OnGrant func(permission.Grant) error
	// StartNotices are recorded right after the user's message, for what
	// the session decided before the run (e.g. no tools for this model).
	StartNotices []trace.Notice
	// RecoverTextCalls turns tool calls a model printed as text into calls.
	RecoverTextCalls bool
	// RepeatLimit is how many rounds in a row may ask for the same calls
	// before the model is told so; one more and the run stops (default 3).
	RepeatLimit int
	// Compaction says when the run summarises its older history.
	Compaction Compaction
	// SubAgents says how the run's task calls run (subagent.go).
	SubAgents SubAgents
}

// DefaultRepeatLimit is the repeat limit when none is set.
const DefaultRepeatLimit = 3

func (c Config) repeatLimit() int {
	if c.RepeatLimit <= 0 {
		return DefaultRepeatLimit
	}
	return c.RepeatLimit
}

// DefaultMaxRounds is the round cap when none is set.
const DefaultMaxRounds = 50

// RetryDelays are the default waits between tries of a request (Ollama
// restarting, busy, failing on its side). A var so tests can shorten it.
var RetryDelays = []time.Duration{time.Second, 3 * time.Second}

func (c Config) maxRounds() int {
	if c.MaxRounds <= 0 {
		return DefaultMaxRounds
	}
	return c.MaxRounds
}

func (c Config) maxParallel() int {
	if c.MaxParallel <= 0 {
		return 4
	}
	return c.MaxParallel
}

func (c Config) retryDelays() []time.Duration {
	if c.RetryDelays == nil {
		return RetryDelays
	}
	return c.RetryDelays
}

// argsObject treats missing arguments as an empty object.
func argsObject(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("{}")
	}
	return raw
}
