package store

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/loupe-dev/loupe/backend/trace"
)

// A session keeps the Ollama host it was created on, through every way a
// session is read and after the file is opened again; one created without
// a host (as every session before hosts existed) is on the local one.
func TestSessionKeepsItsHost(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "loupe.db")
	s := openAt(t, path)
	a := mustCreate(t, s, Session{Title: "a", Workspace: "/w", Model: "m", Host: "gpu-box"})
	b, _, lease, err := s.CreateSessionWith(ctx, Session{Title: "b", Workspace: "/w", Model: "m", Host: "http://10.0.0.9:11434"},
		trace.New(trace.KindUserMessage, 1, 0, trace.UserMessage{Text: "hi"}))
	if err != nil {
		t.Fatal(err)
	}
	if b.Host != "http://10.0.0.9:11434" {
		t.Errorf("CreateSessionWith returned host %q", b.Host)
	}
	_ = lease.Release()
	local := mustCreate(t, s, Session{Title: "c", Workspace: "/w", Model: "m"})
	s.Close()

	s = openAt(t, path)
	for id, want := range map[string]string{a.ID: "gpu-box", b.ID: "http://10.0.0.9:11434", local.ID: ""} {
		got, err := s.GetSession(ctx, id)
		if err != nil || got.Host != want {
			t.Errorf("session %s: host %q, %v; want %q", id, got.Host, err, want)
		}
	}
	title := "renamed"
	if got, err := s.UpdateSession(ctx, a.ID, SessionUpdate{Title: &title}); err != nil || got.Host != "gpu-box" {
		t.Errorf("after an update: host %q, %v", got.Host, err)
	}
	list, err := s.ListSessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range list {
		if got.ID == a.ID && got.Host != "gpu-box" {
			t.Errorf("listed with host %q", got.Host)
		}
	}
}
