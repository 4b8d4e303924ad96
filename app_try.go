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
