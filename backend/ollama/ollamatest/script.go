package ollamatest

import (
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// ModelSpec describes a model the fake has "installed". Only Name is
// required; see AddModel for the defaults of the rest.
type ModelSpec struct {
	Name string `json:"name"`
	// Family is the architecture, also used as the prefix of the
	// "<family>.context_length" key in /api/show's model_info.
	Family string `json:"family,omitempty"`
	// ContextLength is the model's trained context; 0 leaves the key out of
	// model_info, like a model that does not report one.
	ContextLength int `json:"context_length,omitempty"`
	// Capabilities as /api/show lists them ("completion", "tools",
	// "thinking", "vision", ...). Nil means completion and tools.
	Capabilities  []string  `json:"capabilities,omitempty"`
	Size          int64     `json:"size,omitempty"`
	ParameterSize string    `json:"parameter_size,omitempty"`
	Quantization  string    `json:"quantization,omitempty"`
	Template      string    `json:"template,omitempty"`
	ModifiedAt    time.Time `json:"modified_at,omitzero"`
	// BytesPerToken is how many bytes of a chat request's body the fake
	// counts as one prompt token (0: 4). A real tokenizer reads code and
	// numbers as more tokens than four bytes each: a smaller value plays
	// such a model, whose prompts Loupe's own estimate undercounts.
	BytesPerToken int `json:"bytes_per_token,omitempty"`
}

func (m ModelSpec) bytesPerToken() int {
	if m.BytesPerToken <= 0 {
		return 4
	}
	return m.BytesPerToken
}

// Chunk is one streamed delta of a scripted answer.
type Chunk struct {
	Content  string `json:"content,omitempty"`
	Thinking string `json:"thinking,omitempty"`
}

// Call is one tool call of a scripted answer. Args is the raw JSON object
// sent as the call's arguments, so its key order is exactly as written. An
// empty ID gets a generated "call_NNNNNNNN" id, as real Ollama always sends
// one.
type Call struct {
	ID   string `json:"id,omitempty"`
	Name string `json:"name"`
	Args string `json:"args,omitempty"`
}

// UnmarshalJSON reads a call from a script file, where args may be written
// as a JSON object (kept byte for byte, so in its order) or as a string
// holding one.
func (c *Call) UnmarshalJSON(b []byte) error {
	var w struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	c.ID, c.Name, c.Args = w.ID, w.Name, string(w.Args)
	if len(w.Args) > 0 && w.Args[0] == '"' {
		return json.Unmarshal(w.Args, &c.Args)
	}
	return nil
}

// Metrics overrides the timings and counts of a reply's final line.
// Durations are sent as nanoseconds, as Ollama does.
type Metrics struct {
	TotalDuration      time.Duration `json:"total_duration,omitempty"`
	LoadDuration       time.Duration `json:"load_duration,omitempty"`
	PromptEvalCount    int           `json:"prompt_eval_count,omitempty"`
	PromptEvalDuration time.Duration `json:"prompt_eval_duration,omitempty"`
	EvalCount          int           `json:"eval_count,omitempty"`
	EvalDuration       time.Duration `json:"eval_duration,omitempty"`
}

// Reply is the scripted answer to one /api/chat request. A streamed reply is
// written as NDJSON lines in this order: one line per Chunk, then the tool
// calls (all in one line of their own, as Ollama's parsers emit them, or one
// line per call with SplitToolCalls), then the final done:true line with
// DoneReason and metrics. A Fault interrupts that sequence.
type Reply struct {
	// promptTokens, set by the server, replaces the reported prompt count
	// when Ollama would have cut the prompt (truncate on, over num_ctx).
	promptTokens   int
	Chunks         []Chunk `json:"chunks,omitempty"`
	ToolCalls      []Call  `json:"tool_calls,omitempty"`
	SplitToolCalls bool    `json:"split_tool_calls,omitempty"`
	// DoneReason defaults to "stop"; "length" marks a cut-off answer.
	DoneReason string `json:"done_reason,omitempty"`
	// Metrics nil means deterministic defaults derived from the request
	// size and the number of lines.
	Metrics *Metrics `json:"metrics,omitempty"`
	// Delay is slept between streamed lines; a stream:false reply waits it
	// once before answering.
	Delay time.Duration `json:"-"`
	// Load is slept before anything of the answer is sent, headers
	// included, as while Ollama loads the model and reads the prompt.
	Load  time.Duration `json:"-"`
	Fault *Fault        `json:"fault,omitempty"`
	// RawLines, when set, replaces the generated lines: each string is sent
	// verbatim as one NDJSON line. For servers that misbehave in ways the
	// other fields cannot say (missing ids, non-JSON lines, ...).
	RawLines []string `json:"raw_lines,omitempty"`
}

// FaultKind names what goes wrong in a Fault.
type FaultKind string

const (
	// FaultHTTP answers with an HTTP error status and a body, no stream.
	FaultHTTP FaultKind = "http"
	// FaultErrorLine sends {"error":Message} after After lines and ends the
	// stream, as Ollama does when generation fails mid-answer. With After 0
	// nothing was written yet, so Ollama (and the fake) answers HTTP 500 with
	// that JSON body instead.
	FaultErrorLine FaultKind = "error_line"
	// FaultCut closes the connection after After lines, without a done line
	// and without ending the HTTP response properly.
	FaultCut FaultKind = "cut"
	// FaultStall sends After lines and then nothing until the client goes
	// away or the server closes. With After 0 not even headers are sent, as
	// when Ollama is still loading a model.
	FaultStall FaultKind = "stall"
)

// Fault makes a Reply fail. Build one with HTTPStatus, ErrorLineAfter,
// CutAfter or StallAfter.
type Fault struct {
	Kind    FaultKind `json:"kind"`
	After   int       `json:"after,omitempty"`
	Status  int       `json:"status,omitempty"`
	Body    string    `json:"body,omitempty"`
	Message string    `json:"message,omitempty"`
}

// HTTPStatus answers with status and body verbatim (Content-Type
// application/json; charset=utf-8), e.g. 503 and `{"error":"server busy"}`.
func HTTPStatus(status int, body string) *Fault {
	return &Fault{Kind: FaultHTTP, Status: status, Body: body}
}

// ErrorLineAfter sends an {"error":msg} line after n lines and ends the
// stream.
func ErrorLineAfter(n int, msg string) *Fault {
	return &Fault{Kind: FaultErrorLine, After: n, Message: msg}
}

// CutAfter closes the connection after n lines.
func CutAfter(n int) *Fault { return &Fault{Kind: FaultCut, After: n} }

// StallAfter stops sending after n lines until the request is cancelled.
func StallAfter(n int) *Fault { return &Fault{Kind: FaultStall, After: n} }

// Text is a reply that streams the given pieces of content and stops.
func Text(pieces ...string) Reply {
	r := Reply{}
	for _, p := range pieces {
		r.Chunks = append(r.Chunks, Chunk{Content: p})
	}
	return r
}

// ScriptFile is the JSON form of a whole fake session, as loaded by
// cmd/fakeollama: the installed models and the queue of replies.
type ScriptFile struct {
	// Version is what /api/version reports; empty keeps the default.
	Version string        `json:"version,omitempty"`
	Models  []ModelSpec   `json:"models"`
	Replies []ScriptReply `json:"replies"`
	// Repeat starts the replies over when they run out instead of
	// answering that the script ran out.
	Repeat bool `json:"repeat,omitempty"`
	// Pullable are the models /api/pull can install (see AddPullable),
	// PullDelayMS the wait between its lines, and Offline makes every pull
	// fail as without a network.
	Pullable    []Pullable `json:"pullable,omitempty"`
	PullDelayMS int        `json:"pull_delay_ms,omitempty"`
	Offline     bool       `json:"offline,omitempty"`
}

// ScriptReply is a Reply as written in a script file, where the delay
// between lines is given in milliseconds.
type ScriptReply struct {
	Reply
	DelayMS int `json:"delay_ms,omitempty"`
	// LoadMS is Reply.Load in milliseconds.
	LoadMS int `json:"load_ms,omitempty"`
}

// LoadScript reads and checks a script file.
func LoadScript(path string) (ScriptFile, error) {
	var f ScriptFile
	b, err := os.ReadFile(path)
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return f, fmt.Errorf("ollamatest: script %s is not valid JSON: %w", path, err)
	}
	for i, r := range f.Replies {
		if err := r.Reply.check(); err != nil {
			return f, fmt.Errorf("ollamatest: script %s, reply %d: %w", path, i, err)
		}
	}
	if len(f.Models) == 0 {
		return f, fmt.Errorf("ollamatest: script %s installs no models: add at least one under \"models\"", path)
	}
	return f, nil
}

// Load installs the file's models and queues its replies on s.
func (s *Server) Load(f ScriptFile) {
	if f.Version != "" {
		s.SetVersion(f.Version)
	}
	for _, m := range f.Models {
		s.AddModel(m)
	}
	for _, p := range f.Pullable {
		s.AddPullable(p)
	}
	s.SetPullDelay(time.Duration(f.PullDelayMS) * time.Millisecond)
	s.SetOffline(f.Offline)
	replies := make([]Reply, len(f.Replies))
	for i, r := range f.Replies {
		replies[i] = r.Reply
		replies[i].Delay = time.Duration(r.DelayMS) * time.Millisecond
		replies[i].Load = time.Duration(r.LoadMS) * time.Millisecond
	}
	if f.Repeat && len(replies) > 0 {
		var n int
		s.Respond(func(ChatRequest) Reply {
			r := replies[n%len(replies)]
			n++ // Respond calls are serialised by the server.
			return r
		})
		return
	}
	s.Script(replies...)
}

// check reports mistakes in a reply that the test author must fix.
func (r Reply) check() error {
	for i, c := range r.ToolCalls {
		if c.Name == "" {
			return fmt.Errorf("tool call %d has no name", i)
		}
		if c.Args != "" && !json.Valid([]byte(c.Args)) {
			return fmt.Errorf("tool call %d (%s) has Args that are not valid JSON: %s", i, c.Name, c.Args)
		}
	}
	if f := r.Fault; f != nil {
		switch f.Kind {
		case FaultHTTP:
			if f.Status < 400 {
				return fmt.Errorf("an http fault needs a status of 400 or more, not %d", f.Status)
			}
		case FaultErrorLine, FaultCut, FaultStall:
		default:
			return fmt.Errorf("unknown fault kind %q (want http, error_line, cut or stall)", f.Kind)
		}
	}
	return nil
}
