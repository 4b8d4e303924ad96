package main

import (
	"context"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/loupe-dev/loupe/backend/session"
)

// "Try this request on…": the bound methods that reach session.Manager.Try.

// chanTry carries the alternative answer's text as it streams
// (session.TryDelta), named by the try's ID.
const chanTry = "loupe:try"

// TryRequest sends a recorded request again (as recorded, or edited, to
// another model, temperature, num_ctx or host) and returns its answer
// beside the recorded one, compared. The text streams on chanTry; CancelTry
// stops it. Nothing of the session changes.
func (a *App) TryRequest(t session.Try) (session.TryResult, error) {
	return withManager(a, func(m *session.Manager) (session.TryResult, error) {
		return a.tries.Run(a.ctx, t.ID, func(ctx context.Context) (session.TryResult, error) {
			return m.Try(ctx, t, func(d session.TryDelta) { runtime.EventsEmit(a.ctx, chanTry, d) })
		})
	})
}

// CancelTry stops the try id; false when none was under way.
func (a *App) CancelTry(id string) bool { return a.tries.Cancel(id) }

// AdoptTry keeps a try: a fork of its session whose log holds the request
// as the try sent it and the try's answer, going on with the try's model
// and host (session.Manager.Adopt). The tried session does not change.
func (a *App) AdoptTry(t session.Adopt) (session.Forked, error) {
	return withManager(a, func(m *session.Manager) (session.Forked, error) { return m.Adopt(a.ctx, t) })
}
