package session_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

// exported is a session as loupe export --format json writes it.
func exported(t *testing.T, h *harness, id string) (raw []byte, ex session.Exported) {
	t.Helper()
	var b bytes.Buffer
	if err := session.Export(context.Background(), h.st, id, "json", &b); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b.Bytes(), &ex); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), ex
}

// eventJSON is an exported event as JSON, its session left out (the one
// field that names whose log it is).
func eventJSON(t *testing.T, e trace.Event) string {
	t.Helper()
	e.SessionID = ""
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func sessionCount(t *testing.T, h *harness) int {
	t.Helper()
	l, err := h.m.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return len(l)
}

// A fork at every event of a session: where the point is inside an
// unfinished step (a request without its answer yet, a call allowed and
// running) it is refused, naming where the step finished; everywhere else
// the fork's log up to the point is the parent's, event for event and
// byte for byte as exported, and the parent's export does not change.
// Then a fork after a tool result goes on with another model.
func TestForkEqualsTheParentUpToTheForkPoint(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	h.srv.AddModel(ollamatest.ModelSpec{Name: "other:1b", ContextLength: 8192})
	ctx := context.Background()
	h.srv.Script(
		calls(call("call_1", "list_dir", `{"path":"."}`), call("call_2", "read_file", `{"path":"notes.txt"}`)),
		calls(call("call_3", "write_file", `{"path":"a.txt","content":"one\n"}`)),
		ollamatest.Text("Done."),
	)
	h.run("Look around and write a.txt")
	parentRaw, parent := exported(t, h, h.id)
	evs := parent.Events

	var afterResult int64
	readOnly := map[string]bool{}
	for _, e := range evs {
		if e.Kind == trace.KindToolCall {
			c, _ := trace.Decode[trace.ToolCall](e)
			readOnly[c.CallID] = c.ReadOnly
		}
	}
	refused := 0
	for _, e := range evs {
		n := sessionCount(t, h)
		f, err := h.m.Fork(ctx, session.Fork{Session: h.id, At: e.Seq})
		var unfinished *trace.UnfinishedError
		wantRefused := e.Kind == trace.KindModelRequest
		if e.Kind == trace.KindPermission {
			p, _ := trace.Decode[trace.Permission](e)
			// A call that only reads runs again in the fork; one that
			// writes was running, and what it did is not in the log yet.
			wantRefused = p.Decision == trace.Allow && !readOnly[p.CallID]
		}
		if wantRefused {
			if !errors.As(err, &unfinished) || unfinished.Done <= e.Seq || !strings.Contains(err.Error(), "nothing was made") {
				t.Fatalf("fork at %d (%s): %v, want it refused as unfinished with where it finished", e.Seq, e.Kind, err)
			}
			if sessionCount(t, h) != n {
				t.Fatalf("a refused fork at %d made a session", e.Seq)
			}
			refused++
			continue
		}
		if err != nil {
			t.Fatalf("fork at %d (%s): %v", e.Seq, e.Kind, err)
		}
		if f.Summary.ForkedFrom != h.id || f.Summary.ForkSeq != e.Seq || f.Files.Workspace != h.ws || f.Files.Copy {
			t.Fatalf("fork at %d: %+v %+v", e.Seq, f.Summary.Session, f.Files)
		}
		_, child := exported(t, h, f.Summary.ID)
		if int64(len(child.Events)) < e.Seq {
			t.Fatalf("fork at %d holds %d events", e.Seq, len(child.Events))
		}
		for i := int64(0); i < e.Seq; i++ {
			if a, b := eventJSON(t, evs[i]), eventJSON(t, child.Events[i]); a != b {
				t.Fatalf("fork at %d: event %d differs:\nparent %s\nfork   %s", e.Seq, i+1, a, b)
			}
		}
		// What the fork adds is at most its pause; it is never a second
		// answer or result.
		if extra := child.Events[e.Seq:]; len(extra) > 1 || (len(extra) == 1 && extra[0].Kind != trace.KindCheckpoint) {
			t.Fatalf("fork at %d added %d events: %+v", e.Seq, len(extra), extra)
		}
		if st := trace.StateOf(child.Events); st.Open != (st.Paused != nil) {
			t.Fatalf("fork at %d is open without a pause to wait at: %+v", e.Seq, st)
		}
		if e.Kind == trace.KindToolResult && afterResult == 0 {
			afterResult = e.Seq
		}
	}
	if raw, _ := exported(t, h, h.id); !bytes.Equal(raw, parentRaw) {
		t.Fatalf("forking changed the parent's export")
	}
	if refused != 4 { // three requests and the write's decision
		t.Fatalf("%d fork points refused, want 4", refused)
	}

	// The fork after the first result goes on with another model: the
	// second call of that answer runs in it, then the next request goes
	// to the model the fork chose.
	f, err := h.m.Fork(ctx, session.Fork{Session: h.id, At: afterResult, Model: "other:1b"})
	if err != nil {
		t.Fatal(err)
	}
	p := waitPaused(t, h.m, f.Summary.ID)
	if p.Point != trace.PointAfterResult || p.CallID != "call_1" {
		t.Fatalf("the fork after call_1's result waits at %+v", p.Checkpoint)
	}
	before := len(h.srv.Requests())
	h.srv.Script(ollamatest.Text("Forked answer."))
	if _, err := h.m.Do(ctx, session.Continue{Session: f.Summary.ID, At: p.Seq}); err != nil {
		t.Fatal(err)
	}
	h.m.Wait(f.Summary.ID)
	waitFor(t, func() bool {
		s, _ := h.st.GetSession(ctx, f.Summary.ID)
		return s.OpenRun == 0
	}, "the fork's run to end")
	_, child := exported(t, h, f.Summary.ID)
	invariants.Check(t, child.Events)
	reqs := h.srv.Requests()[before:]
	if len(reqs) != 1 || reqs[0].Chat.Model != "other:1b" {
		t.Fatalf("the fork's requests: %d, model %q", len(reqs), reqs[0].Chat.Model)
	}
	if end := lastEnd(t, child.Events); end.Reason != trace.EndAnswered || end.FinalText != "Forked answer." {
		t.Fatalf("the fork ended %+v", end)
	}
	var read bool
	for _, r := range results(t, child.Events[afterResult:]) {
		read = read || (r.CallID == "call_2" && strings.Contains(r.Content, "alpha"))
	}
	if !read {
		t.Fatalf("the fork did not run the call after its fork point")
	}
	if raw, _ := exported(t, h, h.id); !bytes.Equal(raw, parentRaw) {
		t.Fatalf("running the fork changed the parent's export")
	}
	forks, err := h.st.ListForks(ctx, h.id)
	found := false
	for i, c := range forks {
		found = found || c.ID == f.Summary.ID
		if c.ForkedFrom != h.id || (i > 0 && forks[i-1].ForkSeq > c.ForkSeq) {
			t.Fatalf("ListForks: %+v", c)
		}
	}
	if err != nil || !found {
		t.Fatalf("ListForks: %d, %v", len(forks), err)
	}
}

// A fork made at a pause whose edits are not sent yet waits at the same
// pause with those edits, and sends them when it goes on; the parent stays
// paused where it was, its edit unsent.
func TestForkAtAPauseCarriesThePendingEdits(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	ctx := context.Background()
	h.srv.Script(
		calls(call("call_1", "read_file", `{"path":"README.md"}`)),
		ollamatest.Text("Parent answer."),
		ollamatest.Text("Fork answer."),
	)
	if _, err := h.m.Do(ctx, session.SetBreakpoints{Session: h.id, Breakpoints: &session.Breakpoints{Points: []string{trace.PointAfterResult}}}); err != nil {
		t.Fatal(err)
	}
	done := startRun(t, h, "Read the README")
	p := waitPaused(t, h.m, h.id)
	if p.Point != trace.PointAfterResult {
		t.Fatalf("paused at %s", p.Point)
	}
	if _, err := h.m.Do(ctx, session.EditResult{Session: h.id, At: p.Seq, Content: "EDITED: the README is about pangolins"}); err != nil {
		t.Fatal(err)
	}
	evs := h.events()
	at := evs[len(evs)-1].Seq
	if evs[len(evs)-1].Kind != trace.KindEdit {
		t.Fatalf("the last event is %s, not the edit", evs[len(evs)-1].Kind)
	}
	f, err := h.m.Fork(ctx, session.Fork{Session: h.id, At: at})
	if err != nil {
		t.Fatal(err)
	}
	child, err := h.st.Events(ctx, f.Summary.ID)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(child)) != at {
		t.Fatalf("a fork at a pause added %d events", int64(len(child))-at)
	}
	st := trace.StateOf(child)
	if st.Paused == nil || st.PausedSeq != p.Seq || st.Paused.Result == nil || *st.Paused.Result != "EDITED: the README is about pangolins" {
		t.Fatalf("the fork's pause: %+v", st)
	}
	if f.Summary.Standing != trace.StandingPaused {
		t.Fatalf("the fork's standing is %q", f.Summary.Standing)
	}
	before := len(h.srv.Requests())
	if _, err := h.m.Do(ctx, session.Continue{Session: f.Summary.ID, At: p.Seq}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		s, _ := h.st.GetSession(ctx, f.Summary.ID)
		return s.OpenRun == 0
	}, "the fork's run to end")
	reqs := h.srv.Requests()[before:]
	if len(reqs) != 1 {
		t.Fatalf("the fork sent %d requests", len(reqs))
	}
	msgs := reqs[0].Chat.Messages
	if last := msgs[len(msgs)-1]; last.Role != "tool" || last.Content != "EDITED: the README is about pangolins" {
		t.Fatalf("the fork sent the result %+v, not the edit made at the pause", last)
	}
	// The parent still waits at its pause, with its edit unsent.
	if sp := trace.StateOf(h.events()); sp.Paused == nil || sp.PausedSeq != p.Seq {
		t.Fatalf("the parent no longer waits at its pause: %+v", sp)
	}
	if _, err := h.m.Do(ctx, session.Continue{Session: h.id, At: p.Seq}); err != nil {
		t.Fatal(err)
	}
	<-done
}

// "A copy as it was then": a new folder holding the workspace as it is
// now with every file the snapshots can restore put back as it was at the
// fork point, through the file layer; a file changed outside the file
// tools since is named and left as it is; links copy as links; the
// parent's folder is not touched. "This folder as it is now" lists what
// changed since the point.
func TestForkCopyRestoresTheWorkspaceAsItWasThen(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	ctx := context.Background()
	h.srv.Script(
		calls(call("call_1", "write_file", `{"path":"a.txt","content":"one\n"}`), call("call_2", "write_file", `{"path":"c.txt","content":"c at the fork\n"}`)),
		calls(call("call_3", "write_file", `{"path":"a.txt","content":"two\n"}`), call("call_4", "write_file", `{"path":"sub/b.txt","content":"new\n"}`),
			call("call_5", "edit_file", `{"path":"notes.txt","old_string":"alpha","new_string":"ALPHA"}`)),
		ollamatest.Text("Done."),
	)
	h.run("Write things")
	evs := h.events()
	var at int64
	for _, e := range evs {
		if e.Kind == trace.KindToolResult {
			if r, _ := trace.Decode[trace.ToolResult](e); r.CallID == "call_2" {
				at = e.Seq
			}
		}
	}
	// After the run, by hand: c.txt changes (no snapshot holds that), and a
	// link is made.
	h.write("c.txt", "changed by hand\n")
	if err := os.Symlink("README.md", filepath.Join(h.ws, "link.md")); err != nil {
		t.Fatal(err)
	}

	pre, err := h.m.PreviewFork(ctx, h.id, at)
	if err != nil || pre.Problem != "" || strings.Join(pre.Changed, " ") != "a.txt notes.txt sub/b.txt" || pre.CopyFolder == "" {
		t.Fatalf("preview: %+v %v", pre, err)
	}
	here, err := h.m.Fork(ctx, session.Fork{Session: h.id, At: at, Files: session.FilesHere})
	if err != nil || here.Files.Workspace != h.ws || strings.Join(here.Files.Changed, " ") != "a.txt notes.txt sub/b.txt" {
		t.Fatalf("fork here: %+v %v", here.Files, err)
	}

	folder := filepath.Join(t.TempDir(), "then")
	f, err := h.m.Fork(ctx, session.Fork{Session: h.id, At: at, Files: session.FilesCopy, Folder: folder})
	if err != nil {
		t.Fatal(err)
	}
	if !f.Files.Copy || f.Files.Workspace != folder || f.Summary.Workspace != folder {
		t.Fatalf("the copy: %+v, session works in %s", f.Files, f.Summary.Workspace)
	}
	read := func(dir, name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, os.ErrNotExist) {
			return "<none>"
		}
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	want := map[string]string{
		"a.txt": "one\n", "notes.txt": "alpha\nbeta\n", "sub/b.txt": "<none>",
		"README.md": "# Demo\nhello from the workspace\n", "c.txt": "changed by hand\n",
	}
	for name, content := range want {
		if got := read(folder, name); got != content {
			t.Errorf("the copy's %s = %q, want %q", name, got, content)
		}
	}
	if target, err := os.Readlink(filepath.Join(folder, "link.md")); err != nil || target != "README.md" {
		t.Errorf("link.md in the copy: %q %v", target, err)
	}
	var restored []string
	for _, n := range f.Files.Restored {
		restored = append(restored, n.Path)
	}
	if strings.Join(restored, " ") != "a.txt notes.txt sub/b.txt" {
		t.Errorf("restored %v", restored)
	}
	if len(f.Files.NotRestored) != 1 || f.Files.NotRestored[0].Path != "c.txt" || !strings.Contains(f.Files.NotRestored[0].Note, "changed outside Loupe's file tools") {
		t.Errorf("not restored: %+v", f.Files.NotRestored)
	}
	// The parent's folder is as the run and the hand left it.
	parentWant := map[string]string{"a.txt": "two\n", "sub/b.txt": "new\n", "notes.txt": "ALPHA\nbeta\n", "c.txt": "changed by hand\n"}
	for name, content := range parentWant {
		if got := read(h.ws, name); got != content {
			t.Errorf("the parent's %s = %q, want %q", name, got, content)
		}
	}
	// A folder that exists is refused, and nothing is made.
	n := sessionCount(t, h)
	if _, err := h.m.Fork(ctx, session.Fork{Session: h.id, At: at, Files: session.FilesCopy, Folder: folder}); err == nil || !strings.Contains(err.Error(), "exists already") {
		t.Errorf("fork into an existing folder: %v", err)
	}
	if sessionCount(t, h) != n {
		t.Errorf("a refused fork made a session")
	}
}

// Bad input changes nothing: a point the log does not hold, a point
// inside an unfinished step, an unknown choice of files, a parent whose
// folder is gone, a session that does not exist. Each says what to do.
func TestForkRefusesBadInputAndChangesNothing(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	ctx := context.Background()
	h.srv.Script(calls(call("call_1", "list_dir", `{"path":"."}`)), ollamatest.Text("Done."))
	h.run("List")
	raw, ex := exported(t, h, h.id)
	var request int64
	for _, e := range ex.Events {
		if e.Kind == trace.KindModelRequest && request == 0 {
			request = e.Seq
		}
	}
	n := sessionCount(t, h)
	for _, c := range []struct {
		name string
		f    session.Fork
		want string
	}{
		{"seq 0", session.Fork{Session: h.id, At: 0}, "has no event 0"},
		{"past the end", session.Fork{Session: h.id, At: int64(len(ex.Events)) + 1}, "has no event"},
		{"inside a request", session.Fork{Session: h.id, At: request}, "inside an unfinished step"},
		{"files", session.Fork{Session: h.id, At: 1, Files: "elsewhere"}, "not \"elsewhere\""},
		{"no session", session.Fork{Session: "nope", At: 1}, "not found"},
	} {
		if _, err := h.m.Fork(ctx, c.f); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	// The folder is gone.
	gone := h.ws + ".gone"
	if err := os.Rename(h.ws, gone); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Rename(gone, h.ws) })
	for _, files := range []string{session.FilesHere, session.FilesCopy} {
		if _, err := h.m.Fork(ctx, session.Fork{Session: h.id, At: 1, Files: files}); err == nil || !strings.Contains(err.Error(), "cannot be opened") || !strings.Contains(err.Error(), "nothing was made") {
			t.Errorf("fork (%s) of a session whose folder is gone: %v", files, err)
		}
	}
	if sessionCount(t, h) != n {
		t.Errorf("refused forks made %d sessions", sessionCount(t, h)-n)
	}
	if after, _ := exported(t, h, h.id); !bytes.Equal(after, raw) {
		t.Errorf("refused forks changed the parent")
	}
}

// A fork can adopt another answer to a recorded request (what "Try this
// request on…" adopts): the fork's log is the parent's through the
// request, then that answer, and it goes on from there: here the
// adopted answer calls a tool, which runs in the fork.
func TestForkAdoptsAnotherAnswerToARequest(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	ctx := context.Background()
	h.srv.Script(ollamatest.Text("The parent's answer."))
	h.run("What is in notes.txt?")
	evs := h.events()
	var req int64
	for _, e := range evs {
		if e.Kind == trace.KindModelRequest {
			req = e.Seq
		}
	}
	n := sessionCount(t, h)
	if _, err := h.m.Fork(ctx, session.Fork{Session: h.id, At: req + 1, Answer: &trace.ModelResponse{Content: "x"}}); err == nil || !strings.Contains(err.Error(), "not a request") {
		t.Fatalf("an answer adopted at an event that is no request: %v", err)
	}
	if sessionCount(t, h) != n {
		t.Fatalf("a refused adoption made a session")
	}
	alt := trace.ModelResponse{Content: "Let me look.", DoneReason: "stop",
		ToolCalls: []llm.ToolCall{{ID: "alt_1", Name: "read_file", Args: json.RawMessage(`{"path":"notes.txt"}`)}}}
	f, err := h.m.Fork(ctx, session.Fork{Session: h.id, At: req, Answer: &alt})
	if err != nil {
		t.Fatal(err)
	}
	child, _ := h.st.Events(ctx, f.Summary.ID)
	for i := int64(0); i < req; i++ {
		if eventJSON(t, evs[i]) != eventJSON(t, child[i]) {
			t.Fatalf("event %d differs from the parent's", i+1)
		}
	}
	got, err := trace.Decode[trace.ModelResponse](child[req])
	if err != nil || got.RequestSeq != req || got.Content != "Let me look." || f.Summary.ForkSeq != req {
		t.Fatalf("the adopted answer: %+v %v (fork seq %d)", got, err, f.Summary.ForkSeq)
	}
	p := waitPaused(t, h.m, f.Summary.ID)
	if p.Point != trace.PointAfterResponse {
		t.Fatalf("the fork waits at %s", p.Point)
	}
	h.srv.Script(ollamatest.Text("It holds alpha and beta."))
	if _, err := h.m.Do(ctx, session.Continue{Session: f.Summary.ID, At: p.Seq}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		s, _ := h.st.GetSession(ctx, f.Summary.ID)
		return s.OpenRun == 0
	}, "the fork's run to end")
	child, _ = h.st.Events(ctx, f.Summary.ID)
	invariants.Check(t, child)
	rs := results(t, child)
	if len(rs) != 1 || rs[0].CallID != "alt_1" || !strings.Contains(rs[0].Content, "alpha") {
		t.Fatalf("the adopted answer's call did not run in the fork: %+v", rs)
	}
}
