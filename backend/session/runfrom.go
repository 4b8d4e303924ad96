package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/loupe-dev/loupe/backend/trace"
)

// RunFrom is "Run from here on…": the rest of a task run on another model,
// in a copy of the workspace, as one action. It forks f (always with its
// files copied as they were at the fork point, so the parent's folder is
// left alone) and goes on at once from where the fork waits, the run left
// to itself as Continue leaves it. A point where the run has ended has no
// rest to run, and is refused before anything is made. A fork whose run
// could not start is still made: it is returned with the error, and waits
// where it stands for Continue.
func (m *Manager) RunFrom(ctx context.Context, f Fork) (Forked, error) {
	if f.Model == "" {
		return Forked{}, errors.New("choose the model to run the rest of the task on")
	}
	p, err := m.PreviewFork(ctx, f.Session, f.At)
	if err != nil {
		return Forked{}, err
	}
	if p.Problem != "" {
		return Forked{}, fmt.Errorf("no fork at event %d: %s; nothing was made", f.At, p.Problem)
	}
	if p.Pause == "" {
		return Forked{}, fmt.Errorf("the run has ended at event %d, so there is nothing of it left to run: fork there and send a message, or run from an earlier event (the task's message runs the whole task); nothing was made", f.At)
	}
	f.Files = FilesCopy
	made, err := m.Fork(ctx, f)
	if err != nil {
		return Forked{}, err
	}
	evs, err := m.store.Events(ctx, made.Summary.ID)
	if err != nil {
		return made, err
	}
	st := trace.StateOf(evs)
	if st.Paused == nil {
		return made, fmt.Errorf("the fork %s was made but does not wait at a pause, so it did not start", made.Summary.ID)
	}
	out, err := m.Do(ctx, Continue{Session: made.Summary.ID, At: st.PausedSeq})
	if err != nil {
		return made, fmt.Errorf("the fork %s was made, but its run did not start: %w; Continue starts it", made.Summary.ID, err)
	}
	if out.Summary != nil {
		made.Summary = *out.Summary
	}
	return made, nil
}
