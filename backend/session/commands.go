package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/trace"
)

// Command is one thing the window asks of a session, one type per kind:
// Create, Demo, Delete, SetModel, SetTools, Send, Stop, StopCall, Answer,
// SetStepping, SetBreakpoints, Step, Continue, EditRequest, EditArgs,
// Skip, EditResult, RestoreFiles, UndoRun, Compact. On the wire (what the
// window sends, what a recording keeps) it is one JSON object whose "do"
// is the kind and whose other fields are the type's (DecodeCommand,
// EncodeCommand).
type Command interface {
	// Kind is the command's "do".
	Kind() string
	// run carries the command out; Do has made the checks every
	// command shares.
	run(ctx context.Context, m *Manager) (Outcome, error)
}

// sessionCommand is a command for one existing session.
type sessionCommand interface {
	Command
	sessionOf() string
}

// runCommand acts on a session's run as it goes: one that another process
// runs is refused with where it is.
type runCommand interface {
	sessionCommand
	onRun()
}

// checked is a command that says what it lacks before anything runs.
type checked interface{ check() error }

// commandKinds are the kinds DecodeCommand knows.
var commandKinds = []Command{Create{}, Demo{}, Delete{}, SetModel{}, SetTools{}, Send{}, Stop{}, StopCall{}, Answer{},
	SetStepping{}, SetBreakpoints{}, Step{}, Continue{}, EditRequest{}, EditArgs{}, Skip{}, EditResult{},
	RestoreFiles{}, UndoRun{}, Compact{}}

// Create makes a new, empty session on a workspace folder (the demo's
// model given none works in a fresh copy of its project).
type Create struct {
	Workspace string `json:"workspace,omitempty"`
	Model     string `json:"model,omitempty"`
	// Host is the Ollama host the session runs on: a Settings name, an
	// address, or "" for the local host.
	Host string `json:"host,omitempty"`
	// Tools are the tools it offers its model, by name (nil: every
	// built-in tool).
	Tools *[]string `json:"tools,omitempty"`
}

// Demo makes a session of the demo and starts it.
type Demo struct{}

// Delete stops a session's run and removes the session with its log.
type Delete struct {
	Session string `json:"session" need:"which session?"`
}

// SetModel changes the model of the session's next run.
type SetModel struct {
	Session string `json:"session" need:"which session?"`
	Model   string `json:"model,omitempty" need:"which model?"`
}

// SetTools changes the tools the session offers (nil: every tool, empty:
// none).
type SetTools struct {
	Session string    `json:"session" need:"which session?"`
	Tools   *[]string `json:"tools,omitempty"`
}

// Send starts a run with the user's message.
type Send struct {
	Session string `json:"session" need:"which session?"`
	Text    string `json:"text,omitempty" need:"type a message first"`
}

// Stop ends the session's run, and answers once it has ended.
type Stop struct {
	Session string `json:"session" need:"which session?"`
}

// stopCall stops one running call; the run goes on.
type StopCall struct {
	Session string `json:"session" need:"which session?"`
	CallID  string `json:"call_id,omitempty" need:"which call?"`
}

// Answer answers the question the run asks about a call: allow or deny
// (Allow false), for the Scope (permission.Scope: once, session,
// workspace).
type Answer struct {
	Session string `json:"session" need:"which session?"`
	// Agent is the loop that asks: "" for the session's own, else the
	// sub-agent's (its events' agent), whose model may name a call as
	// another loop's does.
	Agent  string `json:"agent,omitempty"`
	CallID string `json:"call_id,omitempty" need:"which call?"`
	Allow  bool   `json:"allow,omitempty"`
	Scope  string `json:"scope,omitempty"`
}

// SetStepping turns Step mode on or off.
type SetStepping struct {
	Session string `json:"session" need:"which session?"`
	On      bool   `json:"on,omitempty"`
}

// SetBreakpoints sets where the session pauses when not stepping.
type SetBreakpoints struct {
	Session     string       `json:"session" need:"which session?"`
	Breakpoints *Breakpoints `json:"breakpoints,omitempty" need:"no breakpoints given"`
}

// The commands to a pause name the paused checkpoint event the user acted
// on (At), so that a click meant for a pause that is over does not act on
// the next one (0: wherever the run waits).

// Step goes on to the next checkpoint.
type Step struct {
	Session string `json:"session" need:"which session?"`
	At      int64  `json:"at,omitempty"`
	// Into steps into the sub-agent of the task call the run waits
	// before: it pauses where the run does. Without it a step there steps
	// over the sub-agent (it runs to its end as one step).
	Into bool `json:"into,omitempty"`
}

// Continue runs on to a breakpoint or the end of the run; Step mode stays
// on for the next run.
type Continue struct {
	Session string `json:"session" need:"which session?"`
	At      int64  `json:"at,omitempty"`
}

// EditRequest changes the pending request at a before_request pause.
type EditRequest struct {
	Session string             `json:"session" need:"which session?"`
	At      int64              `json:"at,omitempty"`
	Request *agent.RequestEdit `json:"request,omitempty" need:"no changes given"`
}

// EditArgs changes the pending call's arguments (JSON) at a before_tool
// pause.
type EditArgs struct {
	Session string `json:"session" need:"which session?"`
	Args    string `json:"text,omitempty" need:"which arguments?"`
	At      int64  `json:"at,omitempty"`
}

// Skip answers the pending call with the user's observation without
// running it, and goes on.
type Skip struct {
	Session     string `json:"session" need:"which session?"`
	Observation string `json:"text,omitempty"`
	At          int64  `json:"at,omitempty"`
}

// EditResult changes the content of the result at an after_result pause.
type EditResult struct {
	Session string `json:"session" need:"which session?"`
	Content string `json:"text,omitempty"`
	At      int64  `json:"at,omitempty"`
}

// RestoreFiles puts the files the session's tools changed at or after
// event Seq back as they were before it (Force: over changes made outside
// Loupe since).
type RestoreFiles struct {
	Session string `json:"session" need:"which session?"`
	Seq     int64  `json:"seq,omitempty" need:"which event?"`
	Force   bool   `json:"force,omitempty"`
}

// UndoRun puts files back as they were before run Run.
type UndoRun struct {
	Session string `json:"session" need:"which session?"`
	Run     int    `json:"run,omitempty" need:"which run?"`
	Force   bool   `json:"force,omitempty"`
}

// Compact summarises the start of the conversation now, between runs.
type Compact struct {
	Session string `json:"session" need:"which session?"`
}

func (Create) Kind() string         { return "create" }
func (Demo) Kind() string           { return "demo" }
func (Delete) Kind() string         { return "delete" }
func (SetModel) Kind() string       { return "set_model" }
func (SetTools) Kind() string       { return "set_tools" }
func (Send) Kind() string           { return "send" }
func (Stop) Kind() string           { return "stop" }
func (StopCall) Kind() string       { return "stop_call" }
func (Answer) Kind() string         { return "answer" }
func (SetStepping) Kind() string    { return "set_stepping" }
func (SetBreakpoints) Kind() string { return "set_breakpoints" }
func (Step) Kind() string           { return "step" }
func (Continue) Kind() string       { return "continue" }
func (EditRequest) Kind() string    { return "edit_request" }
func (EditArgs) Kind() string       { return "edit_args" }
func (Skip) Kind() string           { return "skip" }
func (EditResult) Kind() string     { return "edit_result" }
func (RestoreFiles) Kind() string   { return "restore_files" }
func (UndoRun) Kind() string        { return "undo_run" }
func (Compact) Kind() string        { return "compact" }

func (c Delete) sessionOf() string         { return c.Session }
func (c SetModel) sessionOf() string       { return c.Session }
func (c SetTools) sessionOf() string       { return c.Session }
func (c Send) sessionOf() string           { return c.Session }
func (c Stop) sessionOf() string           { return c.Session }
func (c StopCall) sessionOf() string       { return c.Session }
func (c Answer) sessionOf() string         { return c.Session }
func (c SetStepping) sessionOf() string    { return c.Session }
func (c SetBreakpoints) sessionOf() string { return c.Session }
func (c Step) sessionOf() string           { return c.Session }
func (c Continue) sessionOf() string       { return c.Session }
func (c EditRequest) sessionOf() string    { return c.Session }
func (c EditArgs) sessionOf() string       { return c.Session }
func (c Skip) sessionOf() string           { return c.Session }
func (c EditResult) sessionOf() string     { return c.Session }
func (c RestoreFiles) sessionOf() string   { return c.Session }
func (c UndoRun) sessionOf() string        { return c.Session }
func (c Compact) sessionOf() string        { return c.Session }

func (Stop) onRun()        {}
func (StopCall) onRun()    {}
func (Answer) onRun()      {}
func (Step) onRun()        {}
func (Continue) onRun()    {}
func (EditRequest) onRun() {}
func (EditArgs) onRun()    {}
func (Skip) onRun()        {}
func (EditResult) onRun()  {}

// check says more than need can: the arguments must be JSON too.
func (c EditArgs) check() error {
	if !json.Valid([]byte(c.Args)) {
		return errors.New("the arguments are not valid JSON")
	}
	return nil
}

// Outcome is what a command gives back: the session's summary when the
// command changed it (created, renamed by its first message, stepping…),
// what a restore did.
type Outcome struct {
	Summary *Summary       `json:"summary,omitempty"`
	Restore *RestoreResult `json:"restore,omitempty"`
	// Compaction is what Compact now recorded.
	Compaction *trace.Compaction `json:"compaction,omitempty"`
}

// DecodeCommand reads a command as the window sends it: a JSON object
// whose "do" names the kind and whose other fields are that kind's. An
// unknown kind or a field the kind does not take is an error that says
// which; Do then says what a command it is given lacks (which session, the
// call, the text…), before anything is done.
func DecodeCommand(b []byte) (Command, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return nil, fmt.Errorf("a command is a JSON object with \"do\" and its fields: %w", err)
	}
	var do string
	if raw, ok := fields["do"]; !ok || json.Unmarshal(raw, &do) != nil || do == "" {
		return nil, fmt.Errorf("a command says what to do in \"do\": %s", strings.Join(CommandKinds(), ", "))
	}
	delete(fields, "do")
	var kind Command
	for _, k := range commandKinds {
		if k.Kind() == do {
			kind = k
		}
	}
	if kind == nil {
		return nil, fmt.Errorf("unknown command %q: use one of %s", do, strings.Join(CommandKinds(), ", "))
	}
	t := reflect.TypeOf(kind)
	takes := map[string]bool{}
	var names []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		takes[name] = true
		names = append(names, name)
	}
	for f := range fields {
		if !takes[f] {
			if len(names) == 0 {
				return nil, fmt.Errorf("%s takes no fields, and got %q", do, f)
			}
			return nil, fmt.Errorf("%s does not take %q: its fields are %s", do, f, strings.Join(names, ", "))
		}
	}
	v := reflect.New(t)
	if err := json.Unmarshal(b, v.Interface()); err != nil {
		return nil, fmt.Errorf("%s: %w", do, err)
	}
	// What the kind needs filled in, Do checks (for a command made in
	// Go too).
	return v.Elem().Interface().(Command), nil
}

// EncodeCommand writes a command as the window sends it: "do" first, then
// the kind's fields.
func EncodeCommand(c Command) (json.RawMessage, error) {
	b, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	do, _ := json.Marshal(c.Kind())
	out := append([]byte(`{"do":`), do...)
	if len(b) > 2 {
		out = append(append(out, ','), b[1:]...)
	} else {
		out = append(out, '}')
	}
	return out, nil
}

// A command's fields tagged need are the ones it cannot do without: Do
// refuses a command where one is empty (blank text, zero number, nil
// pointer), saying the tag's words, and the window's types declare them
// required, so the window cannot leave one out.

// MissingField is Do's refusal of a command without a field it needs.
type MissingField struct {
	Kind  string // the command's "do"
	Field string // the field's json name
	Need  string // what is wanted, in words ("which session?")
}

func (e *MissingField) Error() string {
	return fmt.Sprintf("%s: %s (%s is empty)", e.Kind, e.Need, e.Field)
}

// Needed reports whether struct field f is one a command needs.
func Needed(f reflect.StructField) bool { return f.Tag.Get("need") != "" }

// Needs are the json names of the fields command c needs, in order.
func Needs(c Command) []string {
	var out []string
	t := reflect.TypeOf(c)
	for i := range t.NumField() {
		if f := t.Field(i); Needed(f) {
			out = append(out, jsonName(f))
		}
	}
	return out
}

// missing is the first field c needs that is empty.
func missing(c Command) error {
	v := reflect.ValueOf(c)
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if !Needed(f) {
			continue
		}
		fv := v.Field(i)
		empty := fv.IsZero()
		if fv.Kind() == reflect.String {
			empty = strings.TrimSpace(fv.String()) == ""
		}
		if empty {
			return &MissingField{Kind: c.Kind(), Field: jsonName(f), Need: f.Tag.Get("need")}
		}
	}
	return nil
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}

// CommandValues are a zero value of each kind of command, for the
// window's generated types.
func CommandValues() []Command { return append([]Command(nil), commandKinds...) }

// CommandKinds are the kinds of command, as "do" names them.
func CommandKinds() []string {
	out := make([]string, len(commandKinds))
	for i, k := range commandKinds {
		out[i] = k.Kind()
	}
	return out
}

// Do carries out one command of the window. Everything the run does in
// answer arrives as events.
func (m *Manager) Do(ctx context.Context, c Command) (Outcome, error) {
	if c == nil {
		return Outcome{}, errors.New("a command says what to do: send, stop, answer, step, continue, an edit, a restore…")
	}
	// What the kind needs filled in (its need tags, which the window's
	// types are generated from too), before anything is looked up.
	if err := missing(c); err != nil {
		return Outcome{}, err
	}
	if sc, ok := c.(sessionCommand); ok {
		id := sc.sessionOf()
		// A command for a session that does not exist changes nothing,
		// and says so.
		s, err := m.store.GetSession(ctx, id)
		if err != nil {
			return Outcome{}, err
		}
		switch c.(type) {
		case Delete, Stop:
		default:
			// Imported from another agent: nothing changes it.
			if err := readOnly(s); err != nil {
				return Outcome{}, err
			}
		}
		if _, ok := c.(runCommand); ok && !m.runs(id) {
			// A run another window or loupe run holds: say where it is.
			if err := m.store.HeldElsewhere(ctx, id); err != nil {
				return Outcome{}, err
			}
		}
	}
	if ch, ok := c.(checked); ok {
		if err := ch.check(); err != nil {
			return Outcome{}, err
		}
	}
	return c.run(ctx, m)
}

func withSummary(s Summary, err error) (Outcome, error) {
	if err != nil {
		return Outcome{}, err
	}
	return Outcome{Summary: &s}, nil
}

func withRestore(r RestoreResult, err error) (Outcome, error) {
	if err != nil {
		return Outcome{}, err
	}
	return Outcome{Restore: &r}, nil
}

func (c Create) run(ctx context.Context, m *Manager) (Outcome, error) {
	return withSummary(m.create(ctx, c.Workspace, c.Model, Setup{Host: c.Host, Tools: c.Tools}))
}

func (Demo) run(ctx context.Context, m *Manager) (Outcome, error) {
	return withSummary(m.startDemo(ctx))
}

func (c Delete) run(ctx context.Context, m *Manager) (Outcome, error) {
	return Outcome{}, m.deleteSession(ctx, c.Session)
}

func (c SetModel) run(ctx context.Context, m *Manager) (Outcome, error) {
	return withSummary(m.setModel(ctx, c.Session, c.Model))
}

func (c SetTools) run(ctx context.Context, m *Manager) (Outcome, error) {
	return withSummary(m.setTools(ctx, c.Session, c.Tools))
}

func (c Send) run(ctx context.Context, m *Manager) (Outcome, error) {
	return withSummary(m.start(ctx, c.Session, c.Text, RunOptions{}))
}

func (c Stop) run(ctx context.Context, m *Manager) (Outcome, error) {
	// Stop answers once the run has ended: its summary says how. A run
	// left paused that no process runs (its resume failed) is ended here.
	if !m.stop(c.Session) {
		if err := m.endLeftPaused(ctx, c.Session); err != nil {
			return Outcome{}, err
		}
	}
	m.wait(c.Session)
	return withSummary(m.summaryOf(ctx, c.Session))
}

func (c StopCall) run(ctx context.Context, m *Manager) (Outcome, error) {
	return Outcome{}, m.stopCall(c.Session, c.CallID)
}

func (c Answer) run(ctx context.Context, m *Manager) (Outcome, error) {
	return Outcome{}, m.answer(c.Session, c.Agent, c.CallID, c.Allow, permission.Scope(c.Scope))
}

func (c SetStepping) run(ctx context.Context, m *Manager) (Outcome, error) {
	if err := m.steps.set(ctx, c.Session, c.On); err != nil {
		return Outcome{}, err
	}
	return withSummary(m.summaryOf(ctx, c.Session))
}

func (c SetBreakpoints) run(ctx context.Context, m *Manager) (Outcome, error) {
	if err := m.steps.setBreakpoints(ctx, c.Session, *c.Breakpoints); err != nil {
		return Outcome{}, err
	}
	return withSummary(m.summaryOf(ctx, c.Session))
}

func (c Step) run(ctx context.Context, m *Manager) (Outcome, error) {
	action := trace.ActionStep
	if c.Into {
		action = trace.ActionStepInto
	}
	return Outcome{}, m.steps.goOn(ctx, c.Session, c.At, action, nil)
}

func (c Continue) run(ctx context.Context, m *Manager) (Outcome, error) {
	// Continue lets this run go: the summary, read as the run is let go
	// and before it goes on, says so.
	var sum Summary
	err := m.steps.goOn(ctx, c.Session, c.At, trace.ActionContinue, func() (err error) {
		sum, err = m.summaryOf(ctx, c.Session)
		return err
	})
	return withSummary(sum, err)
}

func (c EditRequest) run(ctx context.Context, m *Manager) (Outcome, error) {
	return Outcome{}, m.steps.do(ctx, c.Session, c.At, agent.Command{Action: agent.ActionEdit, Request: c.Request})
}

func (c EditArgs) run(ctx context.Context, m *Manager) (Outcome, error) {
	// The arguments are checked against the tool's schema again there.
	return Outcome{}, m.steps.do(ctx, c.Session, c.At, agent.Command{Action: agent.ActionEdit, Args: json.RawMessage(c.Args)})
}

func (c Skip) run(ctx context.Context, m *Manager) (Outcome, error) {
	return Outcome{}, m.steps.do(ctx, c.Session, c.At, agent.Command{Action: trace.ActionSkip, Observation: c.Observation})
}

func (c EditResult) run(ctx context.Context, m *Manager) (Outcome, error) {
	content := c.Content
	return Outcome{}, m.steps.do(ctx, c.Session, c.At, agent.Command{Action: agent.ActionEdit, Result: &content})
}

func (c RestoreFiles) run(ctx context.Context, m *Manager) (Outcome, error) {
	return withRestore(m.undo().files(ctx, c.Session, c.Seq, c.Force))
}

func (c UndoRun) run(ctx context.Context, m *Manager) (Outcome, error) {
	return withRestore(m.undo().run(ctx, c.Session, c.Run, c.Force))
}

func (c Compact) run(ctx context.Context, m *Manager) (Outcome, error) {
	cp, err := m.compact(ctx, c.Session)
	if err != nil {
		return Outcome{}, err
	}
	return Outcome{Compaction: &cp}, nil
}

// answer approves or denies the call a session's run asks about, and
// remembers the answer for the scope: once, for the session, or always for
// the workspace.
func (m *Manager) answer(id, agent, callID string, allow bool, scope permission.Scope) error {
	if m.broker == nil {
		return errors.New("nobody can be asked here: the run answers its questions itself")
	}
	return m.broker.Reply(id, agent, callID, allow, scope)
}

// stopCall stops one running call of the session's run (a command that
// takes too long, say) and lets the run go on: the call's result says
// that the user stopped it, with the output so far. A call that is not
// running is refused, and so is a session with no run going here.
func (m *Manager) stopCall(id, callID string) error {
	m.mu.Lock()
	r := m.running[id]
	m.mu.Unlock()
	if r == nil || r.ag == nil {
		return fmt.Errorf("%w: this session has no run going", agent.ErrNotRunning)
	}
	return r.ag.StopCall(callID)
}

// runs reports whether this manager runs the session's run.
func (m *Manager) runs(id string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.running[id]
	return ok
}

// undo is the manager's undo, refused while this process runs the
// session's run.
func (m *Manager) undo() undo {
	return undo{store: m.store, ws: m.ws, sink: m.sink, busy: m.runs}
}
