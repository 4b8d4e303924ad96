package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/loupe-dev/loupe/backend/tools"
	"github.com/loupe-dev/loupe/backend/trace"
)

// Conflict is a file that changed outside Loupe since Loupe last wrote it:
// putting it back would lose that change, so the user is asked first.
type Conflict struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// RestoreResult says what a restore did, or, when Done is false, which
// files need the user's yes before anything is written.
type RestoreResult struct {
	Done      bool       `json:"done"`
	Restored  []string   `json:"restored"`
	Conflicts []Conflict `json:"conflicts"`
}

// RestoreFiles puts every file the session's tools changed at or after
// event toSeq back as it was before that event. Files changed outside
// Loupe since are reported as conflicts and left alone unless force.
func (m *Manager) RestoreFiles(ctx context.Context, id string, toSeq int64, force bool) (RestoreResult, error) {
	return m.restore(ctx, id, toSeq, 0, force)
}

// UndoRun puts files back as they were before run (a "turn": one message
// and everything the agent did for it). Changes made after that run are
// undone too.
func (m *Manager) UndoRun(ctx context.Context, id string, run int, force bool) (RestoreResult, error) {
	evs, err := m.store.Events(ctx, id)
	if err != nil {
		return RestoreResult{}, err
	}
	if seq, ok := trace.RunStart(evs, run); ok {
		return m.restore(ctx, id, seq, run, force)
	}
	return RestoreResult{}, fmt.Errorf("session %s has no run %d", id, run)
}

func (m *Manager) restore(ctx context.Context, id string, toSeq int64, run int, force bool) (RestoreResult, error) {
	m.mu.Lock()
	_, busy := m.running[id]
	m.mu.Unlock()
	if busy {
		return RestoreResult{}, errors.New("stop the run before restoring files")
	}
	// Nor while another process (a second window, loupe run) runs it.
	lease, err := m.store.TakeLease(ctx, id)
	if err != nil {
		return RestoreResult{}, err
	}
	defer letGo(lease)
	s, err := m.store.GetSession(ctx, id)
	if err != nil {
		return RestoreResult{}, err
	}
	evs, err := m.store.Events(ctx, id)
	if err != nil {
		return RestoreResult{}, err
	}
	if toSeq < 1 || toSeq > int64(len(evs)) {
		return RestoreResult{}, fmt.Errorf("session %s has no event %d to restore files to", id, toSeq)
	}
	if st := trace.StateOf(evs); st.Open {
		// A run left paused (no process runs it): going on from its
		// pause would find the files changed under it.
		return RestoreResult{}, errors.New("this session's run is still open: Continue or Stop it before restoring files")
	}
	plan, err := trace.RestorePlan(evs, toSeq)
	if err != nil {
		return RestoreResult{}, err
	}
	ws, err := tools.OpenWorkspace(s.Workspace)
	if err != nil {
		return RestoreResult{}, fmt.Errorf("the workspace folder cannot be opened: %w", err)
	}
	defer ws.Close()

	res := RestoreResult{Restored: []string{}, Conflicts: []Conflict{}}
	for _, f := range plan {
		cur, exists, err := ws.ReadFile(f.Path)
		if err != nil {
			return RestoreResult{}, err
		}
		if reason := f.Conflict(cur, exists); reason != "" {
			res.Conflicts = append(res.Conflicts, Conflict{Path: f.Path, Reason: reason})
		}
	}
	if len(res.Conflicts) > 0 && !force {
		return res, nil
	}
	rec := trace.Restore{ToSeq: toSeq, Run: run}
	for _, f := range plan {
		p := f.Path
		cur, exists, _ := ws.ReadFile(p)
		change := trace.FileChange{Path: p, After: f.Before}
		if exists {
			s := string(cur)
			change.Before = &s
		}
		if f.Before == nil {
			err = ws.RemoveFile(p)
		} else {
			err = ws.WriteFile(p, []byte(*f.Before))
		}
		if err != nil {
			return res, fmt.Errorf("restoring %s: %w (files before it in this list were restored: %v)", p, err, res.Restored)
		}
		res.Restored = append(res.Restored, p)
		rec.Changes = append(rec.Changes, change)
	}
	res.Done = true
	rec.Restored = res.Restored
	for _, c := range res.Conflicts {
		rec.Overwritten = append(rec.Overwritten, c.Path)
	}
	e := trace.New(trace.KindRestore, lastRun(evs), 0, rec)
	e.SessionID = id
	if _, err := (recorder{store: m.store, sink: m.sink}).Append(ctx, e); err != nil {
		return res, err
	}
	return res, nil
}

func lastRun(evs []trace.Event) int {
	if len(evs) == 0 {
		return 0
	}
	return evs[len(evs)-1].Run
}
