package session

import (
	"context"
	"log"
	"strings"

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/demo"
	"github.com/loupe-dev/loupe/backend/ollama"
)

// Which model answers a session: Ollama's, or the built-in demo (package
// demo), which needs no Ollama. Everything else about a run (tools,
// permissions, the log) is the same for both.

// demoInfo is what the demo says about itself, as Ollama's /api/show
// would about a model: it can use tools, and has a context length.
var demoInfo = ollama.ModelInfo{Name: demo.Name, Family: "scripted", Capabilities: []string{"completion", "tools"}, ContextLength: demo.ContextLength}

// modelInfo describes the session's model: the demo's own, or what the
// session's Ollama host says.
func (m *Manager) modelInfo(ctx context.Context, host onHost, name string) (ollama.ModelInfo, error) {
	if demo.Is(name) {
		return demoInfo, nil
	}
	return host.client.Show(ctx, name)
}

// chatModel is the model a run talks to. The demo streams at a pace a
// person can follow, unless nobody watches the pieces (loupe run).
func (m *Manager) chatModel(host onHost, name string) agent.Model {
	if !demo.Is(name) {
		return host.model()
	}
	m.mu.Lock()
	pace := m.demoPace
	m.mu.Unlock()
	if _, quiet := m.sink.(quietSink); quiet {
		pace = 0
	}
	return demo.Model{Pace: pace}
}

// workspaceFor is the folder a new session works in: the one given, or,
// for the demo given none, a fresh copy of its project.
func workspaceFor(model, dir string) (string, error) {
	if demo.Is(model) && strings.TrimSpace(dir) == "" {
		return demo.NewWorkspace()
	}
	return dir, nil
}

// removeDemoCopy removes a folder the demo copied its project into, once
// no session works in it any more: it is Loupe's scratch, not the user's.
// Any other folder is left alone.
func (m *Manager) removeDemoCopy(ctx context.Context, dir string) {
	if !demo.IsCopy(dir) {
		return
	}
	ss, err := m.store.ListSessions(ctx)
	if err != nil {
		return // when in doubt, keep it: the system cleans its temporary folder
	}
	for _, s := range ss {
		if s.Workspace == dir {
			return
		}
	}
	if err := demo.RemoveCopy(dir); err != nil {
		// The copy stays in the temporary folder, which the system
		// cleans; the log says where, for whoever looks for the space.
		log.Printf("loupe: the demo's copy %s could not be removed: %v", dir, err)
	}
}

// startDemo is the window's "Try the demo": a session of the demo on a
// fresh copy of its project, in Step mode (it is there to be stepped
// through), with its task sent. It returns the session's summary as the
// run begins; the run pauses before its first request.
func (m *Manager) startDemo(ctx context.Context) (Summary, error) {
	s, err := m.create(ctx, "", demo.Name, Setup{})
	if err != nil {
		return Summary{}, err
	}
	if err := m.steps.set(ctx, s.ID, true); err != nil {
		return Summary{}, err
	}
	return m.start(ctx, s.ID, demo.Task, RunOptions{})
}

// requestHost is what each model_request records as where it went: the
// session's host, or nothing for the demo, which asks no server.
func requestHost(host onHost, model string) func() (name, url string) {
	if demo.Is(model) {
		return nil
	}
	return host.where
}
