package main

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/loupe-dev/loupe/backend/sandbox"
	"github.com/loupe-dev/loupe/backend/session"
)

// Putting files back (Undo, Restore) and a fork's copy of a workspace wait
// until no command runs in a workspace that overlaps the session's, of any
// session (sandbox.Quiet). Another session's long command would keep the
// window's button spinning with nothing said; so the wait says how many it
// waits for on chanFilesWaiting, and StopWaiting ends it.

// chanFilesWaiting carries FilesWaiting.
const chanFilesWaiting = "loupe:files-waiting"

// FilesWaiting says that putting back or copying the files of a session
// waits for Commands commands (of other sessions, or calls of its MCP
// servers) to end in its workspace; 0 once it waits no more.
type FilesWaiting struct {
	Session  string `json:"session"`
	Commands int    `json:"commands"`
}

// fileWaits are the waits under way: each one's stop, by session.
type fileWaits struct {
	mu    sync.Mutex
	stops map[string]map[*context.CancelFunc]bool
}

// waiting gives a context for putting back or copying the files of the
// session id: its wait is told to the window and StopWaiting ends it.
// done lets it go.
func (a *App) waiting(id string) (ctx context.Context, done func()) {
	ctx, cancel := context.WithCancel(a.ctx)
	// A run a fork starts keeps ctx's values (not its end): once done, its
	// own waits (the clean-up after a round) are not this one's.
	var over atomic.Bool
	ctx = sandbox.WithWaitReport(ctx, func(n int) {
		if !over.Load() {
			runtime.EventsEmit(a.ctx, chanFilesWaiting, FilesWaiting{Session: id, Commands: n})
		}
	})
	w, stop := &a.waits, &cancel
	w.mu.Lock()
	if w.stops == nil {
		w.stops = map[string]map[*context.CancelFunc]bool{}
	}
	if w.stops[id] == nil {
		w.stops[id] = map[*context.CancelFunc]bool{}
	}
	w.stops[id][stop] = true
	w.mu.Unlock()
	return ctx, func() {
		w.mu.Lock()
		if delete(w.stops[id], stop); len(w.stops[id]) == 0 {
			delete(w.stops, id)
		}
		w.mu.Unlock()
		over.Store(true)
		cancel()
	}
}

// StopWaiting ends the waits of the session id's Undo, Restore or fork's
// copy for commands to end; each fails then, having changed nothing. It
// reports whether one was under way.
func (a *App) StopWaiting(id string) bool {
	w := &a.waits
	w.mu.Lock()
	defer w.mu.Unlock()
	for stop := range w.stops[id] {
		(*stop)()
	}
	return len(w.stops[id]) > 0
}

// filesOf is the session whose files cmd puts back, if it does.
func filesOf(cmd session.Command) (string, bool) {
	switch c := cmd.(type) {
	case session.UndoRun:
		return c.Session, true
	case session.RestoreFiles:
		return c.Session, true
	}
	return "", false
}
