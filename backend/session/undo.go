package session

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/loupe-dev/loupe/backend/hands"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/backend/workspace"
)

// Conflict is a file that changed outside Loupe since Loupe last wrote it:
// putting it back would lose that change, so the user is asked first.
// Kept is set when undo will not write it even when told to overwrite:
// it is now a link or not a regular file (writing it would write what it
// points at), or it is a protected path (.git/config, hooks, .loupe/,
// Loupe's database), which Loupe never changes on its own.
type Conflict struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
	Kept   bool   `json:"kept,omitempty"`
}

// maxRestoreBytes bounds the read of a file's current content: the tools
// never write a larger one, so a larger file changed outside Loupe.
const maxRestoreBytes = 16 << 20

// RestoreResult says what a restore did, or, when Done is false, which
// files need the user's yes before anything is written.
type RestoreResult struct {
	Done      bool       `json:"done"`
	Restored  []string   `json:"restored"`
	Conflicts []Conflict `json:"conflicts"`
}

// undo puts the files a session's tools changed back as they were, from
// the contents before and after that each tool_result keeps, and records
// what it did as a restore event.
type undo struct {
	store *store.Store
	ws    *workspace.Workspaces
	sink  Sink
	// busy says whether this process runs the session's run now.
	busy func(id string) bool
}

// files puts every file the session's tools changed at or after event
// toSeq back as it was before that event. Files changed outside Loupe
// since are reported as conflicts and left alone unless force.
func (u undo) files(ctx context.Context, id string, toSeq int64, force bool) (RestoreResult, error) {
	return u.restore(ctx, id, toSeq, 0, force)
}

// run puts files back as they were before run (a "turn": one message and
// everything the agent did for it). Changes made after that run are
// undone too.
func (u undo) run(ctx context.Context, id string, run int, force bool) (RestoreResult, error) {
	evs, err := u.store.Events(ctx, id)
	if err != nil {
		return RestoreResult{}, err
	}
	if seq, ok := trace.RunStart(evs, run); ok {
		return u.restore(ctx, id, seq, run, force)
	}
	return RestoreResult{}, fmt.Errorf("session %s has no run %d", id, run)
}

func (u undo) restore(ctx context.Context, id string, toSeq int64, run int, force bool) (RestoreResult, error) {
	if u.busy(id) {
		return RestoreResult{}, errors.New("stop the run before restoring files")
	}
	// Nor while another process (a second window, loupe run) runs it.
	lease, err := u.store.TakeLease(ctx, id)
	if err != nil {
		return RestoreResult{}, err
	}
	defer letGo(lease)
	s, err := u.store.GetSession(ctx, id)
	if err != nil {
		return RestoreResult{}, err
	}
	evs, err := u.store.Events(ctx, id)
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
	// Every read and write goes through the layer that follows no link
	// and refuses protected paths: a command of a later turn may have
	// turned a file undo puts back into a link to .git/config.
	root, err := u.ws.Hands(ctx, s.Workspace)
	if errors.Is(err, workspace.ErrStoppedWaiting) {
		return RestoreResult{}, err // the user's choice, said as it is
	}
	if err != nil {
		return RestoreResult{}, fmt.Errorf("the workspace folder cannot be opened: %w", err)
	}
	defer root.Close()

	res := RestoreResult{Restored: []string{}, Conflicts: []Conflict{}}
	kept := map[string]bool{}
	keep := func(p string, why error) {
		kept[p] = true
		res.Conflicts = append(res.Conflicts, Conflict{Path: p, Reason: keptReason(why), Kept: true})
	}
	for _, f := range plan {
		if pat, ok := root.Protected(f.Path); ok {
			keep(f.Path, &hands.ProtectedError{Path: f.Path, Pattern: pat})
			continue
		}
		cur, exists, err := root.ReadFile(f.Path, maxRestoreBytes)
		if isKept(err) {
			keep(f.Path, err)
			continue
		}
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
		if kept[p] {
			continue
		}
		change, err := putBack(root, f)
		if err == nil {
			res.Restored = append(res.Restored, p)
			rec.Changes = append(rec.Changes, change)
			continue
		}
		if isKept(err) {
			// It changed into a link (or the like) since the check.
			keep(p, err)
			continue
		}
		return res, fmt.Errorf("restoring %s: %w (files before it in this list were restored: %v)", p, err, res.Restored)
	}
	res.Done = true
	rec.Restored = res.Restored
	for _, c := range res.Conflicts {
		if !c.Kept {
			rec.Overwritten = append(rec.Overwritten, c.Path)
		}
	}
	e := trace.New(trace.KindRestore, lastRun(evs), 0, rec)
	e.SessionID = id
	if _, err := (recorder{store: u.store, sink: u.sink}).Append(ctx, e); err != nil {
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

// isKept reports whether err is one that undo answers by leaving the file
// alone: something not a regular file in the way, a protected path, a file
// too large for Loupe to have written.
func isKept(err error) bool {
	var fe *hands.FoundError
	var pe *hands.ProtectedError
	var te *hands.TooLargeError
	return errors.As(err, &fe) || errors.As(err, &pe) || errors.As(err, &te)
}

// keptReason says what undo found instead of the file it wrote, and that
// it leaves it as it is.
func keptReason(err error) string {
	var fe *hands.FoundError
	var pe *hands.ProtectedError
	switch {
	case errors.As(err, &fe):
		// "notes.txt is a symbolic link to .git/config" said of a file
		// undo wrote: it is so now.
		return fe.Path + " is now a " + strings.TrimPrefix(fe.Error(), fe.Path+" is a ") + "; not restored"
	case errors.As(err, &pe):
		return fmt.Sprintf("%s is protected (%s): undo never changes it; not restored", pe.Path, pe.Pattern)
	}
	return err.Error() + "; not restored"
}

// putBack writes f's earlier content (or removes the file) inside its
// folder, opened once: what it reads for the record and what it changes
// are the same entry of the same folder.
func putBack(root *hands.Root, f trace.FileRestore) (trace.FileChange, error) {
	change := trace.FileChange{Path: f.Path, After: f.Before}
	d, name, err := root.OpenParent(f.Path)
	if errors.Is(err, fs.ErrNotExist) {
		if f.Before == nil {
			return change, nil // its folder is gone: so is the file
		}
		name = path.Base(f.Path)
		d, err = root.MkdirAll(path.Dir(f.Path))
	}
	if err != nil {
		return change, err
	}
	defer d.Close()
	cur, _, err := d.ReadFile(name, maxRestoreBytes)
	switch {
	case err == nil:
		s := string(cur)
		change.Before = &s
	case !errors.Is(err, fs.ErrNotExist):
		return change, err
	}
	if f.Before == nil {
		return change, d.RemoveFile(name)
	}
	return change, d.WriteFile(name, []byte(*f.Before), 0o644)
}
