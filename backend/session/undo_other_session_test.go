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
// away and puts it back, again and again: if undo looked while HEAD was
// away, r/config would be no protected path and undo would write the
// model's earlier text there. Undo waits until no command runs in the
// workspace, whichever session's, and none starts until it is done: what
// it judged stays true while it writes.
func TestUndoCannotBeRacedIntoARepositorysSettingsByAnotherSession(t *testing.T) {
	if !workspace.Protections().Sandboxed() {
		t.Fatalf("needs confined commands here: %s", workspace.Protections().Summary())
	}
	ctx := context.Background()
	h, _ := settingsBeforeTheRepository(t) // r/config: the setting (turn 1), harmless (turn 2); r a repository
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
	// The other session's command is under way before the first undo.
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Lstat(filepath.Join(h.ws, "r", "H")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the other session's command did not start")
		}
		time.Sleep(time.Millisecond)
	}
	cfg := filepath.Join(h.ws, "r", "config")
	tries, written := 0, false
	stop := time.After(20 * time.Second)
wait:
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Logf("the other session's run: %v", err)
			}
			break wait
		case <-stop:
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
		if b, _ := os.ReadFile(cfg); string(b) == repoLaterSetting {
			written = true
		}
	}
	b, _ := os.ReadFile(cfg)
	_, head := os.Lstat(filepath.Join(h.ws, "r", "HEAD"))
	if string(b) == repoLaterSetting && head == nil {
		t.Fatalf("after %d undos raced by the other session's command, the repository r (HEAD there) has core.fsmonitor written by undo", tries)
	}
	t.Logf("%d undos; r/config %q", tries, b)
}
