package session

import (
	"encoding/json"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/trace"
)

// Breakpoints make a run pause at checkpoints even when not stepping: at
// every checkpoint of the named kinds, and before any call of the named
// tools.
type Breakpoints struct {
	Points []string `json:"points"`
	Tools  []string `json:"tools"`
}

// Pause describes where a paused run waits and what can be edited there.
type Pause struct {
	Point  string `json:"point"`
	Run    int    `json:"run"`
	Round  int    `json:"round"`
	CallID string `json:"call_id,omitempty"`
	Tool   string `json:"tool,omitempty"`
	// Request is the pending request (before_request).
	Request *PendingRequest `json:"request,omitempty"`
	// Args are the pending call's arguments (before_tool).
	Args json.RawMessage `json:"args,omitempty"`
	// Result is the result about to go back (after_result).
	Result *trace.ToolResult `json:"result,omitempty"`
}

// PendingRequest is a request that is built but not sent yet.
type PendingRequest struct {
	Model    string           `json:"model"`
	System   string           `json:"system"`
	Options  llm.Options      `json:"options"`
	Tools    []string         `json:"tools"`
	Messages []PendingMessage `json:"messages"`
}

// PendingMessage is one history message of a pending request, with the
// event it comes from so that an edit can name it.
type PendingMessage struct {
	Seq        int64          `json:"seq"`
	Role       string         `json:"role"`
	Content    string         `json:"content"`
	ToolCalls  []llm.ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	ToolName   string         `json:"tool_name,omitempty"`
}

// RequestEdit changes a pending request: nil fields stay as they are.
type RequestEdit struct {
	System   *string       `json:"system,omitempty"`
	Options  *llm.Options  `json:"options,omitempty"`
	Messages []MessageEdit `json:"messages,omitempty"`
}

// MessageEdit replaces the content of the history message from event Seq.
type MessageEdit struct {
	Seq     int64  `json:"seq"`
	Content string `json:"content"`
}
