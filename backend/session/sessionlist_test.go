package session_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
)

func listIDs(t *testing.T, m *session.Manager) []string {
	t.Helper()
	list, err := m.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(list))
	for i, s := range list {
		ids[i] = s.ID
	}
	return ids
}

func has(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// A deleted session can be taken back while its time is not up: it is
// left out of the list and of search meanwhile, back whole on Undo, and
// gone from the database once the time is up.
func TestDeleteLaterAndUndo(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	h.srv.Script(ollamatest.Text("The quokka smiles."))
	h.run("Tell me about the quokka")
	ctx := t.Context()
	before := h.events()

	if _, err := h.m.DeleteLater(ctx, h.id, time.Hour); err != nil {
		t.Fatal(err)
	}
	if has(listIDs(t, h.m), h.id) {
		t.Error("a session being deleted is still listed")
	}
	if res, err := h.m.Search(ctx, "quokka", store.SearchFilter{}, 10); err != nil || len(res.Sessions) != 0 {
		t.Errorf("search finds a session being deleted: %+v, %v", res, err)
	}
	sum, err := h.m.UndoDelete(ctx, h.id)
	if err != nil || sum.ID != h.id {
		t.Fatalf("UndoDelete: %+v, %v", sum, err)
	}
	if !has(listIDs(t, h.m), h.id) {
		t.Error("the session is not back in the list after Undo")
	}
	if res, err := h.m.Search(ctx, "quokka", store.SearchFilter{}, 10); err != nil || len(res.Sessions) != 1 {
		t.Errorf("search after Undo: %+v, %v", res, err)
	}
	if after := h.events(); len(after) != len(before) {
		t.Errorf("Undo left %d events of %d", len(after), len(before))
	}

	// Time up: the session is deleted for good, and Undo says so.
	if _, err := h.m.DeleteLater(ctx, h.id, 20*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		_, err := h.st.GetSession(ctx, h.id)
		return errors.Is(err, store.ErrNotFound)
	}, "the session deleted once its time was up")
	if _, err := h.m.UndoDelete(ctx, h.id); err == nil || !strings.Contains(err.Error(), "deleted already") {
		t.Errorf("Undo after the time was up: %v", err)
	}
}

// The app dying while a delete waits loses nothing: the session is whole
// when Loupe opens the file again. Closing the app deletes it.
func TestDeleteLaterSurvivesACrashAndCloseFinishesIt(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "loupe.db")
	oc := ollama.New("http://127.0.0.1:9", nil)
	open := func() (*store.Store, *session.Manager) {
		st, err := store.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		return st, session.NewManager(st, oc, nil, nil)
	}
	ctx := t.Context()
	st, m := open()
	s, err := st.CreateSession(ctx, store.Session{Title: "keep me"})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []trace.Event{
		trace.New(trace.KindUserMessage, 1, 0, trace.UserMessage{Text: "hello"}),
		trace.New(trace.KindRunEnd, 1, 0, trace.RunEnd{Reason: trace.EndAnswered}),
	} {
		if _, err := st.Append(ctx, withSession(e, s.ID)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.DeleteLater(ctx, s.ID, time.Hour); err != nil {
		t.Fatal(err)
	}
	// The process dies: nothing of the manager runs again (no Close).
	st.Close()

	st, m = open()
	defer st.Close()
	if !has(listIDs(t, m), s.ID) {
		t.Fatal("the session waiting to be deleted is gone after the app died")
	}
	if evs, err := st.Events(ctx, s.ID); err != nil || len(evs) != 2 {
		t.Fatalf("its log after the crash: %d events, %v", len(evs), err)
	}

	if _, err := m.DeleteLater(ctx, s.ID, time.Hour); err != nil {
		t.Fatal(err)
	}
	m.Close()
	if _, err := st.GetSession(ctx, s.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("after Close the session is still there: %v", err)
	}
}

// Rename keeps a name of one line and refuses none; the first message does
// not rename a session the user named; pin puts it on top.
func TestRenameAndPin(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	ctx := t.Context()
	other, err := h.m.Create(ctx, h.ws, testModel)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "   ", "\n\t", strings.Repeat("x", session.MaxTitle+1)} {
		if _, err := h.m.Rename(ctx, h.id, bad); err == nil {
			t.Errorf("Rename(%q) was accepted", bad)
		}
	}
	sum, err := h.m.Rename(ctx, h.id, "  my\nfavourite\tsession  ")
	if err != nil || sum.Title != "my favourite session" {
		t.Fatalf("Rename: %+v, %v", sum.Title, err)
	}
	h.srv.Script(ollamatest.Text("Hello."))
	h.run("Say hello")
	if s, _ := h.st.GetSession(ctx, h.id); s.Title != "my favourite session" {
		t.Errorf("the first message renamed the session the user named: %q", s.Title)
	}

	// The other session is older now; pinned, it comes first.
	if ids := listIDs(t, h.m); ids[0] != h.id {
		t.Fatalf("list before pinning: %v", ids)
	}
	if sum, err := h.m.SetPinned(ctx, other.ID, true); err != nil || !sum.Pinned {
		t.Fatalf("SetPinned: %+v, %v", sum, err)
	}
	if ids := listIDs(t, h.m); ids[0] != other.ID {
		t.Errorf("a pinned session is not on top: %v", ids)
	}
	if _, err := h.m.SetPinned(ctx, other.ID, false); err != nil {
		t.Fatal(err)
	}
	if ids := listIDs(t, h.m); ids[0] != h.id {
		t.Errorf("unpinned, the session is not back in its place: %v", ids)
	}
}

// Duplicate makes a session whose log is the source's, event for event,
// linked to it, and the copy goes on on its own; the source is untouched.
// A session whose run is open is refused, and nothing is made.
func TestDuplicateCopiesTheConversation(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	ctx := t.Context()
	h.srv.Script(
		calls(call("call_1", "list_dir", `{"path":"."}`)),
		ollamatest.Text("README.md and notes.txt, said the pangolin."),
	)
	h.run("What is in this folder?")
	src := h.events()
	srcSession, _ := h.st.GetSession(ctx, h.id)

	cp, err := h.m.Duplicate(ctx, h.id)
	if err != nil {
		t.Fatal(err)
	}
	if cp.ID == h.id || cp.CopiedFrom != h.id || cp.Title != "What is in this folder? (copy)" || cp.Workspace != h.ws || cp.Model != testModel {
		t.Fatalf("copy = %+v", cp.Session)
	}
	if cp.Rounds != 2 || cp.Rounds != srcSession.Rounds || cp.LastReason != trace.EndAnswered || cp.OpenRun != 0 {
		t.Errorf("copy rounds %d (source %d), reason %q, open run %d", cp.Rounds, srcSession.Rounds, cp.LastReason, cp.OpenRun)
	}
	got, err := h.st.Events(ctx, cp.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(src) {
		t.Fatalf("copy has %d events, source %d", len(got), len(src))
	}
	for i := range src {
		a, b := src[i], got[i]
		if a.Seq != b.Seq || a.Kind != b.Kind || !a.Time.Equal(b.Time) || a.Run != b.Run || a.Round != b.Round || string(a.Payload) != string(b.Payload) {
			t.Fatalf("event %d differs:\nsource %+v\ncopy   %+v", i, a, b)
		}
	}
	// Search finds the text in both, the copy's indexed in its transaction.
	res, err := h.m.Search(ctx, "pangolin", store.SearchFilter{}, 10)
	if err != nil || len(res.Sessions) != 2 || res.Partial {
		t.Errorf("search over source and copy: %+v, %v", res, err)
	}
	// The raw request of the copy is rebuilt from its own log.
	for _, e := range got {
		if e.Kind == trace.KindModelRequest {
			if _, err := session.RawRequest(ctx, h.st, cp.ID, e.Seq); err != nil {
				t.Errorf("RawRequest of the copy's request %d: %v", e.Seq, err)
			}
		}
	}

	// The copy goes on; the source does not move.
	h.srv.Script(ollamatest.Text("Still here."))
	if _, err := h.m.Run(context.Background(), cp.ID, "And now?", session.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if after := h.events(); len(after) != len(src) {
		t.Errorf("running the copy added %d events to the source", len(after)-len(src))
	}

	// A session with an open run is not copied.
	open, err := h.st.CreateSession(ctx, store.Session{Title: "half way"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.st.Append(ctx, withSession(trace.New(trace.KindUserMessage, 1, 0, trace.UserMessage{Text: "go"}), open.ID)); err != nil {
		t.Fatal(err)
	}
	n := len(listIDs(t, h.m))
	if _, err := h.m.Duplicate(ctx, open.ID); err == nil || !strings.Contains(err.Error(), "has not ended") {
		t.Errorf("Duplicate of an open run: %v", err)
	}
	if m := len(listIDs(t, h.m)); m != n {
		t.Errorf("a refused Duplicate made a session (%d, was %d)", m, n)
	}
}

func withSession(e trace.Event, id string) trace.Event {
	e.SessionID = id
	return e
}
