package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/hooks"
	"github.com/loupe-dev/loupe/backend/sandbox"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
)

// Try in Settings → Hooks: hooks never saved are tried on a stored
// session's calls and say what they would have decided, without touching
// the workspace or the saved settings; a session that is gone is named.
func TestTryHooksFromTheWindow(t *testing.T) {
	a := startApp(t, Flags{})
	ctx := context.Background()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := a.store.CreateSession(ctx, store.Session{Title: "rm", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []trace.Event{
		trace.New(trace.KindUserMessage, 1, 0, trace.UserMessage{Text: "tidy up"}),
		trace.New(trace.KindToolCall, 1, 1, trace.ToolCall{CallID: "call_1", Name: "run_command", Args: []byte(`{"command":"rm notes.txt"}`), Valid: true}),
	} {
		e.SessionID = s.ID
		if _, err := a.store.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	hs := []hooks.Hook{{Name: "no rm", Event: hooks.BeforeTool, Command: `grep -q '"rm ' && { rm -f notes.txt 2>/dev/null; echo 'no rm here' >&2; exit 2; }; exit 0`}}
	tried, err := a.TryHooks(s.ID, hs)
	if p := sandbox.Probe(); !p.Sandboxed() {
		// Without the sandbox the promise of a read-only workspace cannot
		// be kept: the try is refused, saying where to look.
		if err == nil || !strings.Contains(err.Error(), "Settings → Protections") {
			t.Fatalf("unsandboxed here (%s), and the try gave %+v, %v; want a refusal", p.Summary(), tried, err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(tried) != 1 || tried[0].Decision != trace.Deny || len(tried[0].Runs) != 1 || strings.TrimSpace(tried[0].Runs[0].Stderr) != "no rm here" {
		t.Fatalf("tried = %+v", tried)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "notes.txt")); err != nil || string(b) != "keep\n" {
		t.Fatalf("the tried hook removed notes.txt (%v)", err)
	}
	if set, _ := a.Settings(); len(set.Hooks) != 0 {
		t.Fatalf("trying saved the hooks: %+v", set.Hooks)
	}
	if _, err := a.TryHooks("gone", hs); err == nil || !strings.Contains(err.Error(), `there is no session "gone" to try the hooks on`) {
		t.Fatalf("no such session: %v", err)
	}
}
