// Package agent is the loop: send the history to the model, check the tool
// calls it asks for, ask permission, run them, append the results, repeat
// until the model answers without calls or a cap, an error or a cancel stops
// it. Every step is an event committed through the Recorder before the next
// step starts; the history sent to the model is projected from those events
// by trace.BuildRequest, so what is shown is what was sent.
//
// The package knows interfaces only: no Ollama, no store, no Wails.
package agent

import (
	"context"
	"encoding/json"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/permission"
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

// Approver answers a permission question; it may block until a person
// answers or ctx is done.
type Approver interface {
	Approve(ctx context.Context, r permission.Request) (permission.Answer, error)
}

// Delta is one streamed piece of the model's answer, for live display.
type Delta struct {
	Run      int    `json:"run"`
	Round    int    `json:"round"`
	Content  string `json:"content,omitempty"`
	Thinking string `json:"thinking,omitempty"`
}

// Config is what one run needs besides its collaborators.
type Config struct {
	SessionID string
	Model     string
	System    string
	Options   llm.Options
	Think     *bool
	// MaxRounds caps model requests per run (default 50).
	MaxRounds int
	// MaxParallel bounds concurrent tool calls of one message (default 4).
	MaxParallel int
	// Policy decides which calls run, ask or are refused.
	Policy permission.Policy
	// OnGrant keeps a "for this session" or "for this workspace" answer
	// beyond this run.
	OnGrant func(permission.Grant)
	// StartNotices are recorded right after the user's message, for what
	// the session decided before the run (e.g. no tools for this model).
	StartNotices []trace.Notice
}

// DefaultMaxRounds is the round cap when none is set.
const DefaultMaxRounds = 50

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

// argsObject treats missing arguments as an empty object.
func argsObject(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("{}")
	}
	return raw
}
