package interop

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/trace"
)

// builder makes a Loupe log out of what a converter reads: it numbers the
// events, opens and closes runs, rebuilds each answer's request, pairs
// calls with results and gives every call left without one its
// interrupted result. Nothing it keeps grows with the file but the ids of
// the open run's calls.
type builder struct {
	sink    Sink
	meta    Meta
	started bool
	// fallback is the time of an event whose file says none before any
	// other time is known.
	fallback time.Time
	last     time.Time

	seq        int64
	run, round int
	open       bool
	// pendingUser is the user's text not yet written (consecutive user
	// records make one message), at userTime.
	pendingUser *string
	userTime    time.Time
	// calls are the open run's calls with no result yet, by id (their
	// tool's name), in order.
	calls     map[string]string
	callOrder []string
	lastText  string
	// system is the system prompt the file gives (ATIF, Codex), sent
	// with each request rebuilt.
	system string
	// The history the next request extends: the last request's seq and
	// the history events since; messages and bytes so far.
	lastRequest int64
	since       []int64
	messages    int
	bytes       int
	answered    bool
	early       []early
	// titled is set once the file's own summary named the session.
	titled bool
	// numCtx is the context window the file says the model had (0:
	// it does not say).
	numCtx int
}

func newBuilder(sink Sink, source string, fallback time.Time) *builder {
	return &builder{sink: sink, meta: Meta{Source: source}, fallback: fallback, calls: map[string]string{}}
}

// at is the time of an event: the file's, or the last one known.
func (b *builder) at(t time.Time) time.Time {
	if t.IsZero() {
		if !b.last.IsZero() {
			return b.last
		}
		return b.fallback
	}
	b.last = t
	return t
}

func (b *builder) emit(kind trace.Kind, t time.Time, payload any) error {
	if !b.started {
		b.started = true
		if b.meta.Created.IsZero() {
			b.meta.Created = t
		}
		if err := b.sink.Start(b.meta); err != nil {
			return &sinkError{err}
		}
	}
	b.seq++
	e := trace.New(kind, b.run, b.round, payload)
	e.Seq, e.Time = b.seq, t
	if b.meta.Created.IsZero() || t.Before(b.meta.Created) {
		b.meta.Created = t
	}
	if t.After(b.meta.Updated) {
		b.meta.Updated = t
	}
	switch kind {
	case trace.KindUserMessage, trace.KindModelResponse, trace.KindToolResult:
		b.since = append(b.since, e.Seq)
		b.messages++
		b.bytes += len(e.Payload)
	}
	if err := b.sink.Event(e); err != nil {
		return &sinkError{err}
	}
	return nil
}

// sinkError is the sink's own error, which a converter passes on as it
// is: it says nothing of the file.
type sinkError struct{ err error }

func (e *sinkError) Error() string { return e.err.Error() }
func (e *sinkError) Unwrap() error { return e.err }

// passOn is err as the converter returns it: the sink's own, or the
// file's problem at where.
func passOn(err error, where func(error) error) error {
	var se *sinkError
	if errors.As(err, &se) {
		return se.err
	}
	var ie *Error
	if errors.As(err, &ie) {
		return err
	}
	return where(err)
}

func (b *builder) importedText() string {
	s := "Imported from " + SourceName(b.meta.Source)
	if b.meta.Agent != "" {
		s += " (" + b.meta.Agent + ")"
	}
	if b.meta.SourceID != "" {
		s += ", session " + b.meta.SourceID
	}
	return s + ". It is read-only: fork it to continue on a local model. The requests are rebuilt from the conversation; the file does not hold what was sent."
}

func (b *builder) emitNotice(t time.Time, code, msg string, raw json.RawMessage) error {
	if len(raw) > 0 && !json.Valid(raw) {
		raw = nil
	}
	n := trace.Notice{Code: code, Message: msg, Raw: raw}
	if b.run == 0 {
		// Every event of a log is in a run: what the file says before
		// its first message is kept for the first run.
		b.early = append(b.early, early{t, n})
		return nil
	}
	return b.emit(trace.KindNotice, t, n)
}

// early is a notice of what comes before the file's first message.
type early struct {
	t time.Time
	n trace.Notice
}

// notice keeps something of the file as a notice, in the open run when
// there is one (flushing the user's text first, so that order is kept).
func (b *builder) notice(t time.Time, code, msg string, raw json.RawMessage) error {
	if err := b.flushUser(); err != nil {
		return err
	}
	return b.emitNotice(b.at(t), code, msg, raw)
}

// unknown keeps a record or block the converter does not map.
func (b *builder) unknown(t time.Time, where, what string, raw json.RawMessage) error {
	return b.notice(t, CodeUnknown, fmt.Sprintf("%s: %s, which Loupe does not import as an event of its own; it is kept here as the file has it", where, what), raw)
}

// user adds the user's text. Text that follows the user's text with
// nothing between joins it: one message.
func (b *builder) user(t time.Time, text string, raw json.RawMessage) error {
	// The run before ends when its last event was written.
	ended := b.at(time.Time{})
	t = b.at(t)
	if b.pendingUser != nil {
		joined := *b.pendingUser + "\n\n" + text
		b.pendingUser = &joined
		return nil
	}
	if err := b.endRun(ended); err != nil {
		return err
	}
	b.pendingUser, b.userTime = &text, t
	if b.meta.Title == "" {
		b.meta.Title = titleOf(text)
	}
	return nil
}

func (b *builder) flushUser() error {
	if b.pendingUser == nil {
		return nil
	}
	text := *b.pendingUser
	b.pendingUser = nil
	b.run++
	b.round, b.open, b.answered, b.lastText = 0, true, false, ""
	if err := b.emit(trace.KindUserMessage, b.userTime, trace.UserMessage{Text: text}); err != nil {
		return err
	}
	if b.run > 1 {
		return nil
	}
	if err := b.emit(trace.KindNotice, b.userTime, trace.Notice{Code: CodeImported, Message: b.importedText()}); err != nil {
		return err
	}
	for _, e := range b.early {
		if err := b.emit(trace.KindNotice, b.userTime, e.n); err != nil {
			return err
		}
	}
	b.early = nil
	return nil
}

// ensureRun opens a run for an answer the file gives before any user
// message.
func (b *builder) ensureRun(t time.Time) error {
	if err := b.flushUser(); err != nil {
		return err
	}
	if b.open {
		return nil
	}
	b.pendingUser, b.userTime = new(string), t
	if err := b.flushUser(); err != nil {
		return err
	}
	return b.emitNotice(t, CodeNoUser, "The file has no user message before this answer: the run starts with an empty one.", nil)
}

// answer is one model answer: its request rebuilt, the answer, then a
// tool_call for each call (results come with result).
func (b *builder) answer(t time.Time, model string, r trace.ModelResponse) error {
	t = b.at(t)
	if err := b.ensureRun(t); err != nil {
		return err
	}
	// Calls of the previous answer still without a result get one now:
	// the model answered again, so they will never get theirs.
	if err := b.interruptCalls(t); err != nil {
		return err
	}
	if model != "" {
		b.meta.Model = model
	}
	b.round++
	added := b.since
	if added == nil {
		added = []int64{}
	}
	// A file that does not say the model's context window (Claude Code,
	// ATIF) gives a request with num_ctx 0, "not recorded": a made-up
	// number would be drawn as the window and judged against.
	mr := trace.ModelRequest{
		Model: b.meta.Model, Options: llm.Options{NumCtx: b.numCtx}, System: b.system, HistoryBase: b.lastRequest, HistoryAdded: added,
		MessageCount: b.messages, PromptEstimate: (b.bytes + len(b.system)) / 4,
	}
	if b.system != "" {
		mr.MessageCount++
	}
	if err := b.emit(trace.KindModelRequest, t, mr); err != nil {
		return err
	}
	b.lastRequest, b.since = b.seq, nil
	r.RequestSeq = b.seq
	if r.DoneReason == "" {
		r.DoneReason = "stop"
	}
	for i := range r.ToolCalls {
		r.ToolCalls[i].Index = i
		if len(r.ToolCalls[i].Args) == 0 {
			r.ToolCalls[i].Args = json.RawMessage(`{}`)
		}
	}
	if err := b.emit(trace.KindModelResponse, t, r); err != nil {
		return err
	}
	b.answered = true
	b.lastText = r.Content
	for _, c := range r.ToolCalls {
		if _, dup := b.calls[c.ID]; dup {
			return fmt.Errorf("call id %q is used twice in one run", c.ID)
		}
		b.calls[c.ID] = c.Name
		b.callOrder = append(b.callOrder, c.ID)
		if err := b.emit(trace.KindToolCall, t, trace.ToolCall{CallID: c.ID, Name: c.Name, Args: c.Args, Valid: true}); err != nil {
			return err
		}
	}
	return nil
}

// result is the result of call id. One for a call the file never made
// is kept as a notice.
func (b *builder) result(t time.Time, id, content string, isErr bool, exit *int, raw json.RawMessage) error {
	t = b.at(t)
	if err := b.flushUser(); err != nil {
		return err
	}
	name, ok := b.calls[id]
	if !ok {
		return b.emitNotice(t, CodeStray, fmt.Sprintf("A result for call %q, which no call of this run asked for: kept here, not given to the model.", id), raw)
	}
	delete(b.calls, id)
	r := trace.ToolResult{CallID: id, Name: name, Content: content, IsError: isErr, Bytes: len(content), ExitCode: exit}
	if isErr {
		r.ErrorKind = trace.ErrFailed
	}
	return b.emit(trace.KindToolResult, t, r)
}

// interruptCalls gives each call still without a result an interrupted
// one, with a notice that the file had none.
func (b *builder) interruptCalls(t time.Time) error {
	for _, id := range b.callOrder {
		name, ok := b.calls[id]
		if !ok {
			continue
		}
		delete(b.calls, id)
		if err := b.emitNotice(t, CodeNoResult, fmt.Sprintf("The file has no result for call %q (%s): Loupe marks it interrupted.", id, name), nil); err != nil {
			return err
		}
		content := "(no result: the imported file ends this call without one)"
		if err := b.emit(trace.KindToolResult, t, trace.ToolResult{CallID: id, Name: name, Content: content, IsError: true, ErrorKind: trace.ErrInterrupted, Bytes: len(content)}); err != nil {
			return err
		}
	}
	b.callOrder = b.callOrder[:0]
	return nil
}

// endRun closes the open run: its calls answered, its run_end.
func (b *builder) endRun(t time.Time) error {
	if !b.open {
		return nil
	}
	unanswered := len(b.calls) > 0
	if err := b.interruptCalls(t); err != nil {
		return err
	}
	end := trace.RunEnd{Reason: trace.EndAnswered, FinalText: b.lastText, Rounds: b.round}
	switch {
	case unanswered:
		end = trace.RunEnd{Reason: trace.EndInterrupted, Detail: "the imported file ends this run with a call unanswered", Rounds: b.round}
	case !b.answered:
		end = trace.RunEnd{Reason: trace.EndInterrupted, Detail: "the imported file has no answer to this message", Rounds: b.round}
	}
	if err := b.emit(trace.KindRunEnd, t, end); err != nil {
		return err
	}
	b.open, b.round = false, 0
	return nil
}

// finish ends the log. A file with nothing Loupe can show is refused by
// the caller (no event was written).
func (b *builder) finish() (Meta, error) {
	t := b.at(time.Time{})
	if err := b.flushUser(); err != nil {
		return b.meta, err
	}
	if err := b.endRun(t); err != nil {
		return b.meta, err
	}
	return b.meta, nil
}

// titleOf is the first line of what the user asked, cut to a title.
func titleOf(text string) string {
	text = strings.TrimSpace(text)
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		text = text[:i]
	}
	if r := []rune(text); len(r) > 80 {
		text = string(r[:79]) + "…"
	}
	return text
}

// call makes a call of an answer.
func call(id, name string, args json.RawMessage) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Args: args}
}
