package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/tools"
	"github.com/loupe-dev/loupe/backend/trace"
)

// In-memory fakes of the loop's seams: no SQLite, no HTTP.

// memLog is a Recorder that keeps the log in memory, with seqs as a store
// gives them. failAfter > 0 makes every append after that many fail.
type memLog struct {
	mu        sync.Mutex
	events    []trace.Event
	failAfter int
	// onAppend, if set, sees each event once it is committed.
	onAppend func(trace.Event)
	// onDisk is how many events a durable commit has taken to the disk,
	// as a store's fsync of its write-ahead log takes every frame before.
	onDisk int
}

// AppendSoon commits without waiting for the disk: the next Append takes
// it there.
func (l *memLog) AppendSoon(ctx context.Context, e trace.Event) (trace.Event, error) {
	return l.add(e, false)
}

// allOnDisk reports whether every event committed so far is on the disk.
func (l *memLog) allOnDisk() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.onDisk == len(l.events)
}

func (l *memLog) Append(ctx context.Context, e trace.Event) (trace.Event, error) {
	return l.add(e, true)
}

func (l *memLog) add(e trace.Event, durable bool) (trace.Event, error) {
	l.mu.Lock()
	if l.failAfter > 0 && len(l.events) >= l.failAfter {
		l.mu.Unlock()
		return e, errors.New("disk full")
	}
	e.Seq = int64(len(l.events) + 1)
	e.Time = time.Unix(0, e.Seq)
	l.events = append(l.events, e)
	if durable {
		l.onDisk = len(l.events)
	}
	hook := l.onAppend
	l.mu.Unlock()
	if hook != nil {
		hook(e)
	}
	return e, nil
}

func (l *memLog) all() []trace.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events)
}

// has reports whether the log holds an event of kind for callID.
func (l *memLog) has(kind trace.Kind, callID string, decision string) bool {
	for _, e := range l.all() {
		if e.Kind != kind {
			continue
		}
		var p struct {
			CallID   string `json:"call_id"`
			Decision string `json:"decision"`
		}
		if json.Unmarshal(e.Payload, &p) == nil && p.CallID == callID && (decision == "" || p.Decision == decision) {
			return true
		}
	}
	return false
}

// script is a Model that answers with the replies it is given, in order,
// and keeps the requests it got (as they were when sent).
type script struct {
	mu       sync.Mutex
	replies  []func(ctx context.Context, req llm.Request, onChunk func(llm.Chunk)) (llm.Response, error)
	requests []llm.Request
	// respond answers once the replies run out.
	respond func(req llm.Request) llm.Response
	// loaded is what LoadedContext says Ollama allocated (0: unknown);
	// askedLoaded counts the questions.
	loaded      int
	askedLoaded int
}

// LoadedContext answers as Ollama's /api/ps would for the loaded model.
func (s *script) LoadedContext(context.Context, string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.askedLoaded++
	return s.loaded, nil
}

func (s *script) Chat(ctx context.Context, req llm.Request, onChunk func(llm.Chunk)) (llm.Response, error) {
	// The request shares the history's memory: keep a copy.
	req.Messages = slices.Clone(req.Messages)
	s.mu.Lock()
	s.requests = append(s.requests, req)
	var next func(context.Context, llm.Request, func(llm.Chunk)) (llm.Response, error)
	if len(s.replies) > 0 {
		next, s.replies = s.replies[0], s.replies[1:]
	}
	respond := s.respond
	s.mu.Unlock()
	if next != nil {
		return next(ctx, req, onChunk)
	}
	if respond != nil {
		return respond(req), nil
	}
	return llm.Response{}, errors.New("script ran out")
}

func (s *script) sent() []llm.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// say queues replies.
func (s *script) say(replies ...func(context.Context, llm.Request, func(llm.Chunk)) (llm.Response, error)) *script {
	s.replies = append(s.replies, replies...)
	return s
}

func text(content string) func(context.Context, llm.Request, func(llm.Chunk)) (llm.Response, error) {
	return func(_ context.Context, _ llm.Request, onChunk func(llm.Chunk)) (llm.Response, error) {
		onChunk(llm.Chunk{Content: content})
		return answer(content), nil
	}
}

func answer(content string, calls ...llm.ToolCall) llm.Response {
	return llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: content, ToolCalls: calls}, Done: true, DoneReason: "stop", Chunks: 1}
}

func asks(calls ...llm.ToolCall) func(context.Context, llm.Request, func(llm.Chunk)) (llm.Response, error) {
	return func(context.Context, llm.Request, func(llm.Chunk)) (llm.Response, error) {
		return answer("", calls...), nil
	}
}

func tc(id, name, args string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Args: json.RawMessage(args)}
}

// fn is a tool made of a function.
type fn struct {
	name     string
	readOnly bool
	run      func(ctx context.Context, args json.RawMessage) (tools.Result, error)
}

func (f fn) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: f.name, Description: "test tool " + f.name,
		Parameters: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}},"required":["x"],"additionalProperties":false}`)}
}
func (f fn) ReadOnly() bool { return f.readOnly }
func (f fn) Run(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	return f.run(ctx, args)
}

// echo is a read-only tool that answers with its argument.
func echo(name string) fn {
	return fn{name: name, readOnly: true, run: func(_ context.Context, args json.RawMessage) (tools.Result, error) {
		var in struct{ X string }
		_ = json.Unmarshal(args, &in)
		return tools.Result{Content: name + ":" + in.X}, nil
	}}
}

func registry(t *testing.T, ts ...tools.Tool) *tools.Registry {
	t.Helper()
	r, err := tools.NewRegistry(ts...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// answers is an Approver with a scripted answer per call id (default: no),
// keeping the questions it was asked.
type answers struct {
	mu      sync.Mutex
	allow   map[string]bool
	grant   map[string]*permission.Grant
	asked   []permission.Request
	onAsk   func(permission.Request)
	blocked bool // wait for ctx instead of answering
}

func (a *answers) Approve(ctx context.Context, r permission.Request, asked func() error) (permission.Answer, error) {
	if err := asked(); err != nil {
		return permission.Answer{}, err
	}
	a.mu.Lock()
	a.asked = append(a.asked, r)
	onAsk, blocked := a.onAsk, a.blocked
	allow, grant := a.allow[r.CallID], a.grant[r.CallID]
	a.mu.Unlock()
	if onAsk != nil {
		onAsk(r)
	}
	if blocked {
		<-ctx.Done()
		return permission.Answer{}, ctx.Err()
	}
	return permission.Answer{Allow: allow, By: "you", Grant: grant}, nil
}

func (a *answers) questions() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var ids []string
	for _, r := range a.asked {
		ids = append(ids, r.CallID)
	}
	return ids
}

// stepper is a Pauser: it stops where stops says, and hands each pause to
// the test on waits, as the seq of its checkpoint event.
type stepper struct {
	stops func(c Checkpoint) bool
	cmds  chan Command
	waits chan int64
	log   *memLog
	mu    sync.Mutex
	asked []string
}

func newStepper(stops func(Checkpoint) bool) *stepper {
	return &stepper{stops: stops, cmds: make(chan Command), waits: make(chan int64, 16)}
}

func stepping(Checkpoint) bool { return true }

func (s *stepper) Stops(c Checkpoint) (bool, bool) {
	s.mu.Lock()
	s.asked = append(s.asked, c.Point+"/"+c.CallID)
	s.mu.Unlock()
	stop := s.stops(c)
	return stop, stop
}

func (s *stepper) Waiting(_ int, seq int64) {
	if seq != 0 {
		s.waits <- seq
	}
}

// pausedAt is a pause as the log shows it: the paused checkpoint event.
type pausedAt struct {
	trace.Checkpoint
	Seq   int64
	Round int
}

func (s *stepper) Commands() <-chan Command { return s.cmds }

// next waits for the run to pause and returns the paused checkpoint that
// the log holds for it.
func (s *stepper) next(t *testing.T) pausedAt {
	t.Helper()
	select {
	case seq := <-s.waits:
		for _, e := range s.log.all() {
			if e.Seq == seq {
				cp, err := trace.Decode[trace.Checkpoint](e)
				if err != nil || cp.State != trace.Paused {
					t.Fatalf("the run waits at event %d, which is not a paused checkpoint: %s %s", seq, e.Kind, e.Payload)
				}
				return pausedAt{Checkpoint: cp, Seq: seq, Round: e.Round}
			}
		}
		t.Fatalf("the run waits at event %d, which the log does not hold", seq)
	case <-time.After(10 * time.Second):
		t.Fatal("the run did not pause")
	}
	return pausedAt{}
}

// send gives a paused run a command and returns its answer.
func (s *stepper) send(t *testing.T, cmd Command) error {
	t.Helper()
	cmd.Reply = make(chan error, 1)
	select {
	case s.cmds <- cmd:
	case <-time.After(10 * time.Second):
		t.Fatal("the run took no command")
	}
	return <-cmd.Reply
}

// rig is an agent on fakes, for one run.
type rig struct {
	t      *testing.T
	log    *memLog
	model  *script
	tools  *tools.Registry
	ask    *answers
	pauser Pauser
	cfg    Config
	deltas []Delta
}

func newRig(t *testing.T, ts ...tools.Tool) *rig {
	if len(ts) == 0 {
		ts = []tools.Tool{echo("look")}
	}
	return &rig{t: t, log: &memLog{}, model: &script{}, tools: registry(t, ts...), ask: &answers{allow: map[string]bool{}, grant: map[string]*permission.Grant{}},
		cfg: Config{SessionID: "s", Model: "m", System: "sys", Options: llm.Options{NumCtx: 2048}, ToolSet: 1,
			Policy: permission.Policy{Mode: permission.ModeAuto}, RetryDelays: []time.Duration{time.Millisecond, time.Millisecond}}}
}

func (r *rig) agent() *Agent {
	var pauser Pauser
	if r.pauser != nil {
		pauser = r.pauser
		if s, ok := r.pauser.(*stepper); ok {
			s.log = r.log
		}
	}
	var mu sync.Mutex
	return New(r.cfg, Seams{Model: r.model, Recorder: r.log, Tools: r.tools, Approver: r.ask, Pauser: pauser,
		OnDelta: func(d Delta) { mu.Lock(); r.deltas = append(r.deltas, d); mu.Unlock() }}, r.log.all())
}

func (r *rig) run(ctx context.Context, text string) trace.RunEnd {
	r.t.Helper()
	end, err := r.agent().Run(ctx, text)
	if err != nil {
		r.t.Fatalf("run: %v", err)
	}
	return end
}

// start runs in the background.
func (r *rig) start(ctx context.Context, text string) chan trace.RunEnd {
	done := make(chan trace.RunEnd, 1)
	go func() {
		end, err := r.agent().Run(ctx, text)
		if err != nil {
			r.t.Errorf("run: %v", err)
		}
		done <- end
	}()
	return done
}

func wait(t *testing.T, done chan trace.RunEnd) trace.RunEnd {
	t.Helper()
	select {
	case end := <-done:
		return end
	case <-time.After(10 * time.Second):
		t.Fatal("the run did not end")
		return trace.RunEnd{}
	}
}

// kinds lists the log's events as kind[/call id][:decision or point].
func kinds(evs []trace.Event) []string {
	var out []string
	for _, e := range evs {
		var p struct {
			CallID   string `json:"call_id"`
			Decision string `json:"decision"`
			Point    string `json:"point"`
			State    string `json:"state"`
		}
		_ = json.Unmarshal(e.Payload, &p)
		s := string(e.Kind)
		if p.CallID != "" {
			s += "/" + p.CallID
		}
		switch {
		case p.Decision != "":
			s += ":" + p.Decision
		case p.Point != "":
			s += ":" + p.Point + ":" + p.State
		}
		out = append(out, s)
	}
	return out
}

// payloads decodes the events of T's kind (Decode refuses the others).
func payloads[T trace.Payload](t *testing.T, evs []trace.Event) []T {
	t.Helper()
	var out []T
	for _, e := range evs {
		if p, err := trace.Decode[T](e); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// resultsOf lists the results' call ids and kinds, in log order.
func resultsOf(t *testing.T, evs []trace.Event) []string {
	t.Helper()
	var out []string
	for _, r := range payloads[trace.ToolResult](t, evs) {
		kind := r.ErrorKind
		if kind == "" {
			kind = "ok"
		}
		out = append(out, fmt.Sprintf("%s:%s", r.CallID, kind))
	}
	return out
}

// resultFor is the latest result the log holds for a call.
func resultFor(t *testing.T, evs []trace.Event, callID string) *trace.ToolResult {
	t.Helper()
	var out *trace.ToolResult
	for _, r := range payloads[trace.ToolResult](t, evs) {
		if r.CallID == callID {
			out = &r
		}
	}
	return out
}

// editsOf lists the edit events as target:after, in log order.
func editsOf(t *testing.T, evs []trace.Event) []string {
	t.Helper()
	var out []string
	for _, ed := range payloads[trace.Edit](t, evs) {
		out = append(out, ed.Target+":"+string(ed.After))
	}
	return out
}
