package session

import (
	"context"
	"time"
)

// What the package's tests drive directly besides Do, the command the
// window sends: the manager's exported surface is only what the window's
// bridge (App) and the command line call.

// Create starts a new, empty session on the local Ollama host.
func (m *Manager) Create(ctx context.Context, workspace, model string) (Summary, error) {
	return m.create(ctx, workspace, model, Setup{})
}

// CreateSetUp is Create with a host and a choice of tools.
func (m *Manager) CreateSetUp(ctx context.Context, workspace, model string, su Setup) (Summary, error) {
	return m.create(ctx, workspace, model, su)
}

// Start is the window's Send: the run goes on in the background.
func (m *Manager) Start(ctx context.Context, id, text string, opt RunOptions) (Summary, error) {
	return m.start(ctx, id, text, opt)
}

func (m *Manager) Delete(ctx context.Context, id string) error { return m.deleteSession(ctx, id) }

func (m *Manager) SetModel(ctx context.Context, id, model string) (Summary, error) {
	return m.setModel(ctx, id, model)
}

func (m *Manager) Stop(id string) bool { return m.stop(id) }

// Wait blocks until the session's run (if any) has ended.
func (m *Manager) Wait(id string) { m.wait(id) }

// StopAll stops every run as Stop does, and waits for them.
func (m *Manager) StopAll() { m.cancelAll(nil); m.closeMCP("") }

// SetDemoPace sets the wait between the demo's streamed pieces (0: none).
func (m *Manager) SetDemoPace(d time.Duration) {
	m.mu.Lock()
	m.demoPace = d
	m.mu.Unlock()
}

// SetCopyMargin sets what a fork's copy leaves free on its disk, for the
// test.
func SetCopyMargin(t interface{ Cleanup(func()) }, n int64) {
	old := copyMargin
	copyMargin = n
	t.Cleanup(func() { copyMargin = old })
}
