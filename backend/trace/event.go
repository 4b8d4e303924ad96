// Package trace is the timeline's event model: the kinds of events a session
// is made of, their typed payloads, and the pure projection from events to
// the history that is sent to the model. The same events stream live to the
// UI, are stored in SQLite, and are what replay and export read.
package trace

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/loupe-dev/loupe/backend/llm"
)

// Kind names an event kind. Every kind has one payload type below
// (Payloads), which the window's types are generated from.
type Kind string

const (
	KindUserMessage   Kind = "user_message"
	KindModelRequest  Kind = "model_request"
	KindModelResponse Kind = "model_response"
	KindToolCall      Kind = "tool_call"
	KindPermission    Kind = "permission"
	KindToolResult    Kind = "tool_result"
	KindNotice        Kind = "notice"
	KindError         Kind = "error"
	KindRunEnd        Kind = "run_end"
	KindCheckpoint    Kind = "checkpoint"
	KindEdit          Kind = "edit"
	KindRestore       Kind = "restore"
	KindCompaction    Kind = "compaction"
)

// Event is one entry of a session's append-only log. Seq is assigned by the
// store when the event is committed and is unique and increasing within a
// session. Run counts user messages; Round counts model requests within a run.
type Event struct {
	SessionID string          `json:"session_id"`
	Seq       int64           `json:"seq"`
	Kind      Kind            `json:"kind"`
	Time      time.Time       `json:"time"`
	Run       int             `json:"run"`
	Round     int             `json:"round"`
	Payload   json.RawMessage `json:"payload"`
	// Agent is "" for the session's own loop, and for an event of a
	// sub-agent's nested run the id of the task call that started it
	// (a deeper one's is the path of task call ids, "c1/c2": see SubAgent).
	// A run's history, its state and its open calls are read from its own
	// events only (Own).
	Agent string `json:"agent,omitempty"`
	// Preview is set only on an event cut for the window (see Preview):
	// the payload's fields that were cut, by JSON Pointer, with the
	// length of the whole. The log never holds it.
	Preview map[string]Cut `json:"preview,omitempty"`
}

// New builds an uncommitted event (no session, seq or time yet) with its
// payload encoded.
func New(kind Kind, run, round int, payload any) Event {
	b, err := json.Marshal(payload)
	if err != nil {
		// Payloads are our own plain structs: failing to encode one is a
		// programming error, not something a user can cause.
		panic(fmt.Sprintf("trace: encode %s payload: %v", kind, err))
	}
	return Event{Kind: kind, Run: run, Round: round, Payload: b}
}

// Decode unmarshals an event's payload into T, checking that the kind
// matches the payload type's kind.
func Decode[T Payload](e Event) (T, error) {
	var p T
	if want := p.kind(); e.Kind != want {
		return p, fmt.Errorf("trace: event %d is %s, not %s", e.Seq, e.Kind, want)
	}
	if err := json.Unmarshal(e.Payload, &p); err != nil {
		return p, fmt.Errorf("trace: decode %s event %d: %w", e.Kind, e.Seq, err)
	}
	return p, nil
}

// Payload is implemented by every payload type.
type Payload interface {
	UserMessage | ModelRequest | ModelResponse | ToolCall | Permission | ToolResult | Notice | Error | RunEnd | Checkpoint | Edit | Restore | Compaction | HookRun
	kind() Kind
}

// UserMessage is what the user typed.
type UserMessage struct {
	Text string `json:"text"`
}

// ModelRequest records one request exactly enough to rebuild its body.
// Nothing in it grows with the session: the tools offered are a tool set
// stored once per session and named by ToolSet, and the history is the
// previous request's (HistoryBase) plus the events appended since
// (HistoryAdded), projected by History.
type ModelRequest struct {
	Model   string      `json:"model"`
	Options llm.Options `json:"options"`
	Think   *bool       `json:"think,omitempty"`
	// Truncate is what the request asked of Ollama about a prompt over
	// num_ctx: false (refuse it) since Loupe stopped silent cuts; absent
	// in logs written before, whose requests left Ollama's default.
	Truncate *bool  `json:"truncate,omitempty"`
	System   string `json:"system"`
	// Purpose is PurposeCompaction for the request that asks the model to
	// summarise the older history (its answer becomes a compaction, not
	// a message); empty for a round's request.
	Purpose string `json:"purpose,omitempty"`
	// Compact names, for a compaction request, the last history event it
	// asks to summarise: the conversation from its start through it.
	Compact int64 `json:"compact,omitempty"`
	// Instructions is where the workspace's AGENTS.md sits in System, when
	// it was added to it.
	Instructions *Instructions `json:"instructions,omitempty"`
	// Host is the Ollama server the request was sent to (its base URL);
	// HostName the name Settings gives it, "" for the local host or an
	// address given as such. Absent in logs written before.
	Host     string `json:"host,omitempty"`
	HostName string `json:"host_name,omitempty"`
	// ToolSet names the session's stored tool set sent with the request
	// (0: no tools); ToolNames are its tools' names, for reading the log.
	ToolSet   int      `json:"tool_set,omitempty"`
	ToolNames []string `json:"tool_names,omitempty"`
	// HistoryBase is the seq of the session's previous model_request, whose
	// history this one extends with the events HistoryAdded names (0: the
	// history starts here).
	HistoryBase  int64   `json:"history_base,omitempty"`
	HistoryAdded []int64 `json:"history_added"`
	// MessageCount includes the system message.
	MessageCount int `json:"message_count"`
	// PromptEstimate is Loupe's own token estimate, shown beside the
	// count Ollama reports: Split's sum when the request has one (about 4
	// bytes a token until the session has a count, then at the rate its
	// counts show), else about 4 bytes a token.
	PromptEstimate int `json:"prompt_estimate"`
	// Split is that estimate by part (system prompt, tool schemas,
	// history, new observations); absent in logs written before the
	// context meter.
	Split *Split `json:"split,omitempty"`

	// Tools and HistorySeqs are how logs written before tool sets and
	// history deltas recorded a request: every tool's schema, and every
	// history event's seq, in each request. They are read, never written.
	Tools       []llm.ToolSpec `json:"tools,omitempty"`
	HistorySeqs []int64        `json:"history_seqs,omitempty"`
}

// Instructions is the part of a system prompt that holds a workspace's
// instructions file: System[Start:Start+Len], in bytes, delimiters and
// any note of a cut included.
type Instructions struct {
	// Source is the file, relative to the workspace ("AGENTS.md").
	Source string `json:"source"`
	Start  int    `json:"start"`
	Len    int    `json:"len"`
	// Bytes is the file's size; Cut says only its start was added.
	Bytes int  `json:"bytes"`
	Cut   bool `json:"cut,omitempty"`
}

// Kept is where the part is in a system prompt edited from before to
// after: in place, moved when it is found once elsewhere, or nil when the
// edit changed it.
func (in *Instructions) Kept(before, after string) *Instructions {
	if in == nil || in.Start < 0 || in.Start+in.Len > len(before) {
		return nil
	}
	part := before[in.Start : in.Start+in.Len]
	if in.Start+in.Len <= len(after) && after[in.Start:in.Start+in.Len] == part {
		return in
	}
	if i := strings.Index(after, part); i >= 0 && strings.Count(after, part) == 1 {
		moved := *in
		moved.Start = i
		return &moved
	}
	return nil
}

// ModelResponse is the model's whole message for one request.
type ModelResponse struct {
	RequestSeq int64          `json:"request_seq"`
	Content    string         `json:"content"`
	Thinking   string         `json:"thinking,omitempty"`
	ToolCalls  []llm.ToolCall `json:"tool_calls,omitempty"`
	DoneReason string         `json:"done_reason"`
	// Incomplete marks a message that did not end normally (cut stream,
	// error, cancel, or done_reason "length"). Its text is kept and shown as
	// partial; its tool calls are never run and never enter the history.
	Incomplete bool        `json:"incomplete"`
	Metrics    llm.Metrics `json:"metrics"`
	// Context is the context meter of the request: Ollama's count against
	// the context, split by part (see Meter); absent in logs written
	// before the meter.
	Context *Meter          `json:"context,omitempty"`
	Chunks  int             `json:"chunks"`
	Raw     json.RawMessage `json:"raw,omitempty"`
	// Rescued are the calls Loupe recovered from the text or whose
	// arguments it repaired; Printed is then the content as the model
	// wrote it (Content has the recovered calls taken out).
	Rescued []Rescue `json:"rescued,omitempty"`
	Printed string   `json:"printed,omitempty"`
	// Unrecovered is set on an answer without calls whose text plainly
	// holds one that Loupe did not read as a call: the run then ends
	// printed_call, never answered.
	Unrecovered *Unrecovered `json:"unrecovered,omitempty"`
}

// Unrecovered says of an answer's text that looks like a tool call but
// was not made one: the form it is written in ("[TOOL_CALLS] (Mistral)",
// "json"…), why it was not read (a tool that was not offered, JSON cut
// off, recovery turned off) and the span.
type Unrecovered struct {
	Form string `json:"form"`
	Why  string `json:"why"`
	Text string `json:"text"`
}

// CodePrintedCallUnrecovered is the notice of an answer whose text looks
// like a tool call that was not run.
const CodePrintedCallUnrecovered = "printed_call_unrecovered"

// Rescue says how Loupe made a call out of what a model wrote: Recovered
// when the call was printed as text (Form: "tool_call tag", "code fence",
// "json"; Text the original span), Repaired what a tolerant parse of its
// arguments fixed (Original the arguments as written). Unparsed marks a
// recovered call whose arguments could not be read: it fails validation.
type Rescue struct {
	CallID    string `json:"call_id"`
	Recovered bool   `json:"recovered,omitempty"`
	Form      string `json:"form,omitempty"`
	Text      string `json:"text,omitempty"`
	Repaired  string `json:"repaired,omitempty"`
	Original  string `json:"original,omitempty"`
	Unparsed  bool   `json:"unparsed,omitempty"`
}

// Error kinds of a tool call's outcome. Each reaches the model as an error
// observation with its own wording.
const (
	ErrUnknownTool = "unknown_tool"
	ErrInvalidArgs = "invalid_args"
	ErrFailed      = "failed"
	ErrDenied      = "denied"
	ErrCancelled   = "cancelled"
	ErrInterrupted = "interrupted"
	// ErrSkipped marks a call the user skipped, answering it with an
	// observation of their own (not an error).
	ErrSkipped = "skipped"
	// ErrStopped marks a call the user stopped on its own while it ran
	// (a command taking too long); the run went on.
	ErrStopped = "stopped"
)

// ToolCall records one call the model asked for and whether it passed
// validation. It is committed before the tool can start.
type ToolCall struct {
	CallID string          `json:"call_id"`
	Name   string          `json:"name"`
	Args   json.RawMessage `json:"args"`
	Valid  bool            `json:"valid"`
	// ErrorKind is ErrUnknownTool or ErrInvalidArgs when Valid is false.
	ErrorKind string `json:"error_kind,omitempty"`
	Problem   string `json:"problem,omitempty"`
	// ReadOnly tells whether the tool only reads (no ask needed by default).
	ReadOnly bool `json:"read_only"`
	// Rescue is set for a call recovered from the answer's text or whose
	// arguments were repaired.
	Rescue *Rescue `json:"rescue,omitempty"`
}

// Permission decisions. Ask records a question put to the user, before
// the answer (an allow or deny event for the same call) arrives.
const (
	Allow = "allow"
	Deny  = "deny"
	Ask   = "ask"
)

// Permission records who decided whether a call may run, or (Decision
// Ask) that a person is asked.
type Permission struct {
	CallID   string `json:"call_id"`
	Tool     string `json:"tool"`
	Decision string `json:"decision"`
	// By says who or which rule decided; the UI shows "Allowed by <By>".
	// For an ask it names the rule or setting that asks, if any.
	By string `json:"by"`
	// Reasons say why the policy asked (or refused), in plain words.
	Reasons []string `json:"reasons,omitempty"`
	// Summary and Display are what the question shows (on ask): the
	// call in a line, and the diff or command it would run.
	Summary string   `json:"summary,omitempty"`
	Display *Display `json:"display,omitempty"`
	// OnceOnly is set on an ask whose answer cannot be remembered.
	OnceOnly bool `json:"once_only,omitempty"`
	// Command and Paths are what the policy decided on (on ask): what an
	// answer remembered for the session or the workspace would cover.
	Command string   `json:"command,omitempty"`
	Paths   []string `json:"paths,omitempty"`
}

// Display is extra data for the UI that the model does not see.
type Display struct {
	Path    string `json:"path,omitempty"`
	Diff    string `json:"diff,omitempty"`
	Command string `json:"command,omitempty"`
}

// ToolResult is the observation for one call: Content is exactly what the
// model sees.
type ToolResult struct {
	CallID     string   `json:"call_id"`
	Name       string   `json:"name"`
	Content    string   `json:"content"`
	IsError    bool     `json:"is_error"`
	ErrorKind  string   `json:"error_kind,omitempty"`
	Truncated  bool     `json:"truncated"`
	Bytes      int      `json:"bytes"`
	ExitCode   *int     `json:"exit_code,omitempty"`
	DurationMs int64    `json:"duration_ms"`
	Display    *Display `json:"display,omitempty"`
	// Changes are the files this call changed, with their content before
	// and after, so that Loupe can put them back.
	Changes []FileChange `json:"changes,omitempty"`
}

// FileChange is one file a tool changed. Before is nil when the file did
// not exist; After is nil when the tool removed it.
type FileChange struct {
	Path   string  `json:"path"`
	Before *string `json:"before"`
	After  *string `json:"after"`
}

// Restore records files put back as they were before event ToSeq (or
// before run Run, for "undo this turn").
type Restore struct {
	ToSeq int64 `json:"to_seq"`
	Run   int   `json:"run,omitempty"`
	// Restored are the paths written back (or removed, when they did not
	// exist before).
	Restored []string `json:"restored"`
	// Overwritten are paths changed outside Loupe since, which the user
	// chose to overwrite.
	Overwritten []string `json:"overwritten,omitempty"`
	// Changes record what each file held before and after the restore,
	// so that a later restore knows the files' state.
	Changes []FileChange `json:"changes,omitempty"`
}

// Notice is a harness decision worth seeing: a cap hit, a retry, a
// suspected truncation, a repaired history.
type Notice struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Raw is what an imported file held that Loupe has no event for (a
	// record, a block, a field), as the file wrote it: kept, not dropped.
	Raw json.RawMessage `json:"raw,omitempty"`
}

// Error is a failure of the run itself (not of a tool).
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Fit says what did not fit, for Code "does_not_fit".
	Fit *Fit `json:"fit,omitempty"`
}

// Codes of errors and notices about the context.
const (
	// CodeDoesNotFit: Ollama refused the prompt as longer than num_ctx
	// (Loupe sends truncate false, so nothing is cut without a word).
	CodeDoesNotFit = "does_not_fit"
	// CodeContextCut: Ollama reported reading as many prompt tokens as
	// num_ctx holds, so it probably dropped part of the prompt.
	CodeContextCut = "context_cut"
	// CodeContextDropped: Ollama counted far fewer prompt tokens than
	// Loupe expects from the session's own earlier counts (and no cache
	// explains it), so it probably dropped the oldest messages.
	CodeContextDropped = "context_dropped"
	// CodeContextAllocated: Ollama allocated the loaded model another
	// context than the num_ctx asked for (/api/ps).
	CodeContextAllocated = "context_allocated"
)

// Fit is what a prompt needed against the context it was given: Loupe's
// token estimate of the whole prompt and of its biggest parts, and the
// ways out in words.
type Fit struct {
	Needed int       `json:"needed"`
	NumCtx int       `json:"num_ctx"`
	Parts  []FitPart `json:"parts"`
	// Largest names the single biggest message (such as one tool
	// result), which is often the one to drop.
	Largest *FitPart `json:"largest,omitempty"`
	WaysOut []string `json:"ways_out"`
}

// FitPart is one part of a prompt with its token estimate.
type FitPart struct {
	Name   string `json:"name"`
	Tokens int    `json:"tokens"`
}

// Why a run ended. Every run ends with exactly one run_end event.
const (
	EndAnswered    = "answered"
	EndRoundCap    = "round_cap"
	EndCancelled   = "cancelled"
	EndError       = "error"
	EndTruncated   = "truncated"
	EndInterrupted = "interrupted"
	EndRepeated    = "repeated_calls"
	// EndTimeout: Ollama sent nothing for too long (before the first
	// token, or between two pieces of the answer).
	EndTimeout = "timeout"
	// EndDoesNotFit: the prompt was longer than num_ctx and Ollama
	// refused it (an error event with code does_not_fit says by how much).
	EndDoesNotFit = "does_not_fit"
	// EndPrintedCall: the answer made no call but its text looks like one
	// Loupe could not read (a notice printed_call_unrecovered says which
	// form and why); nothing was run.
	EndPrintedCall = "printed_call"
)

// RunEnd closes a run with its reason.
type RunEnd struct {
	Reason    string `json:"reason"`
	Detail    string `json:"detail,omitempty"`
	FinalText string `json:"final_text,omitempty"`
	Rounds    int    `json:"rounds"`
}

// Checkpoints of the loop where a step-through run can pause.
const (
	PointBeforeRequest = "before_request" // the request is built, not sent
	PointAfterResponse = "after_response" // the answer is in, no tool has run
	PointBeforeTool    = "before_tool"    // a checked call, before permission and running
	PointAfterResult   = "after_result"   // a result, before it goes back to the model
	PointAfterHook     = "after_hook"     // a call's hook has run, before what it said counts
)

// Checkpoint states and the actions that end a pause.
const (
	Paused  = "paused"
	Resumed = "resumed"

	ActionStep     = "step"
	ActionContinue = "continue"
	ActionSkip     = "skip"
	// ActionStepInto steps into a task call's sub-agent, at the call's
	// before_tool pause: the sub-agent pauses where its parent does. A
	// plain step there steps over it (it runs to its end as one step).
	ActionStepInto = "step_into"
)

// Checkpoint records a pause of a step-through run and how it ended. A run
// whose last event is a paused checkpoint is still paused there, also
// after the app restarts. A paused checkpoint carries what may be edited
// there, so that the window draws the pause from the log alone: the
// pending request before a request, the pending call's arguments before a
// call. The result at after_result is the tool_result event just before
// it. Edits made during the pause are edit events after it.
type Checkpoint struct {
	Point  string `json:"point"`
	State  string `json:"state"`
	CallID string `json:"call_id,omitempty"`
	Tool   string `json:"tool,omitempty"`
	// Hook names the hook that just ran (after_hook).
	Hook string `json:"hook,omitempty"`
	// Breakpoint is true when a breakpoint (not stepping) made it pause.
	Breakpoint bool `json:"breakpoint,omitempty"`
	// Action says how a pause ended (on resumed).
	Action string `json:"action,omitempty"`
	// Request is the request about to be sent (before_request, on
	// paused). Pauses only happen while a person steps through a run, so
	// keeping the whole pending history here costs nothing per round of
	// an ordinary run.
	Request *Pending `json:"request,omitempty"`
	// Args are the pending call's arguments (before_tool, on paused).
	Args json.RawMessage `json:"args,omitempty"`
	// Result is the content the model will read of the call's result
	// (after_result), set once an edit has changed it (in Edit.Pause):
	// the paused checkpoint leaves it to the tool_result before it.
	Result *string `json:"result,omitempty"`
}

// Pending is a request that is built but not sent yet.
type Pending struct {
	Model    string           `json:"model"`
	System   string           `json:"system"`
	Options  llm.Options      `json:"options"`
	Tools    []string         `json:"tools"`
	Messages []PendingMessage `json:"messages"`
	// Offer is every tool the run can offer, in the order it offers them
	// (the session's choice of tools), and Withheld says of those that may
	// not be switched on at the pause why not (set to never, or denied in
	// this session): what a tools edit chooses among. A tool withheld may
	// still be offered (Tools), and switched off. Pauses recorded before
	// tools could be switched at a pause have neither: nothing can be
	// switched on there.
	Offer    []string          `json:"offer,omitempty"`
	Withheld map[string]string `json:"withheld,omitempty"`
}

// PendingMessage is one history message of a pending request, with the
// event it comes from, which is what an edit of it names.
type PendingMessage struct {
	Seq        int64          `json:"seq"`
	Role       string         `json:"role"`
	Content    string         `json:"content"`
	ToolCalls  []llm.ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	ToolName   string         `json:"tool_name,omitempty"`
}

// Edit targets.
const (
	EditSystem  = "system"  // the system prompt, for the rest of the run
	EditOptions = "options" // the request options, for the rest of the run
	EditMessage = "message" // one history message's content, from now on
	EditTools   = "tools"   // the tools offered, for the rest of the run
	EditArgs    = "args"    // a call's arguments, before it runs
	EditResult  = "result"  // a result's content, before it goes back
)

// Edit records a change the user made at a pause, with the value before
// and after as JSON (a string for system, message and result; an object
// for options and args; the sorted list of the names offered for tools).
// The history projection applies edits, so the model sees the edited
// conversation from then on.
type Edit struct {
	Target string          `json:"target"`
	Seq    int64           `json:"seq,omitempty"`
	CallID string          `json:"call_id,omitempty"`
	Before json.RawMessage `json:"before"`
	After  json.RawMessage `json:"after"`
	// Pause is the paused checkpoint as this edit leaves it
	// (Checkpoint.WithEdit): what the run does when it goes on, and what
	// the window shows of the pause from this event on. Logs written
	// before it existed lack it; StateOf reads the pause from the edits.
	Pause *Checkpoint `json:"pause,omitempty"`
}

func (UserMessage) kind() Kind   { return KindUserMessage }
func (ModelRequest) kind() Kind  { return KindModelRequest }
func (ModelResponse) kind() Kind { return KindModelResponse }
func (ToolCall) kind() Kind      { return KindToolCall }
func (Permission) kind() Kind    { return KindPermission }
func (ToolResult) kind() Kind    { return KindToolResult }
func (Notice) kind() Kind        { return KindNotice }
func (Error) kind() Kind         { return KindError }
func (RunEnd) kind() Kind        { return KindRunEnd }
func (Checkpoint) kind() Kind    { return KindCheckpoint }
func (Edit) kind() Kind          { return KindEdit }
func (Restore) kind() Kind       { return KindRestore }
func (Compaction) kind() Kind    { return KindCompaction }

// Payloads is a zero value of every payload type by its kind: what the
// window's generated types map each kind to.
func Payloads() map[Kind]any {
	out := map[Kind]any{}
	add := func(k Kind, p any) { out[k] = p }
	add(entry[UserMessage]())
	add(entry[ModelRequest]())
	add(entry[ModelResponse]())
	add(entry[ToolCall]())
	add(entry[Permission]())
	add(entry[ToolResult]())
	add(entry[Notice]())
	add(entry[Error]())
	add(entry[RunEnd]())
	add(entry[Checkpoint]())
	add(entry[Edit]())
	add(entry[Restore]())
	add(entry[Compaction]())
	add(entry[HookRun]())
	return out
}

func entry[T Payload]() (Kind, any) {
	var p T
	return p.kind(), p
}
