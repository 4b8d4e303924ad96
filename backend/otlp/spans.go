// Package otlp writes a session's log as OpenTelemetry traces, following
// the GenAI semantic conventions, so that a team can see its agents' runs
// where its other traces are (Jaeger, a collector, any OTLP consumer).
//
// Each run is one trace: an invoke_agent span from the user's message to
// the run's end, with a "chat {model}" span per model request and an
// "execute_tool {tool}" span per call under it. Permissions, pauses,
// edits, notices and errors are span events at the moment the log has
// them. Every time is the stored time of an event, and every id is derived
// from the session id and an event's seq, so exporting the same log twice
// gives the same bytes, and a push of a run a second time is the same trace.
//
// Spans are built with the collector's pdata, not the SDK: there is no
// live instrumentation here, only a finished log turned into spans.
package otlp

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/loupe-dev/loupe/backend/trace"
)

// Session is what the export says of the session besides its log.
type Session struct {
	ID        string
	Title     string
	Workspace string
	Model     string
}

// Options choose what goes into the spans.
type Options struct {
	// NoContent leaves out everything the user, the model or a tool wrote
	// (messages, system prompt, arguments, results, edits, the title and
	// the workspace path): the spans keep only their shape, names,
	// counts and times.
	NoContent bool
	// Run, when not 0, exports only that run.
	Run int
}

// Names the spans and resource carry.
const (
	ServiceName = "loupe"
	AgentName   = "loupe"
	// Provider is gen_ai.provider.name: every request goes to Ollama.
	Provider  = "ollama"
	scopeName = "github.com/loupe-dev/loupe/backend/otlp"
)

// Build turns a session's log into one trace per run, in run order. Only
// runs that have a user message or a model request become traces (a
// restore outside any run has nothing to hang on).
func Build(s Session, evs []trace.Event, opt Options) ([]ptrace.Traces, error) {
	b := &builder{s: s, opt: opt, hist: trace.NewHistory()}
	var out []ptrace.Traces
	var cur *runTrace
	flush := func() {
		if cur != nil {
			cur.finish()
			out = append(out, cur.td)
			cur = nil
		}
	}
	main := b.hist
	hists := map[string]*trace.History{}
	for _, e := range evs {
		// A sub-agent's events are its own loop's: its own history, and
		// its invoke_agent span under its task call's execute_tool span.
		b.hist = main
		if e.Agent != "" {
			if hists[e.Agent] == nil {
				hists[e.Agent] = trace.NewHistory()
			}
			b.hist = hists[e.Agent]
		}
		// The history is fed every event, also of runs not exported:
		// a later run's requests carry the whole conversation.
		in, err := b.inputs(e)
		if err != nil {
			return nil, err
		}
		if (opt.Run != 0 && e.Run != opt.Run) || aboutDelivery(e) {
			if err := b.hist.Add(e); err != nil {
				return nil, err
			}
			continue
		}
		if cur != nil && cur.run != e.Run {
			flush()
		}
		if cur == nil {
			cur = b.newRun(e)
		}
		if err := cur.loop(e).add(e, in); err != nil {
			return nil, err
		}
		if err := b.hist.Add(e); err != nil {
			return nil, err
		}
	}
	flush()
	return out, nil
}

// CodeExportFailed is the notice of a run whose trace a collector did not
// take. It is about the trace, not the run, so it is no part of it: the
// run sent again is the trace that was not taken.
const CodeExportFailed = "otlp_export_failed"

func aboutDelivery(e trace.Event) bool {
	if e.Kind != trace.KindNotice {
		return false
	}
	n, err := trace.Decode[trace.Notice](e)
	return err == nil && n.Code == CodeExportFailed
}

// builder holds what every run's spans need.
type builder struct {
	s    Session
	opt  Options
	hist *trace.History
}

// inputs is the content a model_request sent (its system prompt and
// messages), read from the history as it stands before the request: the
// same projection that built the request.
func (b *builder) inputs(e trace.Event) (*input, error) {
	if e.Kind != trace.KindModelRequest || b.opt.NoContent {
		return nil, nil
	}
	mr, err := trace.Decode[trace.ModelRequest](e)
	if err != nil {
		return nil, err
	}
	req := trace.BuildRequest(b.hist, mr, nil)
	in := &input{}
	msgs := req.Messages
	if len(msgs) > 0 && msgs[0].Role == "system" {
		in.system = msgs[0].Content
		msgs = msgs[1:]
	}
	in.messages = inputMessages(msgs)
	return in, nil
}

type input struct {
	system   string
	messages string
}

// runTrace is one run's trace as it is built.
type runTrace struct {
	b     *builder
	run   int
	td    ptrace.Traces
	spans ptrace.SpanSlice
	tid   pcommon.TraceID
	root  ptrace.Span
	last  time.Time
	// chats by their request's seq, tools by call id; open chats are
	// requests with no answer yet.
	chats    map[int64]ptrace.Span
	open     []int64
	tools    map[string]ptrace.Span
	reason   string
	hasModel bool
	// When a question about a call was put, and when the run last
	// paused: the answer's and the resume's events say how long it took.
	asked  map[string]time.Time
	paused time.Time
	// subs are the sub-agents' nested runs of this run, by sub-run id.
	subs map[string]*runTrace
}

// loop is the run trace an event of this run adds to: the run's own, or
// the nested one of the sub-agent it is of, whose invoke_agent span is a
// child of its task call's execute_tool span.
func (r *runTrace) loop(e trace.Event) *runTrace {
	if e.Agent == "" {
		return r
	}
	if s := r.subs[e.Agent]; s != nil {
		return s
	}
	parent := r
	if i := strings.LastIndex(e.Agent, "/"); i >= 0 {
		parent = r.loop(trace.Event{Agent: e.Agent[:i]})
	}
	callID := e.Agent[strings.LastIndex(e.Agent, "/")+1:]
	s := &runTrace{b: r.b, run: r.run, td: r.td, spans: r.spans, tid: r.tid,
		chats: map[int64]ptrace.Span{}, tools: map[string]ptrace.Span{}, asked: map[string]time.Time{}}
	s.root = r.spans.AppendEmpty()
	s.root.SetTraceID(r.tid)
	s.root.SetSpanID(SpanID(r.b.s.ID, e.Seq))
	if tool, ok := parent.tools[callID]; ok {
		s.root.SetParentSpanID(tool.SpanID())
	} else {
		s.root.SetParentSpanID(parent.root.SpanID())
	}
	s.root.SetName("invoke_agent " + AgentName + " sub-agent")
	s.root.SetKind(ptrace.SpanKindInternal)
	s.root.SetStartTimestamp(stamp(e.Time))
	a := s.root.Attributes()
	a.PutStr("gen_ai.operation.name", "invoke_agent")
	a.PutStr("gen_ai.agent.name", AgentName+" sub-agent")
	a.PutStr("gen_ai.provider.name", Provider)
	a.PutStr("gen_ai.conversation.id", r.b.s.ID)
	a.PutStr("loupe.sub_agent", e.Agent)
	a.PutStr("gen_ai.tool.call.id", callID)
	if r.subs == nil {
		r.subs = map[string]*runTrace{}
	}
	r.subs[e.Agent] = s
	return s
}

func (b *builder) newRun(first trace.Event) *runTrace {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	res := rs.Resource().Attributes()
	res.PutStr("service.name", ServiceName)
	res.PutStr("gen_ai.conversation.id", b.s.ID)
	if !b.opt.NoContent {
		if b.s.Title != "" {
			res.PutStr("loupe.session.title", b.s.Title)
		}
		if b.s.Workspace != "" {
			res.PutStr("loupe.workspace", b.s.Workspace)
		}
	}
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName(scopeName)
	r := &runTrace{
		b: b, run: first.Run, td: td, spans: ss.Spans(),
		tid:   TraceID(b.s.ID, first.Run),
		chats: map[int64]ptrace.Span{}, tools: map[string]ptrace.Span{},
		asked: map[string]time.Time{},
	}
	r.root = r.spans.AppendEmpty()
	r.root.SetTraceID(r.tid)
	r.root.SetSpanID(SpanID(b.s.ID, first.Seq))
	r.root.SetName("invoke_agent " + AgentName)
	r.root.SetKind(ptrace.SpanKindInternal)
	r.root.SetStartTimestamp(stamp(first.Time))
	a := r.root.Attributes()
	a.PutStr("gen_ai.operation.name", "invoke_agent")
	a.PutStr("gen_ai.agent.name", AgentName)
	a.PutStr("gen_ai.provider.name", Provider)
	a.PutStr("gen_ai.conversation.id", b.s.ID)
	a.PutInt("loupe.run", int64(first.Run))
	return r
}

// child starts a span under the run's span at event e.
func (r *runTrace) child(e trace.Event, name string, kind ptrace.SpanKind) ptrace.Span {
	sp := r.spans.AppendEmpty()
	sp.SetTraceID(r.tid)
	sp.SetSpanID(SpanID(r.b.s.ID, e.Seq))
	sp.SetParentSpanID(r.root.SpanID())
	sp.SetName(name)
	sp.SetKind(kind)
	sp.SetStartTimestamp(stamp(e.Time))
	sp.Attributes().PutStr("gen_ai.conversation.id", r.b.s.ID)
	sp.Attributes().PutInt("loupe.seq", e.Seq)
	return sp
}

func (r *runTrace) add(e trace.Event, in *input) error {
	r.last = e.Time
	switch e.Kind {
	case trace.KindUserMessage:
		p, err := trace.Decode[trace.UserMessage](e)
		if err != nil {
			return err
		}
		if !r.b.opt.NoContent {
			r.root.Attributes().PutStr("gen_ai.input.messages", textMessages("user", p.Text, ""))
		}
	case trace.KindModelRequest:
		p, err := trace.Decode[trace.ModelRequest](e)
		if err != nil {
			return err
		}
		r.closeOpenChats(e.Time)
		r.chat(e, p, in)
	case trace.KindModelResponse:
		p, err := trace.Decode[trace.ModelResponse](e)
		if err != nil {
			return err
		}
		r.response(e, p)
	case trace.KindToolCall:
		p, err := trace.Decode[trace.ToolCall](e)
		if err != nil {
			return err
		}
		r.toolCall(e, p)
	case trace.KindToolResult:
		p, err := trace.Decode[trace.ToolResult](e)
		if err != nil {
			return err
		}
		r.toolResult(e, p)
	case trace.KindError:
		r.closeOpenChats(e.Time)
		return r.event(e)
	case trace.KindRunEnd:
		p, err := trace.Decode[trace.RunEnd](e)
		if err != nil {
			return err
		}
		r.closeOpenChats(e.Time)
		r.runEnd(e, p)
	default:
		return r.event(e)
	}
	return nil
}

// finish ends the run's span at its last event (its run_end, or a
// compaction asked for after it, which belongs to the run), and what the
// log left open (a run still going, paused, or cut by a crash) there too.
func (r *runTrace) finish() {
	end := stamp(r.last)
	r.root.SetEndTimestamp(end)
	if r.reason == "" {
		r.root.Attributes().PutBool("loupe.run.open", true)
	}
	for i := 0; i < r.spans.Len(); i++ {
		if sp := r.spans.At(i); sp.EndTimestamp() == 0 {
			sp.SetEndTimestamp(end)
		}
	}
}

func (r *runTrace) chat(e trace.Event, p trace.ModelRequest, in *input) {
	sp := r.child(e, "chat "+p.Model, ptrace.SpanKindClient)
	a := sp.Attributes()
	a.PutStr("gen_ai.operation.name", "chat")
	a.PutStr("gen_ai.provider.name", Provider)
	a.PutStr("gen_ai.request.model", p.Model)
	a.PutDouble("gen_ai.request.temperature", p.Options.Temperature)
	if p.Options.NumCtx > 0 {
		a.PutInt("loupe.request.num_ctx", int64(p.Options.NumCtx))
	}
	if host, port, ok := server(p.Host); ok {
		a.PutStr("server.address", host)
		a.PutInt("server.port", int64(port))
	}
	a.PutInt("loupe.round", int64(e.Round))
	if p.Purpose != "" {
		a.PutStr("loupe.request.purpose", p.Purpose)
	}
	a.PutInt("loupe.request.prompt_estimate", int64(p.PromptEstimate))
	a.PutInt("loupe.request.message_count", int64(p.MessageCount))
	if in != nil {
		if in.system != "" {
			a.PutStr("gen_ai.system_instructions", textParts(in.system))
		}
		a.PutStr("gen_ai.input.messages", in.messages)
	}
	if !r.hasModel {
		r.root.Attributes().PutStr("gen_ai.request.model", p.Model)
		r.hasModel = true
	}
	r.chats[e.Seq] = sp
	r.open = append(r.open, e.Seq)
}

// closeOpenChats ends the requests that got no answer (an error, a retry,
// a stop) at the event that followed them.
func (r *runTrace) closeOpenChats(at time.Time) {
	for _, seq := range r.open {
		sp := r.chats[seq]
		sp.SetEndTimestamp(stamp(at))
		sp.Attributes().PutBool("loupe.response.missing", true)
		sp.Status().SetCode(ptrace.StatusCodeError)
		sp.Status().SetMessage("no answer")
	}
	r.open = r.open[:0]
}

func (r *runTrace) response(e trace.Event, p trace.ModelResponse) {
	sp, ok := r.chats[p.RequestSeq]
	if !ok {
		// An answer whose request is not in this run (a log cut by
		// hand): an event on the run, not a span with no start.
		_ = r.event(e)
		return
	}
	for i, seq := range r.open {
		if seq == p.RequestSeq {
			r.open = append(r.open[:i], r.open[i+1:]...)
			break
		}
	}
	sp.SetEndTimestamp(stamp(e.Time))
	a := sp.Attributes()
	if model, ok := a.Get("gen_ai.request.model"); ok {
		a.PutStr("gen_ai.response.model", model.Str())
	}
	if p.DoneReason != "" {
		a.PutEmptySlice("gen_ai.response.finish_reasons").AppendEmpty().SetStr(p.DoneReason)
	}
	m := p.Metrics
	a.PutInt("gen_ai.usage.input_tokens", int64(m.PromptEvalCount))
	a.PutInt("gen_ai.usage.output_tokens", int64(m.EvalCount))
	a.PutInt("ollama.total_duration_ns", int64(m.TotalDuration))
	a.PutInt("ollama.load_duration_ns", int64(m.LoadDuration))
	a.PutInt("ollama.prompt_eval_duration_ns", int64(m.PromptEvalDuration))
	a.PutInt("ollama.eval_duration_ns", int64(m.EvalDuration))
	a.PutInt("loupe.time_to_first_token_ns", int64(m.TimeToFirstToken))
	a.PutInt("loupe.response.chunks", int64(p.Chunks))
	a.PutInt("loupe.response.tool_calls", int64(len(p.ToolCalls)))
	if p.Incomplete {
		a.PutBool("loupe.response.incomplete", true)
		sp.Status().SetCode(ptrace.StatusCodeError)
		sp.Status().SetMessage("incomplete answer")
	}
	if !r.b.opt.NoContent {
		a.PutStr("gen_ai.output.messages", outputMessages(p))
	}
}

func (r *runTrace) toolCall(e trace.Event, p trace.ToolCall) {
	sp := r.child(e, "execute_tool "+p.Name, ptrace.SpanKindInternal)
	a := sp.Attributes()
	a.PutStr("gen_ai.operation.name", "execute_tool")
	a.PutStr("gen_ai.tool.name", p.Name)
	a.PutStr("gen_ai.tool.call.id", p.CallID)
	a.PutStr("gen_ai.tool.type", "function")
	a.PutBool("loupe.tool.valid", p.Valid)
	a.PutBool("loupe.tool.read_only", p.ReadOnly)
	if !p.Valid {
		a.PutStr("loupe.tool.outcome", p.ErrorKind)
	}
	if !r.b.opt.NoContent {
		a.PutStr("gen_ai.tool.call.arguments", string(p.Args))
	}
	r.tools[p.CallID] = sp
}

func (r *runTrace) toolResult(e trace.Event, p trace.ToolResult) {
	sp, ok := r.tools[p.CallID]
	if !ok {
		// A result the log backfilled for a call of an earlier run.
		_ = r.event(e)
		return
	}
	sp.SetEndTimestamp(stamp(e.Time))
	a := sp.Attributes()
	outcome := "ok"
	if p.ErrorKind != "" {
		outcome = p.ErrorKind
	} else if p.IsError {
		outcome = trace.ErrFailed
	}
	a.PutStr("loupe.tool.outcome", outcome)
	if p.IsError {
		a.PutStr("error.type", outcome)
		sp.Status().SetCode(ptrace.StatusCodeError)
		sp.Status().SetMessage(outcome)
	}
	if p.ExitCode != nil {
		a.PutInt("loupe.tool.exit_code", int64(*p.ExitCode))
	}
	a.PutInt("loupe.tool.duration_ms", p.DurationMs)
	a.PutInt("loupe.tool.bytes", int64(p.Bytes))
	a.PutBool("loupe.tool.truncated", p.Truncated)
	if len(p.Changes) > 0 {
		files := a.PutEmptySlice("loupe.tool.changed_files")
		for _, c := range p.Changes {
			if r.b.opt.NoContent {
				files.AppendEmpty().SetStr("")
				continue
			}
			files.AppendEmpty().SetStr(c.Path)
		}
	}
	if !r.b.opt.NoContent {
		a.PutStr("gen_ai.tool.call.result", p.Content)
	}
}

// Why a run ended that is a failure of the run (not the user stopping it
// nor the model answering).
var failed = map[string]bool{
	trace.EndError: true, trace.EndTimeout: true, trace.EndDoesNotFit: true,
	trace.EndTruncated: true, trace.EndInterrupted: true,
}

func (r *runTrace) runEnd(e trace.Event, p trace.RunEnd) {
	a := r.root.Attributes()
	a.PutStr("loupe.run.end_reason", p.Reason)
	a.PutInt("loupe.run.rounds", int64(p.Rounds))
	if p.Detail != "" {
		a.PutStr("loupe.run.end_detail", p.Detail)
	}
	if failed[p.Reason] {
		a.PutStr("error.type", p.Reason)
		r.root.Status().SetCode(ptrace.StatusCodeError)
		r.root.Status().SetMessage(p.Reason)
	}
	if !r.b.opt.NoContent && p.FinalText != "" {
		a.PutStr("gen_ai.output.messages", textMessages("assistant", p.FinalText, p.Reason))
	}
	r.reason = p.Reason
	// A sub-agent's run ends here; the session's at its last event.
	if r.root.Attributes().Len() > 0 {
		if _, nested := r.root.Attributes().Get("loupe.sub_agent"); nested {
			r.root.SetEndTimestamp(stamp(e.Time))
		}
	}
}

// TraceID is the trace of a session's run: the same for every export.
func TraceID(session string, run int) pcommon.TraceID {
	sum := sha256.Sum256([]byte("loupe trace\x00" + session + "\x00" + strconv.Itoa(run)))
	var id pcommon.TraceID
	copy(id[:], sum[:])
	return id
}

// SpanID is the span an event of a session starts (the run's first event,
// a model_request, a tool_call).
func SpanID(session string, seq int64) pcommon.SpanID {
	sum := sha256.Sum256([]byte("loupe span\x00" + session + "\x00" + strconv.FormatInt(seq, 10)))
	var id pcommon.SpanID
	copy(id[:], sum[:])
	return id
}

// stamp is an event's time; a log without times (a redacted golden
// file) gives 0, which a consumer shows as unknown rather than 1754.
func stamp(t time.Time) pcommon.Timestamp {
	if t.IsZero() {
		return 0
	}
	return pcommon.NewTimestampFromTime(t)
}

// server splits a request's Ollama base URL into server.address and
// server.port.
func server(host string) (string, int, bool) {
	if host == "" {
		return "", 0, false
	}
	u, err := url.Parse(host)
	if err != nil || u.Host == "" {
		return "", 0, false
	}
	h, p, err := net.SplitHostPort(u.Host)
	if err != nil {
		h = u.Hostname()
		p = map[string]string{"https": "443"}[u.Scheme]
		if p == "" {
			p = "80"
		}
	}
	port, err := strconv.Atoi(p)
	if err != nil {
		return "", 0, false
	}
	return h, port, true
}

// mustJSON encodes a value built here from plain types.
func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("otlp: encode %T: %v", v, err))
	}
	return string(b)
}
