package session_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/workspace"
)

// Undo judges whether r/config is protected from what r holds when it
// looks (a HEAD beside objects/ and refs/ makes r a repository, and its
// config a repository's own file). A command of another session on the
// same workspace, running while the user undoes a turn, takes r's HEAD
// away and puts it back, again and again: when undo looks, r is no
// repository, so r/config is no protected path, and undo writes the
// model's earlier text there. The command's round check leaves r alone:
// r was a repository when the round began, and a repository there before
// is only checked for settings files it lacked.
func TestAdv7UndoCannotBeRacedIntoARepositorysSettings(t *testing.T) {
	if !workspace.Protections().Sandboxed() {
		t.Fatalf("needs confined commands here: %s", workspace.Protections().Summary())
	}
	ctx := context.Background()
	h, _ := adv7RepoLater(t) // r/config: evil (turn 1), harmless (turn 2); r a repository
	other, err := h.m.Create(ctx, h.ws, testModel)
	if err != nil {
		t.Fatal(err)
	}
	loop := `end=$(($(date +%s)+6)); while [ $(date +%s) -lt $end ]; do mv r/HEAD r/H && mv r/H r/HEAD; done; echo looped`
	args, _ := json.Marshal(map[string]string{"command": loop})
	h.srv.Script(calls(call("c20", "run_command", string(args))), ollamatest.Text("looped"))
	done := make(chan error, 1)
	go func() {
		_, err := h.m.Run(ctx, other.ID, "loop", session.RunOptions{})
		done <- err
	}()
	cfg := filepath.Join(h.ws, "r", "config")
	tries, written := 0, false
	deadline := time.After(20 * time.Second)
wait:
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Logf("the other session's run: %v", err)
			}
			break wait
		case <-deadline:
			t.Fatal("the other session's run did not end")
		default:
		}
		if written {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		tries++
		if _, err := h.m.Do(ctx, session.UndoRun{Session: h.id, Run: 2, Force: true}); err != nil {
			t.Logf("undo: %v", err)
		}
		if b, _ := os.ReadFile(cfg); string(b) == adv7Evil {
			written = true
		}
	}
	b, _ := os.ReadFile(cfg)
	_, head := os.Lstat(filepath.Join(h.ws, "r", "HEAD"))
	if string(b) == adv7Evil && head == nil {
		t.Fatalf("after %d undos raced by the other session's command, the repository r (HEAD there) has core.fsmonitor written by undo", tries)
	}
	t.Logf("%d undos; r/config %q", tries, b)
}
