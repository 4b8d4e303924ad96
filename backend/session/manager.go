// Package session owns running sessions: it creates them, starts and stops
// runs, recovers runs the app left open, and answers what the UI and the
// command line ask about them. It is the one place where the store, Ollama,
// the tools and the agent loop are wired together.
package session

import (
	"context"
	"errors"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/demo"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/tools"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/backend/workspace"
)

// Sink receives live updates: committed events and token deltas. The
// window forwards them to the UI, which draws every state of a session
// from them; the command line prints them. Calls come from run goroutines
// and must not block long.
type Sink interface {
	Event(e trace.Event)
	Delta(d agent.Delta)
}

// A Sink with a NoDeltas method takes no deltas (loupe run prints only
// events): its runs stream nothing, and a command's stdout and stderr are
// read through one pipe, in exactly the order they were written, as the
// model reads them.
type quietSink interface{ NoDeltas() }

// Summary is a session as the sidebar shows it: the stored row, with
// whether a run is going, what it waits for, and how it steps.
type Summary struct {
	store.Session
	Running bool `json:"running"`
	// Standing is what the open run waits for, read from its log:
	// trace.StandingPaused, trace.StandingAsking or "". The window keeps
	// it up to date from the events it gets.
	Standing string `json:"standing"`
	// Stepping is on when the session pauses at every checkpoint.
	Stepping    bool        `json:"stepping"`
	Breakpoints Breakpoints `json:"breakpoints"`
}

// Detail is an opened session as the window first gets it: its summary,
// and its log with each event of an ended run cut to the payload a card
// draws (trace.Preview; Payload gives an event whole). Questions waiting
// for the user and a pause are events of the open run, which comes whole.
// The tools a request offered are in its tool_names; their schemas are in
// the body RawRequest rebuilds.
type Detail struct {
	Summary Summary       `json:"summary"`
	Events  []trace.Event `json:"events"`
}

// Manager is safe for concurrent use.
type Manager struct {
	store  *store.Store
	model  *ollama.Client
	broker *permission.Broker
	sink   Sink

	mu      sync.Mutex
	running map[string]*activeRun
	steps   *stepping
	// seen remembers per session what the model last saw of each file,
	// across runs, so edit_file can refuse a file changed since.
	seen   map[string]*tools.Seen
	grants *grants
	ws     *workspace.Workspaces
	// deleting are the sessions DeleteLater will delete, each with its
	// timer (sessionlist.go).
	deleting map[string]*time.Timer
	// demoPace is the wait between the demo model's streamed pieces.
	demoPace time.Duration
	// exports are the finished runs' traces being sent (autoexport.go).
	exports sync.WaitGroup
	// pools are the sessions' MCP servers (mcp_pools.go).
	pools mcpPools
	// costs are Ollama's counts of tool schemas, per host and model.
	costs *ollama.SchemaCosts
}

type activeRun struct {
	cancel context.CancelCauseFunc
	done   chan struct{}
	// ag is the run's agent once it is built (nil while the run is set
	// up, and for a recovery): StopCall reaches its calls through it.
	ag *agent.Agent
}

// NewManager wires a manager. broker may be nil when nobody can be asked
// (headless); sink may be nil.
func NewManager(st *store.Store, oc *ollama.Client, broker *permission.Broker, sink Sink) *Manager {
	if sink == nil {
		sink = nopSink{}
	}
	ws := workspace.New(st, st.Path(), filepath.Dir(store.DefaultPath()))
	m := &Manager{store: st, model: oc, broker: broker, sink: sink, running: map[string]*activeRun{}, seen: map[string]*tools.Seen{},
		grants: newGrants(ws), deleting: map[string]*time.Timer{}, ws: ws, demoPace: demo.DefaultPace, costs: ollama.NewSchemaCosts()}
	m.steps = newStepping(st, m.runs, m.resumePaused)
	return m
}

// SchemaCosts are the schema costs Ollama measured, kept for the app's
// life so a schema is counted once per model.
func (m *Manager) SchemaCosts() *ollama.SchemaCosts { return m.costs }

// Workspaces is the trust, grants and settings of the workspaces the
// manager's sessions run in.
func (m *Manager) Workspaces() *workspace.Workspaces { return m.ws }

type nopSink struct{}

func (nopSink) Event(trace.Event) {}
func (nopSink) Delta(agent.Delta) {}
func (nopSink) NoDeltas()         {}

// summary is a stored session with what is live about it. Where an open
// run stands is read from that run's events.
func (m *Manager) summary(ctx context.Context, s store.Session) (Summary, error) {
	m.mu.Lock()
	_, running := m.running[s.ID]
	m.mu.Unlock()
	sum := Summary{Session: s, Running: running, Breakpoints: Breakpoints{}.normal()}
	if s.OpenRun != 0 {
		evs, err := m.store.RunEvents(ctx, s.ID, s.OpenRun)
		if err != nil {
			return Summary{}, err
		}
		_, waits := trace.Waiting(evs)
		sum.Standing = waits.Standing()
	}
	var err error
	if sum.Stepping, sum.Breakpoints, err = m.steps.state(ctx, s.ID); err != nil {
		return Summary{}, err
	}
	return sum, nil
}

// summaryOf reads a session's summary.
func (m *Manager) summaryOf(ctx context.Context, id string) (Summary, error) {
	s, err := m.store.GetSession(ctx, id)
	if err != nil {
		return Summary{}, err
	}
	return m.summary(ctx, s)
}

// Setup is what a new session is set up with besides its folder and model.
type Setup struct {
	// Host is the Ollama host it runs on: "" or "local" for the local one,
	// a name of Settings' named hosts, or an address. The session keeps it
	// for all its runs.
	Host string
	// Tools are the tools it offers its model (nil: every built-in tool).
	Tools *[]string
}

// create starts a new, empty session on a workspace folder, set up with
// su. The demo given no folder works in a fresh copy of its project.
func (m *Manager) create(ctx context.Context, workspace, model string, su Setup) (Summary, error) {
	workspace, err := workspaceFor(model, workspace)
	if err != nil {
		return Summary{}, err
	}
	ws, err := m.ws.CheckNew(workspace)
	if err != nil {
		return Summary{}, err
	}
	offered, err := offeredTools(su.Tools)
	if err != nil {
		return Summary{}, err
	}
	ref, err := m.hostRef(ctx, su.Host)
	if err != nil {
		return Summary{}, err
	}
	s, err := m.store.CreateSession(ctx, store.Session{Title: "New session", Workspace: ws, Model: model, Tools: offered, Host: ref})
	if err != nil {
		return Summary{}, err
	}
	if err := m.steps.start(ctx, s.ID); err != nil {
		return Summary{}, err
	}
	return m.summary(ctx, s)
}

// CreateWith starts a new session on a workspace folder with the user's
// first message already in its log: the session's row, that message and
// the lease on the run it opens are one transaction
// (store.CreateSessionWith), so a process killed at any moment leaves no
// empty session, and no other process takes the run for a crashed one.
// Run with the same text goes on from that message; release the lease once
// Run has returned (Run takes it over). The window's New makes an empty
// session on purpose: Create.
func (m *Manager) CreateWith(ctx context.Context, workspace, model string, su Setup, text string) (Summary, *store.Lease, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return Summary{}, nil, errors.New("type a message first")
	}
	workspace, err := workspaceFor(model, workspace)
	if err != nil {
		return Summary{}, nil, err
	}
	ws, err := m.ws.CheckNew(workspace)
	if err != nil {
		return Summary{}, nil, err
	}
	offered, err := offeredTools(su.Tools)
	if err != nil {
		return Summary{}, nil, err
	}
	ref, err := m.hostRef(ctx, su.Host)
	if err != nil {
		return Summary{}, nil, err
	}
	first := trace.New(trace.KindUserMessage, 1, 0, trace.UserMessage{Text: text})
	s, e, lease, err := m.store.CreateSessionWith(ctx, store.Session{Title: titleFrom(text), Workspace: ws, Model: model, Tools: offered, Host: ref}, first)
	if err != nil {
		return Summary{}, nil, err
	}
	m.sink.Event(e)
	// No Step mode here, whatever Settings gives new sessions: a
	// headless run has no one to press Step, and would wait for ever.
	sum, err := m.summary(ctx, s)
	if err != nil {
		letGo(lease)
		return Summary{}, nil, err
	}
	return sum, lease, nil
}

// List returns all sessions, the pinned first, then the most recent
// first; a session DeleteLater is about to delete is left out.
func (m *Manager) List(ctx context.Context) ([]Summary, error) {
	ss, err := m.store.ListSessions(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Summary, 0, len(ss))
	for _, s := range ss {
		if m.beingDeleted(s.ID) {
			continue
		}
		sum, err := m.summary(ctx, s)
		if err != nil {
			return nil, err
		}
		out = append(out, sum)
	}
	return out, nil
}

// Open returns a session with its log, each event of a run that ended cut
// to what its card draws (trace.Preview): a long text keeps its start and
// says how long it is whole. The events of a run still open (going, paused
// or waiting for an answer) come whole, as they do live: a pause or a
// question is acted on with what they hold.
func (m *Manager) Open(ctx context.Context, id string) (Detail, error) {
	sum, err := m.summaryOf(ctx, id)
	if err != nil {
		return Detail{}, err
	}
	evs, err := m.store.Events(ctx, id)
	if err != nil {
		return Detail{}, err
	}
	// A log from before edits carried their pause gets it here.
	trace.FillEditPauses(evs)
	ended := 0
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Kind == trace.KindRunEnd {
			ended = i + 1
			break
		}
	}
	for i := range evs[:ended] {
		evs[i] = trace.Preview(evs[i])
	}
	return Detail{Summary: sum, Events: evs}, nil
}

// Search finds the events of every session whose text holds query (see
// store.Search): what the window's search box asks. A query too short to
// search, or only of quotes, is store.ErrQuery with what to type.
// A session DeleteLater is about to delete is left out of the results.
func (m *Manager) Search(ctx context.Context, query string, f store.SearchFilter, limit int) (store.SearchResults, error) {
	res, err := m.store.Search(ctx, query, f, limit)
	if err != nil {
		return res, err
	}
	kept := res.Sessions[:0]
	for _, sh := range res.Sessions {
		if !m.beingDeleted(sh.SessionID) {
			kept = append(kept, sh)
		}
	}
	res.Sessions = kept
	return res, nil
}

// IndexSearch keeps the search index whole until ctx ends: it indexes
// the events written before search existed (store.IndexBacklog), then
// looks every interval for events something other than the store's
// Append put in the log since (an older Loupe still running on the
// file), which the database queues for it. It returns ctx's error, or
// the store's.
func (m *Manager) IndexSearch(ctx context.Context, interval time.Duration) error {
	for {
		if err := m.store.IndexBacklog(ctx, nil); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(interval):
		}
	}
}

// SearchStatus says how many events search covers while the older ones
// are being indexed (IndexSearch, which the window runs).
func (m *Manager) SearchStatus(ctx context.Context) (store.SearchStatus, error) {
	return m.store.SearchStatus(ctx)
}

// Payload returns the payload of a session's event seq exactly as it is
// stored: what the window fetches when an event it got cut is opened. An
// edit written before edits carried their pause comes with it, as Open
// sends it.
func (m *Manager) Payload(ctx context.Context, id string, seq int64) (string, error) {
	e, err := m.store.Event(ctx, id, seq)
	if err != nil {
		return "", err
	}
	if e.Kind == trace.KindEdit && !strings.Contains(string(e.Payload), `"pause":`) {
		// An edit of a log from before edits carried their pause gets it
		// as Open gives it.
		evs, err := m.store.Events(ctx, id)
		if err != nil {
			return "", err
		}
		trace.FillEditPauses(evs)
		if i := int(seq) - 1; i < len(evs) && evs[i].Seq == seq {
			return string(evs[i].Payload), nil
		}
	}
	return string(e.Payload), nil
}

// deleteSession stops a session's run if any and removes it with its log
// (and the demo's copy of its project, when no other session works there).
func (m *Manager) deleteSession(ctx context.Context, id string) error {
	m.stop(id)
	m.wait(id)
	s, err := m.store.GetSession(ctx, id)
	if err != nil {
		return err
	}
	if err := m.store.DeleteSession(ctx, id); err != nil {
		return err
	}
	m.forget(id)
	m.closeMCP(id)
	m.removeDemoCopy(ctx, s.Workspace)
	return nil
}

// forget drops what the Manager keeps in memory for a session that is
// gone: its step gate, what its model last saw of each file, its grants.
func (m *Manager) forget(id string) {
	m.mu.Lock()
	delete(m.seen, id)
	m.mu.Unlock()
	m.steps.forget(id)
	m.grants.forget(id)
}

// setModel changes the model used by the session's next run.
func (m *Manager) setModel(ctx context.Context, id, model string) (Summary, error) {
	if strings.TrimSpace(model) == "" {
		return Summary{}, errors.New("choose a model")
	}
	s, err := m.store.UpdateSession(ctx, id, store.SessionUpdate{Model: &model})
	if err != nil {
		return Summary{}, err
	}
	return m.summary(ctx, s)
}

// stop cancels a session's run, if one is going. Running commands are
// killed with their whole process tree; open calls get "cancelled".
func (m *Manager) stop(id string) bool { return m.StopBy(id, "") }

// StopBy is stop saying who stopped the run ("SIGTERM"), for its log; ""
// is the user (the command line's stop on a signal).
func (m *Manager) StopBy(id, who string) bool {
	m.mu.Lock()
	r := m.running[id]
	m.mu.Unlock()
	if r == nil {
		return false
	}
	var cause error
	if who != "" {
		cause = agent.StoppedBy(who)
	}
	r.cancel(cause)
	return true
}

// wait blocks until the session's run (if any) has ended.
func (m *Manager) wait(id string) {
	m.mu.Lock()
	r := m.running[id]
	m.mu.Unlock()
	if r != nil {
		<-r.done
	}
}

// Close is for Loupe closing: a run paused at a checkpoint is left paused
// (it waits there again when Loupe opens), a working run ends as
// interrupted because Loupe was closed. It waits for them. A session
// DeleteLater left waiting is deleted now. Traces of finished runs still
// being sent get their short while (ExportTimeout).
func (m *Manager) Close() {
	m.cancelAll(agent.ErrClosing)
	m.closeMCP("")
	m.finishDeletes()
	m.WaitExports()
}

func (m *Manager) cancelAll(cause error) {
	m.mu.Lock()
	runs := make([]*activeRun, 0, len(m.running))
	for _, r := range m.running {
		runs = append(runs, r)
	}
	m.mu.Unlock()
	for _, r := range runs {
		r.cancel(cause)
	}
	for _, r := range runs {
		<-r.done
	}
}

// Working lists the sessions whose run is doing something, not waiting
// at a checkpoint: what closing Loupe would interrupt.
func (m *Manager) Working(ctx context.Context) []Summary {
	m.mu.Lock()
	ids := make([]string, 0, len(m.running))
	for id := range m.running {
		ids = append(ids, id)
	}
	m.mu.Unlock()
	var out []Summary
	for _, id := range ids {
		sum, err := m.summaryOf(ctx, id)
		if err == nil && sum.Running && sum.Standing != trace.StandingPaused {
			out = append(out, sum)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Title < out[j].Title })
	return out
}

// seenFor returns the session's file tracker.
func (m *Manager) seenFor(id string) *tools.Seen {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.seen[id]
	if s == nil {
		s = tools.NewSeen()
		m.seen[id] = s
	}
	return s
}
