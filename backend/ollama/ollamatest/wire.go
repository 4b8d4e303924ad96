package ollamatest

import "encoding/json"

// The structs below are the fake's own copy of Ollama's wire format
// (api/types.go in github.com/ollama/ollama v0.17.4). They are written out
// here on purpose instead of importing ollama/api: a bug in how the client
// uses those types must not be silently shared by the server it is tested
// against. Field order follows Ollama's, so the fake's bytes look like the
// real server's.

// ChatRequest is the body of POST /api/chat as the fake decodes it.
type ChatRequest struct {
	Model     string          `json:"model"`
	Messages  []Message       `json:"messages"`
	Stream    *bool           `json:"stream,omitempty"`
	Format    json.RawMessage `json:"format,omitempty"`
	KeepAlive json.RawMessage `json:"keep_alive,omitempty"`
	Tools     []Tool          `json:"tools,omitempty"`
	Options   map[string]any  `json:"options"`
	// Think is true, false, or "high"/"medium"/"low"; absent means unset.
	Think json.RawMessage `json:"think,omitempty"`
	// Truncate false asks Ollama to refuse a prompt longer than num_ctx
	// instead of dropping the oldest messages; absent means true.
	Truncate *bool `json:"truncate,omitempty"`
	// DebugRenderOnly asks for the prompt the model's template makes of
	// the request instead of an answer.
	DebugRenderOnly bool `json:"_debug_render_only,omitempty"`
}

// Truncating reports whether Ollama may cut the prompt to fit (its
// default when "truncate" is absent).
func (r ChatRequest) Truncating() bool { return r.Truncate == nil || *r.Truncate }

// NumCtx is the context the request gets: its num_ctx (Ollama's default
// 4096 when absent), capped by the model's own context length as Ollama's
// llm/server.go caps it when it loads the model.
func (r ChatRequest) NumCtx(modelCtx int) int {
	n := 4096
	if v, ok := r.Options["num_ctx"].(float64); ok && v > 0 {
		n = int(v)
	}
	if modelCtx > 0 && n > modelCtx {
		n = modelCtx
	}
	return n
}

// Streaming reports whether the request asked for NDJSON streaming, which is
// Ollama's default when "stream" is absent.
func (r ChatRequest) Streaming() bool { return r.Stream == nil || *r.Stream }

// ThinkOn reports whether the request set think to true or to a level.
func (r ChatRequest) ThinkOn() bool {
	var b bool
	if json.Unmarshal(r.Think, &b) == nil {
		return b
	}
	var s string
	return json.Unmarshal(r.Think, &s) == nil && s != ""
}

// Message is one chat message, in a request or a response.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	Thinking   string     `json:"thinking,omitempty"`
	Images     []string   `json:"images,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolName   string     `json:"tool_name,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// ToolCall is one call in a message's tool_calls.
type ToolCall struct {
	ID       string           `json:"id,omitempty"`
	Function ToolCallFunction `json:"function"`
}

// ToolCallFunction carries the call's name and its arguments object. The
// arguments stay raw so their key order is exactly what was written.
type ToolCallFunction struct {
	Index     int             `json:"index"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Tool is one entry of a request's tools.
type Tool struct {
	Type     string       `json:"type"`
	Function ToolFunction `json:"function"`
}

// ToolFunction describes a tool; Parameters is its JSON schema, kept raw.
type ToolFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// ChatResponse is one NDJSON line of a streamed answer (or the whole answer
// when stream is false). Durations are nanoseconds, as Ollama sends them.
type ChatResponse struct {
	Model      string  `json:"model"`
	CreatedAt  string  `json:"created_at"`
	Message    Message `json:"message"`
	Done       bool    `json:"done"`
	DoneReason string  `json:"done_reason,omitempty"`
	// DebugInfo answers a request with _debug_render_only.
	DebugInfo          *DebugInfo `json:"_debug_info,omitempty"`
	TotalDuration      int64      `json:"total_duration,omitempty"`
	LoadDuration       int64      `json:"load_duration,omitempty"`
	PromptEvalCount    int        `json:"prompt_eval_count,omitempty"`
	PromptEvalDuration int64      `json:"prompt_eval_duration,omitempty"`
	EvalCount          int        `json:"eval_count,omitempty"`
	EvalDuration       int64      `json:"eval_duration,omitempty"`
}

// DebugInfo is what a render-only request gets back.
type DebugInfo struct {
	RenderedTemplate string `json:"rendered_template"`
	ImageCount       int    `json:"image_count,omitempty"`
}

type errorBody struct {
	Error string `json:"error"`
}

type versionBody struct {
	Version string `json:"version"`
}

type showRequest struct {
	Model string `json:"model"`
	Name  string `json:"name"`
}

type modelDetails struct {
	ParentModel       string   `json:"parent_model"`
	Format            string   `json:"format"`
	Family            string   `json:"family"`
	Families          []string `json:"families"`
	ParameterSize     string   `json:"parameter_size"`
	QuantizationLevel string   `json:"quantization_level"`
}

type listModel struct {
	Name       string       `json:"name"`
	Model      string       `json:"model"`
	ModifiedAt string       `json:"modified_at"`
	Size       int64        `json:"size"`
	Digest     string       `json:"digest"`
	Details    modelDetails `json:"details"`
}

type listBody struct {
	Models []listModel `json:"models"`
}

type showBody struct {
	Modelfile    string         `json:"modelfile,omitempty"`
	Parameters   string         `json:"parameters,omitempty"`
	Template     string         `json:"template,omitempty"`
	Details      modelDetails   `json:"details"`
	ModelInfo    map[string]any `json:"model_info"`
	Capabilities []string       `json:"capabilities,omitempty"`
	ModifiedAt   string         `json:"modified_at,omitempty"`
}
