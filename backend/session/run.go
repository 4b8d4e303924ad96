package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/sandbox"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/tools"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/backend/workspace"
)

// ErrBusy is returned when a session already has a run going.
var ErrBusy = errors.New("this session is already running; wait for it or press Stop")

// RunOptions adjust one run.
type RunOptions struct {
	// Approver answers permission questions; nil means the manager's
	// broker (the UI), or "deny" when there is none.
	Approver agent.Approver
	// Mode overrides the saved permission mode when set.
	Mode permission.Mode
}

// Start checks that the run can begin, then runs it in the background.
// Errors that stop it from starting (unknown model, Ollama not running,
// busy) come back here, before anything is written to the session.
// It returns the session's summary as the run begins (its title set from
// the first message).
func (m *Manager) Start(ctx context.Context, id, text string, opt RunOptions) (Summary, error) {
	p, err := m.prepare(ctx, id, text, opt)
	if err != nil {
		return Summary{}, err
	}
	sum, err := m.summaryOf(ctx, id)
	go func() {
		_, _ = p.run()
	}()
	return sum, err
}

// Run checks and runs to the end, returning how the run ended.
func (m *Manager) Run(ctx context.Context, id, text string, opt RunOptions) (trace.RunEnd, error) {
	p, err := m.prepare(ctx, id, text, opt)
	if err != nil {
		return trace.RunEnd{}, err
	}
	return p.run()
}

// prepared is a run that passed its checks and holds its session's slot.
type prepared struct {
	m      *Manager
	id     string
	text   string
	resume bool
	ag     *agent.Agent
	ctx    context.Context
	slot   *activeRun
	ws     *tools.Workspace
}

func (m *Manager) prepare(ctx context.Context, id, text string, opt RunOptions) (*prepared, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, errors.New("type a message first")
	}
	return m.setUp(ctx, id, text, false, opt)
}

// setUp checks the session, its model and workspace, takes the session's
// run slot and builds the agent. A resumed run (paused when the app last
// exited) does not need Ollama to be up until it sends a request.
func (m *Manager) setUp(ctx context.Context, id, text string, resume bool, opt RunOptions) (*prepared, error) {
	s, err := m.store.GetSession(ctx, id)
	if err != nil {
		return nil, err
	}
	set, err := settings.Load(ctx, m.store)
	if err != nil {
		return nil, err
	}
	if s.Model == "" {
		return nil, errors.New("choose a model for this session first")
	}
	system, err := set.PromptFor(s.Workspace)
	if err != nil {
		return nil, err
	}
	info, err := m.model.Show(ctx, s.Model)
	if err != nil && !resume {
		return nil, err
	}
	if err != nil {
		// Resuming a pause: assume what the model could do before.
		info = ollama.ModelInfo{Name: s.Model, Capabilities: []string{"completion", "tools"}}
	}
	mode := set.PermissionMode
	if opt.Mode != "" {
		mode = opt.Mode
	}
	approver := opt.Approver
	if approver == nil {
		approver = m.approver()
	}
	policy, runner, notices, err := m.ws.Assemble(ctx, s.Workspace, workspace.Run{Mode: mode, Tools: set.Tools, Rules: set.Rules, Grants: m.sessionGrants(id)})
	if err != nil {
		return nil, err
	}
	dir := s.Workspace
	cfg := agent.Config{
		SessionID: id,
		Model:     s.Model,
		System:    system,
		Options:   llm.Options{NumCtx: ollama.NumCtx(info.ContextLength, set.NumCtxCap), Temperature: set.Temperature},
		MaxRounds: set.MaxRounds,
		Policy:    policy,
		OnGrant:   func(g permission.Grant) { m.keepGrant(id, dir, g) },
	}
	if !resume {
		cfg.StartNotices = append(cfg.StartNotices, notices...)
	}
	if !info.SupportsTools() {
		cfg.StartNotices = append(cfg.StartNotices, trace.Notice{Code: "no_tools",
			Message: fmt.Sprintf("%s has no tools capability (its template cannot show tools): running as plain chat, no tools sent", s.Model)})
	}
	if info.SupportsThinking() {
		think := true
		cfg.Think = &think
	}
	gate, err := m.gateFor(ctx, id)
	if err != nil {
		return nil, err
	}
	ws, err := tools.OpenWorkspace(s.Workspace)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", s.Workspace, err)
	}
	ws.Track(m.seenFor(id))
	reg := tools.Builtins(ws, runner)
	if !info.SupportsTools() {
		// Sending tool schemas to a model whose template cannot show them
		// makes Ollama refuse the request; run as plain chat instead.
		reg = reg.Subset()
	}
	if specs := reg.Specs(); len(specs) > 0 {
		// The schemas are stored once per session; requests name them.
		b, err := json.Marshal(specs)
		if err == nil {
			cfg.ToolSet, err = m.store.PutToolSet(ctx, id, b)
		}
		if err != nil {
			ws.Close()
			return nil, err
		}
	}

	m.mu.Lock()
	if _, busy := m.running[id]; busy {
		m.mu.Unlock()
		ws.Close()
		return nil, ErrBusy
	}
	runCtx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	slot := &activeRun{cancel: cancel, done: make(chan struct{})}
	m.running[id] = slot
	m.mu.Unlock()

	evs, err := m.store.Events(ctx, id)
	if err != nil {
		m.release(id, slot)
		ws.Close()
		return nil, err
	}
	ag := agent.New(cfg, agent.Seams{
		Model:    m.model,
		Recorder: recorder{store: m.store, sink: m.sink},
		Tools:    reg,
		Approver: approver,
		Pauser:   gate,
		OnDelta:  m.sink.Delta,
	}, evs)
	if !resume && (s.Title == "" || s.Title == "New session") {
		title := titleFrom(text)
		_, _ = m.store.UpdateSession(context.Background(), id, store.SessionUpdate{Title: &title})
	}
	return &prepared{m: m, id: id, text: text, resume: resume, ag: ag, ctx: runCtx, slot: slot, ws: ws}, nil
}

func (p *prepared) run() (trace.RunEnd, error) {
	m := p.m
	defer m.release(p.id, p.slot)
	defer p.ws.Close()
	var end trace.RunEnd
	var err error
	if p.resume {
		end, err = p.ag.Resume(p.ctx)
	} else {
		end, err = p.ag.Run(p.ctx, p.text)
	}
	if err != nil && !errors.Is(err, agent.ErrLeftPaused) {
		// The store sets last_reason from the run_end event; a run that
		// could not write its end still shows how it ended. A run left
		// paused when Loupe closed has not ended.
		reason := trace.EndError
		_, _ = m.store.UpdateSession(context.Background(), p.id, store.SessionUpdate{LastReason: &reason})
	}
	return end, err
}

func (m *Manager) release(id string, slot *activeRun) {
	m.mu.Lock()
	if m.running[id] == slot {
		delete(m.running, id)
	}
	m.mu.Unlock()
	slot.cancel(nil)
	close(slot.done)
	m.mu.Lock()
	g := m.gates[id]
	m.mu.Unlock()
	if g != nil {
		// A command waiting for this run to pause is answered now.
		g.poke()
	}
}

// Recover deals with every run the app left open when it last exited, so
// each session reopens with a valid history: a run paused at a checkpoint
// waits there again; any other gets "interrupted (app exited)" results for
// its open calls and a run_end. Only sessions with an open run are looked
// at (the store keeps which those are); their logs are read, no others.
func (m *Manager) Recover(ctx context.Context) error {
	// The scratch folders of commands a killed Loupe was running.
	sandbox.RemoveLeftovers()
	ss, err := m.store.OpenSessions(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, s := range ss {
		evs, err := m.store.Events(ctx, s.ID)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		st := trace.StateOf(evs)
		switch {
		case !st.Open:
		case st.Paused != nil:
			p, err := m.setUp(ctx, s.ID, "", true, RunOptions{})
			if err != nil {
				errs = append(errs, fmt.Errorf("session %s stays paused but cannot resume: %w", s.ID, err))
				continue
			}
			go func() { _, _ = p.run() }()
		default:
			removePartialWrites(s.Workspace, evs)
			ag := agent.New(agent.Config{SessionID: s.ID}, agent.Seams{Recorder: recorder{store: m.store, sink: m.sink}}, evs)
			if _, err := ag.Recover(ctx); err != nil {
				errs = append(errs, err)
				continue
			}
			reason := trace.EndInterrupted
			_, _ = m.store.UpdateSession(ctx, s.ID, store.SessionUpdate{LastReason: &reason})
		}
	}
	return errors.Join(errs...)
}

// removePartialWrites removes the temporary files that the file writes of
// a crashed run, those with no result, may have left in the workspace.
func removePartialWrites(ws string, evs []trace.Event) {
	answered := map[string]bool{}
	for _, e := range evs {
		if e.Kind == trace.KindToolResult {
			if r, err := trace.Decode[trace.ToolResult](e); err == nil {
				answered[r.CallID] = true
			}
		}
	}
	for _, e := range evs {
		if e.Kind != trace.KindToolCall {
			continue
		}
		c, err := trace.Decode[trace.ToolCall](e)
		if err != nil || answered[c.CallID] || (c.Name != "write_file" && c.Name != "edit_file") {
			continue
		}
		var args struct {
			Path string `json:"path"`
		}
		if json.Unmarshal(c.Args, &args) == nil && args.Path != "" {
			tools.RemovePartialWrites(ws, args.Path)
		}
	}
}

func (m *Manager) approver() agent.Approver {
	if m.broker == nil {
		return DenyAll{Why: "rule: no one to ask"}
	}
	return brokerApprover{m.broker}
}

type brokerApprover struct{ b *permission.Broker }

func (a brokerApprover) Approve(ctx context.Context, r permission.Request, asked func() error) (permission.Answer, error) {
	return a.b.Request(ctx, r, asked)
}

// DenyAll answers every question with no; the command line uses it when
// --auto is not given.
type DenyAll struct{ Why string }

func (d DenyAll) Approve(context.Context, permission.Request, func() error) (permission.Answer, error) {
	return permission.Answer{Allow: false, By: d.Why}, nil
}

// recorder commits events to the store and then shows them live.
type recorder struct {
	store *store.Store
	sink  Sink
}

func (r recorder) Append(ctx context.Context, e trace.Event) (trace.Event, error) {
	e, err := r.store.Append(ctx, e)
	if err != nil {
		return e, err
	}
	r.sink.Event(e)
	return e, nil
}

func titleFrom(text string) string {
	line := strings.TrimSpace(strings.SplitN(text, "\n", 2)[0])
	if utf8.RuneCountInString(line) > 60 {
		r := []rune(line)
		line = string(r[:60]) + "…"
	}
	return line
}
