package session

import (
	"context"

	"github.com/loupe-dev/loupe/backend/trace"
)

// compact is Compact now: between runs, the model summarises the
// session's older turns and the next run sends the summary instead. It
// takes the session's run slot and lease while the model writes, so a
// message sent meanwhile waits its turn (ErrBusy), and Stop ends it. It
// returns when the compaction is recorded, or why there was none.
func (m *Manager) compact(ctx context.Context, id string) (trace.Compaction, error) {
	if err := m.store.HeldElsewhere(ctx, id); err != nil {
		return trace.Compaction{}, err
	}
	p, err := m.setUp(ctx, id, "", false, RunOptions{compact: true})
	if err != nil {
		return trace.Compaction{}, err
	}
	defer m.release(p.id, p.slot)
	defer p.ws.Close()
	defer letGo(p.lease)
	return p.ag.Compact(p.ctx)
}
