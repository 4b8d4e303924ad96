package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"strings"
	"sync/atomic"
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
	// Unattended runs with no one to step it (loupe run --continue): it
	// pauses nowhere, and a pause it is restored at goes on at once.
	Unattended bool
	// compact sets up Compact now instead of a run.
	compact bool
}

// Start checks that the run can begin, then runs it in the background.
// start checks that the run can begin, then runs it in the background.
// Errors that stop it from starting (unknown model, Ollama not running,
// busy) come back here, before anything is written to the session.
// It returns the session's summary as the run begins (its title set from
// the first message). An error means no run started: one that comes after
// the checks (the summary could not be read) gives the run up before it
// writes anything, so the window is never told of a failure while a run
// goes on.
func (m *Manager) start(ctx context.Context, id, text string, opt RunOptions) (Summary, error) {
	p, err := m.prepare(ctx, id, text, opt)
	if err != nil {
		return Summary{}, err
	}
	sum, err := m.summaryOf(ctx, id)
	if err != nil {
		p.giveUp()
		return Summary{}, err
	}
	m.inBackground(p)
	return sum, nil
}

// inBackground runs p to its end away from its caller (the window's Send,
// a pause taken up again). The run records how it ends in its log; an
// error it could not record there (the database refused a write) is
// logged, and said on the run as a notice if the database takes that.
func (m *Manager) inBackground(p *prepared) {
	go func() {
		if _, err := p.run(); err != nil && !errors.Is(err, agent.ErrLeftPaused) {
			m.runFailed(p.id, err)
		}
	}()
}

// CodeRunFailed is the notice of a run that stopped on an error its log
// could not hold (see inBackground).
const CodeRunFailed = "run_failed"

// runFailed makes the error a run stopped on visible: in the process's log
// always, and as a notice on the run when it is still open (its end could
// not be written) and the database takes one.
func (m *Manager) runFailed(id string, err error) {
	log.Printf("loupe: session %s: the run stopped: %v", id, err)
	ctx := context.Background()
	s, gerr := m.store.GetSession(ctx, id)
	if gerr != nil || s.OpenRun == 0 {
		return
	}
	round := 0
	if evs, rerr := m.store.RunEvents(ctx, id, s.OpenRun); rerr == nil && len(evs) > 0 {
		round = evs[len(evs)-1].Round
	}
	e := trace.New(trace.KindNotice, s.OpenRun, round, trace.Notice{Code: CodeRunFailed,
		Message: "The run stopped: " + err.Error() + ". What it did until then is above; the next time Loupe opens this database, the run is closed as interrupted."})
	e.SessionID = id
	if _, aerr := (recorder{store: m.store, sink: m.sink}).Append(ctx, e); aerr != nil {
		log.Printf("loupe: session %s: saying so on the run failed too: %v", id, aerr)
	}
}

// giveUp lets go of a prepared run that will not run: its slot, its
// workspace and its lease.
func (p *prepared) giveUp() {
	p.m.release(p.id, p.slot)
	p.ws.Close()
	letGo(p.lease)
}

// letGo releases a run's lease. One whose release failed stays until this
// process exits (another process then recovers the run), and until then
// the session reads as run by this process: the log says why.
func letGo(l *store.Lease) {
	if err := l.Release(); err != nil {
		log.Printf("loupe: session %s: letting go of its run failed, so it reads as running until Loupe exits: %v", l.SessionID, err)
	}
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
	// lease makes this process the run's owner in the database until its
	// run_end is written (see store.TakeLease).
	lease *store.Lease
	// export is where the run's trace goes once it ends (autoexport.go);
	// ended is its run_end once written.
	export settings.OTLPExport
	ended  *atomic.Pointer[trace.Event]
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
	if err := readOnly(s); err != nil {
		return nil, err
	}
	set, err := settings.Load(ctx, m.store)
	if err != nil {
		return nil, err
	}
	if s.Model == "" {
		return nil, errors.New("choose a model for this session first")
	}
	system, err := SystemFor(set, s.Workspace)
	if err != nil {
		return nil, err
	}
	host, err := m.clientFor(ctx, set, s.Host)
	if err != nil {
		return nil, err
	}
	info, err := m.modelInfo(ctx, host, s.Model)
	if err != nil && !resume {
		return nil, host.wrap(err)
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
	policy, runner, notices, err := m.ws.Assemble(ctx, s.Workspace, workspace.Run{Mode: mode, Tools: set.Tools, Rules: set.Rules, Grants: m.grants.of(id)})
	if err != nil {
		return nil, err
	}
	dir := s.Workspace
	cfg := agent.Config{
		SessionID: id,
		Model:     s.Model,
		System:    system.Text,

		Instructions: system.Instructions,
		Host:         requestHost(host, s.Model),
		Options:      llm.Options{NumCtx: ollama.NumCtx(info.ContextLength, set.NumCtxCap), Temperature: set.Temperature},
		MaxRounds:    set.MaxRounds,
		Policy:       policy,

		RecoverTextCalls: set.RecoverTextCalls,
		RepeatLimit:      set.RepeatLimit,
		Compaction:       agent.Compaction{On: set.Compact, AtPercent: set.CompactAtPercent, KeepRounds: set.CompactKeepRounds},
		OnGrant:          func(g permission.Grant) error { return m.grants.keep(id, dir, g) },
		ToolSets:         m.toolSet(id),
	}
	if !resume {
		cfg.StartNotices = append(cfg.StartNotices, notices...)
		if system.Notice != nil {
			cfg.StartNotices = append(cfg.StartNotices, *system.Notice)
		}
	}
	if !info.SupportsTools() {
		cfg.StartNotices = append(cfg.StartNotices, trace.Notice{Code: "no_tools",
			Message: fmt.Sprintf("%s has no tools capability (its template cannot show tools): running as plain chat, no tools sent", s.Model)})
	}
	if info.SupportsThinking() {
		think := true
		cfg.Think = &think
	}
	var gate agent.Pauser
	if opt.Unattended {
		gate = newUnattended()
	} else if gate, err = m.steps.gate(ctx, id); err != nil {
		return nil, err
	}
	ws, err := tools.OpenWorkspace(s.Workspace)
	if err != nil {
		return nil, fmt.Errorf("the workspace folder cannot be opened: %w", err)
	}
	// The file tools work in the folder the commands do: the one judged
	// as the run was assembled, not one a command swapped in since.
	if c, ok := runner.(sandbox.Confined); ok && c.Checked != nil && !ws.Is(c.Checked) {
		ws.Close()
		return nil, fmt.Errorf("the workspace %s changed while the run began (another command replaced it, or made it a link); look at what is there, then send again", s.Workspace)
	}
	ws.Track(m.seenFor(id))
	all := tools.Builtins(ws, runner)
	if set.SubAgents {
		all = tools.WithTask(all)
	}
	var reg *tools.Registry
	_, mcpTools, mcpNotices, err := m.sessionMCP(ctx, id, s.Workspace, runner)
	if err == nil {
		if !resume {
			cfg.StartNotices = append(cfg.StartNotices, mcpNotices...)
		}
		reg, err = withMCP(offering(all, s.Tools), offeredMCP(mcpTools, s.Tools))
	}
	if err != nil {
		ws.Close()
		return nil, err
	}
	// The session's MCP servers outlive the run (see mcp_pools.go).
	release := func() {
		ws.Close()
	}
	if !info.SupportsTools() {
		// Sending tool schemas to a model whose template cannot show them
		// makes Ollama refuse the request; run as plain chat instead.
		reg = reg.Subset()
	}
	// The schemas are stored once per session; requests name them.
	if cfg.ToolSet, err = cfg.ToolSets(ctx, reg.Specs()); err != nil {
		release()
		return nil, err
	}

	m.mu.Lock()
	if _, busy := m.running[id]; busy {
		m.mu.Unlock()
		release()
		return nil, ErrBusy
	}
	runCtx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	slot := &activeRun{cancel: cancel, done: make(chan struct{})}
	m.running[id] = slot
	m.mu.Unlock()

	// The slot keeps this process to one run per session; the lease does
	// so across processes (another window, loupe run), and tells their
	// recovery that this run has an owner.
	lease, err := m.store.TakeLease(ctx, id)
	if err != nil {
		m.release(id, slot)
		release()
		return nil, err
	}
	evs, err := m.store.Events(ctx, id)
	if err == nil && !resume && lease.Orphan {
		// A run whose owner is gone (the lease was taken over) and that
		// no recovery has closed yet: close it before the next begins.
		evs, err = m.closeLeftOpen(ctx, s, evs)
	}
	if err != nil {
		letGo(lease)
		m.release(id, slot)
		release()
		return nil, err
	}
	var onDelta func(agent.Delta)
	if _, quiet := m.sink.(quietSink); !quiet {
		onDelta = m.sink.Delta
	}
	ended := &atomic.Pointer[trace.Event]{}
	ag := agent.New(cfg, agent.Seams{
		Model:    m.chatModel(host, s.Model),
		Recorder: recorder{store: m.store, sink: m.sink, ended: ended},
		Tools:    reg,
		Approver: approver,
		Pauser:   gate,
		Hooks:    hooksFor(set, policy, runner, s.Workspace),
		OnDelta:  onDelta,
	}, evs)
	m.mu.Lock()
	slot.ag = ag
	m.mu.Unlock()
	if !resume && text != "" && (s.Title == "" || s.Title == "New session") {
		title := titleFrom(text)
		if _, err := m.store.UpdateSession(context.Background(), id, store.SessionUpdate{Title: &title}); err != nil {
			// The run does not need its title: it goes on, and says why
			// the session keeps its old one.
			log.Printf("loupe: session %s: its title could not be saved: %v", id, err)
		}
	}
	return &prepared{m: m, id: id, text: text, resume: resume, ag: ag, ctx: runCtx, slot: slot, ws: ws, lease: lease,
		export: set.OTLP(), ended: ended}, nil
}

func (p *prepared) run() (trace.RunEnd, error) {
	m := p.m
	defer m.release(p.id, p.slot)
	defer p.ws.Close()
	// After the run_end: from here on the run needs no owner. If the end
	// could not be written, the run stays open without one, and the next
	// recovery (in any process) closes it.
	defer letGo(p.lease)
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
		if _, uerr := m.store.UpdateSession(context.Background(), p.id, store.SessionUpdate{LastReason: &reason}); uerr != nil {
			log.Printf("loupe: session %s: how its run ended could not be saved: %v", p.id, uerr)
		}
	}
	if e := p.ended.Load(); e != nil && p.export.On() {
		// Sent away from the run, which neither waits for it nor fails
		// with it.
		m.exportRun(p.id, *e, p.export)
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
	// A command waiting for this run to pause is answered now.
	m.steps.ended(id)
}

// Recover deals with every run left open by a process that is gone (this
// app when it last exited, a killed loupe run), so each session reopens
// with a valid history: a run paused at a checkpoint waits there again, in
// this process; any other gets "interrupted (app exited)" results for its
// open calls and a run_end. A run whose owner lives (another window, a
// loupe run at work) is left alone: its lease says so (store.TakeLease).
// Only sessions with an open run are looked at (the store keeps which those
// are); their logs are read, no others.
func (m *Manager) Recover(ctx context.Context) error {
	return m.recover(ctx, true)
}

// CloseCrashed is Recover for the command line, which has no one to show a
// pause to: it closes the runs whose owner is gone and leaves a paused one
// paused (and without an owner), for the window to resume.
func (m *Manager) CloseCrashed(ctx context.Context) error {
	return m.recover(ctx, false)
}

func (m *Manager) recover(ctx context.Context, resumePaused bool) error {
	// The scratch folders of commands a killed Loupe was running.
	sandbox.RemoveLeftovers()
	ss, err := m.store.OpenSessions(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, s := range ss {
		if err := m.recoverOne(ctx, s, resumePaused); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// recoverOne recovers the session's open run if its owner is gone. The
// take-over is one transaction (TakeLease), so of two processes recovering
// at once only one closes the run; the log is read after it, so what is
// closed is what the log holds then.
func (m *Manager) recoverOne(ctx context.Context, s store.Session, resumePaused bool) error {
	m.mu.Lock()
	if _, busy := m.running[s.ID]; busy {
		m.mu.Unlock()
		return nil // this manager runs it
	}
	slot := &activeRun{cancel: func(error) {}, done: make(chan struct{})}
	m.running[s.ID] = slot
	m.mu.Unlock()
	held := true
	defer func() {
		if held {
			m.release(s.ID, slot)
		}
	}()

	lease, err := m.store.TakeLease(ctx, s.ID)
	if errors.Is(err, store.ErrLeaseHeld) || errors.Is(err, store.ErrNotFound) {
		return nil // a live owner's run, or a session deleted since
	}
	if err != nil {
		return err
	}
	defer letGo(lease)
	if lease.OpenRun == 0 {
		return nil // closed since the list was read
	}
	evs, err := m.store.Events(ctx, s.ID)
	if err != nil {
		return err
	}
	if st := trace.StateOf(evs); st.Open && st.Paused != nil {
		if !resumePaused {
			return nil
		}
		// The resumed run takes the lease again (this process holds it,
		// so no other can take it in between) and holds it until its end.
		held = false
		m.release(s.ID, slot)
		p, err := m.setUp(ctx, s.ID, "", true, RunOptions{})
		if err != nil {
			// The window shows the log: say it there, and what to do.
			why := trace.Notice{Code: "cannot_resume", Message: "This run stays paused but cannot go on: " + err.Error() +
				". Put that right and press Step or Continue to try again, or Stop to end the run."}
			e := trace.New(trace.KindNotice, st.Run, st.Round, why)
			e.SessionID = s.ID
			if _, rerr := (recorder{store: m.store, sink: m.sink}).Append(ctx, e); rerr != nil {
				return errors.Join(err, rerr)
			}
			return fmt.Errorf("session %s stays paused but cannot resume: %w", s.ID, err)
		}
		m.inBackground(p)
		return nil
	}
	_, err = m.closeLeftOpen(ctx, s, evs)
	return err
}

// resumePaused takes on a run the log says is paused that no process runs
// (its restore at start-up failed, or has not got there yet), so that it
// waits at its checkpoint again.
func (m *Manager) resumePaused(ctx context.Context, id string) error {
	if err := m.store.HeldElsewhere(ctx, id); err != nil {
		return err
	}
	p, err := m.setUp(ctx, id, "", true, RunOptions{})
	if err != nil {
		return err
	}
	m.inBackground(p)
	return nil
}

// endLeftPaused is Stop for a run the log says is paused that no process
// runs: it ends it as stopped by the user. A session with no such run is
// left as it is.
func (m *Manager) endLeftPaused(ctx context.Context, id string) error {
	s, err := m.store.GetSession(ctx, id)
	if err != nil || s.OpenRun == 0 {
		return err
	}
	lease, err := m.store.TakeLease(ctx, id)
	if err != nil {
		return err
	}
	defer letGo(lease)
	evs, err := m.store.Events(ctx, id)
	if err != nil {
		return err
	}
	ag := agent.New(agent.Config{SessionID: id}, agent.Seams{Recorder: recorder{store: m.store, sink: m.sink}}, evs)
	_, err = ag.StopLeftPaused(ctx)
	return err
}

// closeLeftOpen closes the open run of a session whose owner is gone (the
// caller holds its lease): the files its unfinished writes left are
// removed, its open calls get "interrupted (app exited)" results, and it
// gets a run_end. A paused run is not closed: it is resumed (Recover). The
// closed run is a finished run like another: its trace goes where Settings
// sends finished runs (autoexport.go). It returns the log as it is
// afterwards.
func (m *Manager) closeLeftOpen(ctx context.Context, s store.Session, evs []trace.Event) ([]trace.Event, error) {
	st := trace.StateOf(evs)
	if !st.Open {
		return evs, nil
	}
	if st.Paused != nil {
		return nil, fmt.Errorf("session %s is paused in a Loupe that has exited; open Loupe again to go on from that pause", s.ID)
	}
	m.removePartialWrites(ctx, s.Workspace, evs)
	ended := &atomic.Pointer[trace.Event]{}
	ag := agent.New(agent.Config{SessionID: s.ID}, agent.Seams{Recorder: recorder{store: m.store, sink: m.sink, ended: ended}}, evs)
	if _, err := ag.Recover(ctx); err != nil {
		return nil, err
	}
	reason := trace.EndInterrupted
	if _, err := m.store.UpdateSession(ctx, s.ID, store.SessionUpdate{LastReason: &reason}); err != nil {
		log.Printf("loupe: session %s: how its run ended could not be saved: %v", s.ID, err)
	}
	if e := ended.Load(); e != nil {
		m.exportClosed(ctx, s.ID, *e)
	}
	return m.store.Events(ctx, s.ID)
}

// removePartialWrites removes the temporary files that the file writes of
// a crashed run, those with no result, may have left in the workspace.
func (m *Manager) removePartialWrites(ctx context.Context, ws string, evs []trace.Event) {
	root, err := m.ws.Hands(ctx, ws)
	if err != nil {
		return // the folder is gone: so are the files
	}
	defer root.Close()
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
			tools.RemovePartialWrites(root, args.Path)
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
	// ended, when set, gets the run_end once it is written.
	ended *atomic.Pointer[trace.Event]
}

func (r recorder) Append(ctx context.Context, e trace.Event) (trace.Event, error) {
	e, err := r.store.Append(ctx, e)
	if err != nil {
		return e, err
	}
	r.written(e)
	return e, nil
}

// written shows a committed event live and notes a run's end.
func (r recorder) written(e trace.Event) {
	if r.ended != nil && e.Kind == trace.KindRunEnd {
		r.ended.Store(&e)
	}
	r.sink.Event(e)
}

// AppendSoon commits without waiting for the disk (store.AppendSoon): the
// loop's next durable event takes it there.
func (r recorder) AppendSoon(ctx context.Context, e trace.Event) (trace.Event, error) {
	e, err := r.store.AppendSoon(ctx, e)
	if err != nil {
		return e, err
	}
	r.written(e)
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
