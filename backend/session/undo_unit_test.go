package session

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/backend/workspace"
)

// The tests of undo on its own: a log written to a real store, the files
// its tool results changed in a real folder, and an undo made of the
// store, the workspaces and a sink, as the manager makes it.

// eventsSeen is a Sink that keeps the events it is given.
type eventsSeen struct {
	mu  sync.Mutex
	evs []trace.Event
}

func (s *eventsSeen) Event(e trace.Event) { s.mu.Lock(); s.evs = append(s.evs, e); s.mu.Unlock() }
func (s *eventsSeen) Delta(agent.Delta)   {}
func (s *eventsSeen) kinds() []trace.Kind {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []trace.Kind
	for _, e := range s.evs {
		out = append(out, e.Kind)
	}
	return out
}

type undoRig struct {
	t    *testing.T
	st   *store.Store
	dir  string
	id   string
	sink *eventsSeen
	busy bool
}

func newUndoRig(t *testing.T) *undoRig {
	st, err := store.Open(filepath.Join(t.TempDir(), "loupe.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	dir := t.TempDir()
	s, err := st.CreateSession(context.Background(), store.Session{Title: "t", Workspace: dir})
	if err != nil {
		t.Fatal(err)
	}
	return &undoRig{t: t, st: st, dir: dir, id: s.ID, sink: &eventsSeen{}}
}

func (r *undoRig) undo() undo {
	return undo{store: r.st, ws: workspace.New(r.st, r.st.Path(), r.t.TempDir()), sink: r.sink, busy: func(string) bool { return r.busy }}
}

func text(s string) *string { return &s }

// append writes an event of run to the log and returns its seq.
func (r *undoRig) append(kind trace.Kind, run int, payload any) int64 {
	r.t.Helper()
	e := trace.New(kind, run, 1, payload)
	e.SessionID = r.id
	e, err := r.st.Append(context.Background(), e)
	if err != nil {
		r.t.Fatal(err)
	}
	return e.Seq
}

// runChanging writes an ended run whose one call changed the files as
// given, and makes the folder hold what the call left.
func (r *undoRig) runChanging(run int, changes ...trace.FileChange) {
	r.t.Helper()
	r.append(trace.KindUserMessage, run, trace.UserMessage{Text: "go"})
	r.append(trace.KindToolResult, run, trace.ToolResult{CallID: "c", Name: "write_file", Content: "ok", Changes: changes})
	r.append(trace.KindRunEnd, run, trace.RunEnd{Reason: trace.EndAnswered, Rounds: 1})
	for _, c := range changes {
		if c.After == nil {
			_ = os.Remove(filepath.Join(r.dir, c.Path))
			continue
		}
		r.write(c.Path, *c.After)
	}
}

func (r *undoRig) write(name, content string) {
	r.t.Helper()
	if err := os.WriteFile(filepath.Join(r.dir, name), []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// file is the file's content, or "(none)".
func (r *undoRig) file(name string) string {
	b, err := os.ReadFile(filepath.Join(r.dir, name))
	if err != nil {
		return "(none)"
	}
	return string(b)
}

func (r *undoRig) lastRestore() trace.Restore {
	r.t.Helper()
	evs, err := r.st.Events(context.Background(), r.id)
	if err != nil {
		r.t.Fatal(err)
	}
	last := evs[len(evs)-1]
	if last.Kind != trace.KindRestore {
		r.t.Fatalf("the log ends with %s, not a restore", last.Kind)
	}
	rec, err := trace.Decode[trace.Restore](last)
	if err != nil {
		r.t.Fatal(err)
	}
	return rec
}

// Undoing a run puts back what it changed and nothing of the runs before;
// undoing the first run then removes the file it created. Each undo is a
// restore event in the log, sent to the sink, with what it wrote.
func TestUndoPutsBackARunsFilesAndRecordsIt(t *testing.T) {
	r := newUndoRig(t)
	ctx := context.Background()
	r.write("a.txt", "one")
	r.runChanging(1, trace.FileChange{Path: "a.txt", Before: text("one"), After: text("two")},
		trace.FileChange{Path: "new.txt", After: text("fresh")})
	r.runChanging(2, trace.FileChange{Path: "a.txt", Before: text("two"), After: text("three")})

	res, err := r.undo().run(ctx, r.id, 2, false)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Done || !reflect.DeepEqual(res.Restored, []string{"a.txt"}) || len(res.Conflicts) != 0 {
		t.Fatalf("undo of run 2 = %+v", res)
	}
	if got := r.file("a.txt") + "|" + r.file("new.txt"); got != "two|fresh" {
		t.Fatalf("after undoing run 2 the files are %q, want run 1's result", got)
	}
	rec := r.lastRestore()
	if rec.Run != 2 || len(rec.Changes) != 1 || *rec.Changes[0].Before != "three" || *rec.Changes[0].After != "two" {
		t.Fatalf("the restore event says %+v", rec)
	}
	if got := r.sink.kinds(); !reflect.DeepEqual(got, []trace.Kind{trace.KindRestore}) {
		t.Fatalf("the sink got %v, want the restore", got)
	}

	if _, err := r.undo().run(ctx, r.id, 1, false); err != nil {
		t.Fatal(err)
	}
	if got := r.file("a.txt") + "|" + r.file("new.txt"); got != "one|(none)" {
		t.Fatalf("after undoing run 1 the files are %q, want a.txt as it was and new.txt gone", got)
	}
	if _, err := r.undo().run(ctx, r.id, 3, false); err == nil || !strings.Contains(err.Error(), "no run 3") {
		t.Fatalf("undo of a run that is not there: %v", err)
	}
}

// A file changed outside Loupe since its last write is a conflict: nothing
// is written until the user says to overwrite it, and then the restore
// says it overwrote it.
func TestUndoAsksBeforeOverwritingAChangeMadeOutsideLoupe(t *testing.T) {
	r := newUndoRig(t)
	ctx := context.Background()
	r.write("a.txt", "one")
	r.runChanging(1, trace.FileChange{Path: "a.txt", Before: text("one"), After: text("two")})
	r.write("a.txt", "edited by hand")

	res, err := r.undo().files(ctx, r.id, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Done || len(res.Conflicts) != 1 || res.Conflicts[0].Path != "a.txt" || res.Conflicts[0].Kept {
		t.Fatalf("undo over a change made outside = %+v, want a conflict on a.txt", res)
	}
	if got := r.file("a.txt"); got != "edited by hand" {
		t.Fatalf("a.txt was written before the user said so: %q", got)
	}
	if got := r.sink.kinds(); len(got) != 0 {
		t.Fatalf("a restore that did nothing was recorded: %v", got)
	}

	if res, err = r.undo().files(ctx, r.id, 1, true); err != nil || !res.Done {
		t.Fatalf("forced undo = %+v, %v", res, err)
	}
	if got := r.file("a.txt"); got != "one" {
		t.Fatalf("a.txt after the forced undo = %q", got)
	}
	if rec := r.lastRestore(); !reflect.DeepEqual(rec.Overwritten, []string{"a.txt"}) || *rec.Changes[0].Before != "edited by hand" {
		t.Fatalf("the restore event says %+v, want a.txt overwritten from what it held", rec)
	}
}

// A file that is now a link is never written through, even when told to
// overwrite: its target keeps its content.
func TestUndoLeavesALinkAlone(t *testing.T) {
	r := newUndoRig(t)
	outside := filepath.Join(t.TempDir(), "target.txt")
	if err := os.WriteFile(outside, []byte("not Loupe's"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.write("a.txt", "one")
	r.runChanging(1, trace.FileChange{Path: "a.txt", Before: text("one"), After: text("two")})
	if err := os.Remove(filepath.Join(r.dir, "a.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(r.dir, "a.txt")); err != nil {
		t.Fatal(err)
	}
	res, err := r.undo().files(context.Background(), r.id, 1, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Conflicts) != 1 || !res.Conflicts[0].Kept || len(res.Restored) != 0 {
		t.Fatalf("undo over a link = %+v, want a.txt kept as it is", res)
	}
	if b, _ := os.ReadFile(outside); string(b) != "not Loupe's" {
		t.Fatalf("undo wrote through the link: the target holds %q", b)
	}
}

// Undo is refused while this process runs the session's run, and while
// the log holds a run that has not ended; it writes nothing then.
func TestUndoIsRefusedWhileARunIsOpen(t *testing.T) {
	r := newUndoRig(t)
	ctx := context.Background()
	r.write("a.txt", "one")
	r.runChanging(1, trace.FileChange{Path: "a.txt", Before: text("one"), After: text("two")})
	r.busy = true
	if _, err := r.undo().run(ctx, r.id, 1, true); err == nil || !strings.Contains(err.Error(), "stop the run") {
		t.Fatalf("undo while the run goes: %v", err)
	}
	r.busy = false
	r.append(trace.KindUserMessage, 2, trace.UserMessage{Text: "more"})
	if _, err := r.undo().run(ctx, r.id, 1, true); err == nil || !strings.Contains(err.Error(), "still open") {
		t.Fatalf("undo while a run is open in the log: %v", err)
	}
	if got := r.file("a.txt"); got != "two" {
		t.Fatalf("a refused undo wrote a.txt: %q", got)
	}
	if got := r.sink.kinds(); len(got) != 0 {
		t.Fatalf("a refused undo recorded %v", got)
	}
}
