package session

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"unicode/utf8"

	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/backend/workspace"
)

// Fork is what a fork is made with: the session and the event it forks at
// (its log is the parent's up to and including At), and what the fork
// goes on with. Empty fields keep the parent's.
type Fork struct {
	Session string `json:"session"`
	At      int64  `json:"at"`
	// Model and Host are the fork's model and Ollama host ("": the
	// parent's).
	Model string `json:"model,omitempty"`
	Host  string `json:"host,omitempty"`
	// Tools are the tools the fork offers (nil: the parent's).
	Tools *[]string `json:"tools,omitempty"`
	// Files says where the fork works: FilesHere (the parent's folder as
	// it is now) or FilesCopy (a new folder holding the workspace as it
	// was at the fork point, restored from the snapshots).
	Files string `json:"files,omitempty"`
	// Folder is the new folder of a FilesCopy ("": next to the
	// workspace, named after it). It must not exist yet.
	Folder string `json:"folder,omitempty"`
	// Answer, when set, is the answer to the request At names, in place
	// of the one the parent got (At must be a model_request): a fork that
	// adopts another model's answer to the same request.
	Answer *trace.ModelResponse `json:"-"`
}

// Where a fork works.
const (
	FilesHere = "here"
	FilesCopy = "copy"
)

// Forked is what a fork made: the new session and what was done with the
// files.
type Forked struct {
	Summary Summary   `json:"summary"`
	Files   ForkFiles `json:"files"`
}

// ForkFiles says where a fork works and what its files are against the
// fork point, from the snapshots the tool results keep (each changed
// file's content before and after).
type ForkFiles struct {
	Workspace string `json:"workspace"`
	Copy      bool   `json:"copy"`
	// Changed are the files the tools changed after the fork point, which
	// a fork in the same folder finds as they are now.
	Changed []string `json:"changed"`
	// Restored are the files a copy holds as they were at the fork point;
	// NotRestored those it could not put back, each with why (the
	// snapshots cannot say what it held then, or what is there now is no
	// file); NotCopied what the copy of the folder left out.
	Restored    []FileNote `json:"restored"`
	NotRestored []FileNote `json:"not_restored"`
	NotCopied   []FileNote `json:"not_copied"`
	// Commands are the commands that ran after the fork point (the seq
	// of each result): what they changed is in no snapshot, so a copy
	// holds it as it is now.
	Commands []int64 `json:"commands"`
	// leaveOut is what a copy leaves out (forkhide.go).
	leaveOut map[string]bool
}

// FileNote is one file and what happened to it.
type FileNote struct {
	Path string `json:"path"`
	Note string `json:"note"`
}

// ForkPreview is what the fork dialog shows before a fork: whether the
// point can be forked at, the files changed since it, the commands run
// since, and where a copy would go.
type ForkPreview struct {
	At int64 `json:"at"`
	// Problem is why there is no fork at At ("": there is one).
	Problem   string   `json:"problem,omitempty"`
	Workspace string   `json:"workspace"`
	Changed   []string `json:"changed"`
	Commands  []int64  `json:"commands"`
	// CopyFolder is where "A copy as it was then" goes unless told.
	CopyFolder string `json:"copy_folder"`
	// Pause is where the fork waits when it is made ("": it waits for a
	// message).
	Pause string `json:"pause,omitempty"`
}

// PreviewFork says what a fork of session id at event at would be, changing
// nothing.
func (m *Manager) PreviewFork(ctx context.Context, id string, at int64) (ForkPreview, error) {
	s, err := m.store.GetSession(ctx, id)
	if err != nil {
		return ForkPreview{}, err
	}
	evs, err := m.store.Events(ctx, id)
	if err != nil {
		return ForkPreview{}, err
	}
	p := ForkPreview{At: at, Workspace: s.Workspace, Changed: []string{}, Commands: []int64{}}
	stand, err := trace.ForkPoint(evs, at)
	if err != nil {
		p.Problem = err.Error()
		return p, nil
	}
	if stand.Pause != nil {
		p.Pause = stand.Pause.Point
	} else if st := trace.StateOf(evs[:at]); st.Paused != nil {
		p.Pause = st.Paused.Point
	}
	plan := planFiles(evs, at)
	p.Changed, p.Commands = plan.changed(), plan.commands
	p.CopyFolder, _ = nextFree(s.Workspace, at)
	return p, nil
}

// Fork makes a session whose log is session f.Session's up to and
// including event f.At, copied byte for byte (store.Fork), linked to it
// (ForkedFrom, ForkSeq), and set to go on with f's model, host and tools in
// the folder f.Files says. A fork point in the middle of a run makes the
// fork wait at the checkpoint the loop reaches next (trace.ForkPoint),
// recorded as its first event of its own; a point at a pause keeps the
// pause with the edits made there, which the fork sends when it goes on.
// A point inside an unfinished step, a parent whose folder is gone, a
// copy folder that exists: each is refused with why, and nothing is
// made. Nothing of the parent is ever written.
func (m *Manager) Fork(ctx context.Context, f Fork) (Forked, error) {
	parent, err := m.store.GetSession(ctx, f.Session)
	if err != nil {
		return Forked{}, err
	}
	evs, err := m.store.Events(ctx, f.Session)
	if err != nil {
		return Forked{}, err
	}
	if f.Answer == nil {
		return m.fork(ctx, parent, f, evs, evs, nil)
	}
	// The adopted answer takes the place of the parent's: the log is the
	// parent's through the request, then this answer.
	if f.At < 1 || f.At > int64(len(evs)) || evs[f.At-1].Kind != trace.KindModelRequest {
		return Forked{}, fmt.Errorf("an answer is adopted at the request it answers: event %d is not a request to the model", f.At)
	}
	a := *f.Answer
	a.RequestSeq = f.At
	req := evs[f.At-1]
	ans := trace.New(trace.KindModelResponse, req.Run, req.Round, a)
	ans.Seq = f.At + 1
	then := []trace.Event{ans}
	return m.fork(ctx, parent, f, evs, append(evs[:f.At:f.At], ans), then)
}

// fork makes the fork f of parent, whose log is evs: the fork's log is
// the parent's through event f.At, then the events then (their seqs from
// f.At+1 on), and it waits where trace.ForkPoint says of standOn at its
// last of them (standOn is evs for a fork at one of the parent's events,
// the fork's own log when it adds events of its own). Its files are the
// parent's at f.At. Fork and Adopt make theirs with it.
func (m *Manager) fork(ctx context.Context, parent store.Session, f Fork, evs, standOn []trace.Event, then []trace.Event) (Forked, error) {
	through := f.At
	at := through + int64(len(then))
	stand, err := trace.ForkPoint(standOn, at)
	if err != nil {
		return Forked{}, fmt.Errorf("no fork at event %d of “%s”: %w; nothing was made", through, parent.Title, err)
	}
	model := parent.Model
	if f.Model != "" {
		model = f.Model
	}
	c := store.Copy{Title: forkTitle(parent.Title, through), Through: through, Model: model, Then: then}
	if f.Host != "" {
		if c.Host, err = m.hostRef(ctx, f.Host); err != nil {
			return Forked{}, err
		}
		// "local" is a host too: a fork of a session on another goes on
		// here.
		c.SetHost = true
	}
	if f.Tools != nil {
		if c.Tools, err = offeredTools(f.Tools); err != nil {
			return Forked{}, err
		}
		c.SetTools = true
	}
	// The parent's folder is where the fork works, or what it copies:
	// one that is gone is said before anything is made.
	root, err := m.ws.Hands(ctx, parent.Workspace)
	if errors.Is(err, workspace.ErrStoppedWaiting) {
		return Forked{}, fmt.Errorf("%w; no fork was made", err)
	}
	if err != nil {
		return Forked{}, fmt.Errorf("the folder of “%s” (%s) cannot be opened (%v): a fork works in it or in a copy of it, so nothing was made", parent.Title, parent.Workspace, err)
	}
	defer root.Close()
	plan := planFiles(evs, f.At)
	files := ForkFiles{Workspace: parent.Workspace, Changed: plan.changed(), Restored: []FileNote{}, NotRestored: []FileNote{}, NotCopied: []FileNote{}, Commands: plan.commands}
	var made *madeCopy
	switch f.Files {
	case "", FilesHere:
	case FilesCopy:
		files.leaveOutOf(parent.Workspace, m.ws.Hidden())
		if made, err = copyWorkspace(root, parent.Workspace, f.Folder, through, &files); err != nil {
			return Forked{}, err
		}
		if err := plan.restore(made.root, &files); err != nil {
			made.remove()
			return Forked{}, err
		}
		if files.Workspace, err = m.ws.CheckNew(made.dir); err != nil {
			made.remove()
			return Forked{}, err
		}
		if err := m.ws.Inherit(ctx, parent.Workspace, files.Workspace); err != nil {
			made.remove()
			return Forked{}, err
		}
		files.Copy = true
		c.Workspace = files.Workspace
	default:
		return Forked{}, fmt.Errorf("a fork works %q (the folder as it is now) or %q (a copy as it was then), not %q", FilesHere, FilesCopy, f.Files)
	}
	if stand.Pause != nil {
		c.Then = append(slices.Clip(c.Then), trace.New(trace.KindCheckpoint, stand.Run, stand.Round, *stand.Pause))
	}
	child, err := m.store.Fork(ctx, f.Session, c)
	if made != nil {
		if err != nil {
			made.remove()
		} else {
			made.close()
		}
	}
	if err != nil {
		return Forked{}, err
	}
	sum, err := m.summary(ctx, child)
	if err != nil {
		return Forked{}, err
	}
	return Forked{Summary: sum, Files: files}, nil
}

// forkTitle names a fork after its parent and the event, within MaxTitle.
func forkTitle(title string, at int64) string {
	if title == "" {
		title = "Untitled session"
	}
	suffix := fmt.Sprintf(" (fork at %d)", at)
	if r := []rune(title); len(r)+utf8.RuneCountInString(suffix) > MaxTitle {
		title = string(r[:MaxTitle-utf8.RuneCountInString(suffix)])
	}
	return title + suffix
}

// errForkFolder is a copy folder that cannot be made.
var errForkFolder = errors.New("the copy's folder cannot be made")

// defaultCopyName is the name of a copy of workspace ws for a fork at at.
func defaultCopyName(ws string, at int64, n int) string {
	name := fmt.Sprintf("%s-fork-%d", filepath.Base(ws), at)
	if n > 1 {
		name += fmt.Sprintf("-%d", n)
	}
	return filepath.Join(filepath.Dir(ws), name)
}

// Summary is session id as the session list shows it.
func (m *Manager) Summary(ctx context.Context, id string) (Summary, error) {
	return m.summaryOf(ctx, id)
}
