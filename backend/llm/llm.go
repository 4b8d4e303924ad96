// Package llm holds the provider-neutral types that the agent loop speaks:
// messages, tool calls, tool specs, a request, streamed deltas and the final
// response. It imports nothing of ours so that every other package can use it.
package llm

import (
	"encoding/json"
	"errors"
	"time"
)

// Roles of a chat message, as Ollama names them.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one entry of the history sent to the model.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	Thinking   string     `json:"thinking,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	ToolName   string     `json:"tool_name,omitempty"`
}

// ToolCall is one call the model asked for. Args are kept as the raw JSON
// object the model produced, in its key order, so that what is shown and
// re-sent is exactly what the model wrote.
type ToolCall struct {
	ID    string          `json:"id"`
	Index int             `json:"index"`
	Name  string          `json:"name"`
	Args  json.RawMessage `json:"args"`
}

// ToolSpec describes a tool to the model. Parameters is a JSON schema object.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Options are the generation options Loupe sets on every request. NumCtx is
// always set explicitly so Ollama never falls back to its silent default.
type Options struct {
	NumCtx      int     `json:"num_ctx"`
	Temperature float64 `json:"temperature"`
}

// Request is everything one model call needs.
type Request struct {
	Model    string     `json:"model"`
	Messages []Message  `json:"messages"`
	Tools    []ToolSpec `json:"tools,omitempty"`
	Options  Options    `json:"options"`
	// Think asks a thinking-capable model to separate its reasoning; nil
	// leaves the model's default.
	Think *bool `json:"think,omitempty"`
	// Truncate false asks the server to refuse a prompt longer than
	// num_ctx (ErrPromptTooLong) instead of dropping its oldest messages;
	// nil leaves the server's default, which cuts without a word. Loupe
	// sets false on every request; nil is for logs written before that.
	Truncate *bool `json:"truncate,omitempty"`
}

// Chunk is one streamed delta of the answer.
type Chunk struct {
	Content  string `json:"content,omitempty"`
	Thinking string `json:"thinking,omitempty"`
}

// Metrics are the timings and counts Ollama reports with the last chunk.
type Metrics struct {
	PromptEvalCount    int           `json:"prompt_eval_count"`
	EvalCount          int           `json:"eval_count"`
	TotalDuration      time.Duration `json:"total_duration"`
	LoadDuration       time.Duration `json:"load_duration"`
	PromptEvalDuration time.Duration `json:"prompt_eval_duration"`
	EvalDuration       time.Duration `json:"eval_duration"`
	// TimeToFirstToken is measured by Loupe: request sent → first delta.
	TimeToFirstToken time.Duration `json:"time_to_first_token"`
}

// Response is the whole message the model produced for one request.
type Response struct {
	Message    Message `json:"message"`
	DoneReason string  `json:"done_reason"`
	// Done is false when the stream ended before Ollama said it was done
	// (connection cut, error mid-stream, cancel): such a message is
	// incomplete and its tool calls must never run.
	Done    bool    `json:"done"`
	Metrics Metrics `json:"metrics"`
	// Raw is the response as Ollama's wire JSON, assembled from the stream
	// (the final message with all deltas joined, plus the last chunk's
	// fields), for the Raw view.
	Raw json.RawMessage `json:"raw,omitempty"`
	// Chunks counts the streamed NDJSON lines received.
	Chunks int `json:"chunks"`
}

// Complete reports whether the model finished its message normally, so its
// tool calls may run. A message cut off by the token limit is not complete.
func (r Response) Complete() bool {
	return r.Done && r.DoneReason != "length"
}

// Temporary reports whether err says that trying again may work (the
// provider's errors implement Temporary() bool).
func Temporary(err error) bool {
	var t interface{ Temporary() bool }
	return errors.As(err, &t) && t.Temporary()
}

// ErrPromptTooLong is matched (errors.Is) by a model's error when the
// prompt is longer than the context it was given (num_ctx) and the model
// refused it rather than cut it.
var ErrPromptTooLong = errors.New("the prompt is longer than num_ctx")
