// Package session owns running sessions: it creates them, starts and stops
// runs, recovers runs the app left open, and answers what the UI and the
// command line ask about them. It is the one place where the store, Ollama,
// the tools and the agent loop are wired together.
package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/tools"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/backend/workspace"
)

// Sink receives live updates: committed events, token deltas and session
// state changes. The window forwards them to the UI; the command line
// prints them. Calls come from run goroutines and must not block long.
type Sink interface {
	Event(e trace.Event)
	Delta(d agent.Delta)
	Session(s Summary)
}

// Summary is a session as the sidebar shows it.
type Summary struct {
	ID         string    `json:"id"`
	Title      string    `json:"title"`
	Workspace  string    `json:"workspace"`
	Model      string    `json:"model"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
	LastReason string    `json:"last_reason"`
	EventCount int       `json:"event_count"`
	Running    bool      `json:"running"`
	// Stepping is on when the session pauses at every checkpoint.
	Stepping    bool        `json:"stepping"`
	Breakpoints Breakpoints `json:"breakpoints"`
	// Paused is where the session's run waits, or nil.
	Paused *Pause `json:"paused"`
}

// Detail is an opened session as the window first gets it: its summary,
// its log with each event of an ended run cut to the payload a card draws
// (trace.Preview; Payload gives an event whole) and its open questions. The tools a
// request offered are in its tool_names; their schemas are in the body
// RawRequest rebuilds.
type Detail struct {
	Summary   Summary              `json:"summary"`
	Events    []trace.Event        `json:"events"`
	Approvals []permission.Request `json:"approvals"`
}

// Manager is safe for concurrent use.
type Manager struct {
	store  *store.Store
	model  *ollama.Client
	broker *permission.Broker
	sink   Sink

	mu      sync.Mutex
	running map[string]*activeRun
	gates   map[string]*stepGate
	// seen remembers per session what the model last saw of each file,
	// across runs, so edit_file can refuse a file changed since.
	seen map[string]*tools.Seen
	// grants are the answers given "for this session".
	grants map[string][]permission.Grant
	ws     *workspace.Workspaces
}

type activeRun struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// NewManager wires a manager. broker may be nil when nobody can be asked
// (headless); sink may be nil.
func NewManager(st *store.Store, oc *ollama.Client, broker *permission.Broker, sink Sink) *Manager {
	if sink == nil {
		sink = nopSink{}
	}
	return &Manager{store: st, model: oc, broker: broker, sink: sink, running: map[string]*activeRun{}, gates: map[string]*stepGate{}, seen: map[string]*tools.Seen{}, grants: map[string][]permission.Grant{},
		ws: workspace.New(st, st.Path(), filepath.Dir(store.DefaultPath()))}
}

// Workspaces is the trust, grants and settings of the workspaces the
// manager's sessions run in.
func (m *Manager) Workspaces() *workspace.Workspaces { return m.ws }

type nopSink struct{}

func (nopSink) Event(trace.Event) {}
func (nopSink) Delta(agent.Delta) {}
func (nopSink) Session(Summary)   {}

func (m *Manager) summary(s store.Session) Summary {
	m.mu.Lock()
	_, running := m.running[s.ID]
	m.mu.Unlock()
	sum := summaryOf(s)
	sum.Running = running
	if g, err := m.gateFor(context.Background(), s.ID); err == nil {
		sum.Stepping, sum.Breakpoints, sum.Paused = g.state()
	}
	return sum
}

// summaryOf is a stored session's summary, before anything live (a run, a
// pause, its stepping) is added.
func summaryOf(s store.Session) Summary {
	return Summary{ID: s.ID, Title: s.Title, Workspace: s.Workspace, Model: s.Model, CreatedAt: s.CreatedAt,
		UpdatedAt: s.UpdatedAt, LastReason: s.LastReason, EventCount: s.EventCount, Breakpoints: Breakpoints{}.normal()}
}

// Create starts a new, empty session on a workspace folder.
func (m *Manager) Create(ctx context.Context, workspace, model string) (Summary, error) {
	ws, err := m.ws.CheckNew(workspace)
	if err != nil {
		return Summary{}, err
	}
	s, err := m.store.CreateSession(ctx, store.Session{Title: "New session", Workspace: ws, Model: model})
	if err != nil {
		return Summary{}, err
	}
	return m.summary(s), nil
}

// List returns all sessions, most recent first.
func (m *Manager) List(ctx context.Context) ([]Summary, error) {
	ss, err := m.store.ListSessions(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Summary, len(ss))
	for i, s := range ss {
		out[i] = m.summary(s)
	}
	return out, nil
}

// Open returns a session with its log, each event of a run that ended cut
// to what its card draws (trace.Preview): a long text keeps its start and
// says how long it is whole. The events of a run still open (going, paused
// or waiting for an answer) come whole, as they do live: a pause or a
// question is acted on with what they hold.
func (m *Manager) Open(ctx context.Context, id string) (Detail, error) {
	s, err := m.store.GetSession(ctx, id)
	if err != nil {
		return Detail{}, err
	}
	evs, err := m.store.Events(ctx, id)
	if err != nil {
		return Detail{}, err
	}
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
	d := Detail{Summary: m.summary(s), Events: evs, Approvals: []permission.Request{}}
	if m.broker != nil {
		d.Approvals = append(d.Approvals, m.broker.Pending(id)...)
	}
	if d.Events == nil {
		d.Events = []trace.Event{}
	}
	return d, nil
}

// Payload returns the payload of a session's event seq exactly as it is
// stored: what the window fetches when an event it got cut is opened.
func (m *Manager) Payload(ctx context.Context, id string, seq int64) (string, error) {
	e, err := m.store.Event(ctx, id, seq)
	if err != nil {
		return "", err
	}
	return string(e.Payload), nil
}

// Delete stops a session's run if any and removes it with its log.
func (m *Manager) Delete(ctx context.Context, id string) error {
	m.Stop(id)
	m.Wait(id)
	return m.store.DeleteSession(ctx, id)
}

// SetModel changes the model used by the session's next run.
func (m *Manager) SetModel(ctx context.Context, id, model string) error {
	if strings.TrimSpace(model) == "" {
		return errors.New("choose a model")
	}
	_, err := m.store.UpdateSession(ctx, id, store.SessionUpdate{Model: &model})
	return err
}

// Settings returns the saved settings, or the defaults.
func (m *Manager) Settings(ctx context.Context) (Settings, error) {
	s := DefaultSettings()
	if _, err := m.store.GetSetting(ctx, settingsKey, &s); err != nil {
		return DefaultSettings(), err
	}
	if s.Tools == nil {
		s.Tools = map[string]permission.ToolSetting{}
	}
	if s.Rules == nil {
		s.Rules = []permission.Rule{}
	}
	return s, nil
}

// SaveSettings validates and stores the settings.
func (m *Manager) SaveSettings(ctx context.Context, s Settings) error {
	if err := s.Validate(); err != nil {
		return err
	}
	return m.store.PutSetting(ctx, settingsKey, s)
}

// RawRequest rebuilds the exact body that was sent to Ollama for the
// model_request event seq, with the same functions that built it: the log
// up to the request replayed into a history, and the request's tool set.
func (m *Manager) RawRequest(ctx context.Context, id string, seq int64) (string, error) {
	evs, err := m.store.Events(ctx, id)
	if err != nil {
		return "", err
	}
	i := sort.Search(len(evs), func(i int) bool { return evs[i].Seq >= seq })
	if i == len(evs) || evs[i].Seq != seq || evs[i].Kind != trace.KindModelRequest {
		return "", fmt.Errorf("session %s has no model request %d", id, seq)
	}
	mr, err := trace.Decode[trace.ModelRequest](evs[i])
	if err != nil {
		return "", err
	}
	var specs []llm.ToolSpec
	if mr.ToolSet != 0 {
		sets, err := toolSets(ctx, m.store, id)
		if err != nil {
			return "", err
		}
		var ok bool
		if specs, ok = sets[mr.ToolSet]; !ok {
			return "", fmt.Errorf("session %s has no tool set %d (named by request %d)", id, mr.ToolSet, seq)
		}
	}
	req, err := trace.Rebuild(evs, i, specs)
	if err != nil {
		return "", err
	}
	b, err := ollama.EncodeChatRequest(req)
	return string(b), err
}

// toolSets returns a session's stored tool sets by id.
func toolSets(ctx context.Context, st *store.Store, id string) (map[int][]llm.ToolSpec, error) {
	raw, err := st.ToolSets(ctx, id)
	if err != nil {
		return nil, err
	}
	out := make(map[int][]llm.ToolSpec, len(raw))
	for k, b := range raw {
		var specs []llm.ToolSpec
		if err := json.Unmarshal(b, &specs); err != nil {
			return nil, fmt.Errorf("session %s: tool set %d: %w", id, k, err)
		}
		out[k] = specs
	}
	return out, nil
}

// Stop cancels a session's run, if one is going. Running commands are
// killed with their whole process tree; open calls get "cancelled".
func (m *Manager) Stop(id string) bool {
	m.mu.Lock()
	r := m.running[id]
	m.mu.Unlock()
	if r == nil {
		return false
	}
	r.cancel()
	return true
}

// Wait blocks until the session's run (if any) has ended.
func (m *Manager) Wait(id string) {
	m.mu.Lock()
	r := m.running[id]
	m.mu.Unlock()
	if r != nil {
		<-r.done
	}
}

// StopAll cancels every run and waits for them, for shutdown.
func (m *Manager) StopAll() {
	m.mu.Lock()
	runs := make([]*activeRun, 0, len(m.running))
	for _, r := range m.running {
		runs = append(runs, r)
	}
	m.mu.Unlock()
	for _, r := range runs {
		r.cancel()
	}
	for _, r := range runs {
		<-r.done
	}
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
