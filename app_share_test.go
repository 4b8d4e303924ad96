package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/backend/viewer"
)

// Share… writes the replay whole where the user chose, readable by others,
// and a replay that cannot be made leaves nothing: no file, no temporary
// one beside it. The offered name is the title with what a file name
// should not hold taken out.
func TestShareWritesTheReplayWholeOrNothing(t *testing.T) {
	a := startApp(t, Flags{})
	ctx := context.Background()
	s, err := a.store.CreateSession(ctx, store.Session{Title: "Fix </script> in a/b.go?"})
	if err != nil {
		t.Fatal(err)
	}
	e := trace.New(trace.KindUserMessage, 1, 0, trace.UserMessage{Text: "fix it"})
	e.SessionID = s.ID
	if _, err := a.store.Append(ctx, e); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, replayName(s.Title))
	if filepath.Base(path) != "Fix script in a b.go.html" {
		t.Fatalf("offered name %q", filepath.Base(path))
	}
	if err := writeReplay(a, s.ID, path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "<!doctype html>") || !strings.Contains(string(b), `id="`+viewer.SessionID+`"`) || !strings.Contains(string(b), "fix it") {
		t.Fatalf("the file is not the session's replay: %.300s", b)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v, want 0644", fi.Mode().Perm())
	}
	missing := filepath.Join(dir, "missing.html")
	if err := writeReplay(a, "no-such-session", missing); err == nil {
		t.Fatal("a replay of no session was written")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("the folder holds %d files, want only the replay: %v", len(entries), entries)
	}
}
