package main

import (
	"time"

	"github.com/loupe-dev/loupe/backend/session"
)

// The session list's own operations: rename, pin, duplicate, and a
// delete that can be taken back for a few seconds. Each is a thin call
// to the Manager (backend/session/sessionlist.go).

// RenameSession gives a session a name of the user's.
func (a *App) RenameSession(id, title string) (session.Summary, error) {
	return withManager(a, func(m *session.Manager) (session.Summary, error) { return m.Rename(a.ctx, id, title) })
}

// PinSession pins a session on top of the list, or unpins it.
func (a *App) PinSession(id string, on bool) (session.Summary, error) {
	return withManager(a, func(m *session.Manager) (session.Summary, error) { return m.SetPinned(a.ctx, id, on) })
}

// DuplicateSession makes a new session holding a copy of the session's
// log, linked to it (copied_from).
func (a *App) DuplicateSession(id string) (session.Summary, error) {
	return withManager(a, func(m *session.Manager) (session.Summary, error) { return m.Duplicate(a.ctx, id) })
}

// PendingDelete is a delete that UndoDelete can take back until Until.
type PendingDelete struct {
	Session string    `json:"session"`
	Until   time.Time `json:"until"`
}

// DeleteSessionLater deletes a session once UndoDeleteFor has passed, or
// when Loupe closes; until then it is left out of the list and search,
// and UndoDelete brings it back. If Loupe dies meanwhile, it is kept.
func (a *App) DeleteSessionLater(id string) (PendingDelete, error) {
	return withManager(a, func(m *session.Manager) (PendingDelete, error) {
		until, err := m.DeleteLater(a.ctx, id, 0)
		return PendingDelete{Session: id, Until: until}, err
	})
}

// UndoDelete takes back DeleteSessionLater while its time is not up.
func (a *App) UndoDelete(id string) (session.Summary, error) {
	return withManager(a, func(m *session.Manager) (session.Summary, error) { return m.UndoDelete(a.ctx, id) })
}

// CompareSessions puts two sessions side by side, round by round, with
// the first round where they diverge (session.Compare). It reads only.
func (a *App) CompareSessions(first, second string) (session.Comparison, error) {
	return withManager(a, func(m *session.Manager) (session.Comparison, error) { return m.Compare(a.ctx, first, second) })
}

// PreviewFork says what a fork of the session at event at would be (or why
// there is none there): the files changed since, the commands run since,
// where a copy would go. It changes nothing.
func (a *App) PreviewFork(id string, at int64) (session.ForkPreview, error) {
	return withManager(a, func(m *session.Manager) (session.ForkPreview, error) { return m.PreviewFork(a.ctx, id, at) })
}

// ForkSession makes a session whose log is the session's up to an event,
// linked to it, working where the fork says (session.Manager.Fork).
func (a *App) ForkSession(f session.Fork) (session.Forked, error) {
	ctx, done := a.waiting(f.Session)
	defer done()
	return withManager(a, func(m *session.Manager) (session.Forked, error) { return m.Fork(ctx, f) })
}

// RunFromHere is "Run from here on…": a fork in a copy of the workspace,
// on the model the fork names, whose run goes on at once
// (session.Manager.RunFrom).
func (a *App) RunFromHere(f session.Fork) (session.Forked, error) {
	ctx, done := a.waiting(f.Session)
	defer done()
	return withManager(a, func(m *session.Manager) (session.Forked, error) { return m.RunFrom(ctx, f) })
}
