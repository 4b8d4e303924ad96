package session

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/loupe-dev/loupe/backend/settings"
)

// AGENTS.md is read for the model only when its own folder's rules allow
// it, whatever the workspace's path leads to meanwhile: a command of a
// session in the folder above keeps swapping the path between a project
// whose .loupe/settings.json denies its AGENTS.md and one that does not.
// The rules and the file are read of one folder, held open, so the denied
// text never reaches the model.
func TestAGENTSmdIsJudgedByTheRulesOfItsOwnFolder(t *testing.T) {
	base := t.TempDir()
	denied, plain := filepath.Join(base, "denied"), filepath.Join(base, "plain")
	for _, d := range []string{denied, plain} {
		if err := os.MkdirAll(filepath.Join(d, ".loupe"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(denied, "AGENTS.md"), []byte("NOT FOR THE MODEL"), 0o644))
	must(os.WriteFile(filepath.Join(denied, ".loupe", "settings.json"), []byte(`{"rules":[{"effect":"deny","path":"AGENTS.md"}]}`), 0o644))
	must(os.WriteFile(filepath.Join(plain, "AGENTS.md"), []byte("plain notes"), 0o644))
	ws, next := filepath.Join(base, "ws"), filepath.Join(base, "ws.next")
	must(os.Symlink(plain, ws))
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; !stop.Load(); i++ {
			to := plain
			if i%2 == 1 {
				to = denied
			}
			_ = os.Remove(next)
			_ = os.Symlink(to, next)
			_ = os.Rename(next, ws)
		}
	}()
	defer func() { stop.Store(true); <-done }()
	plainSeen := 0
	for i := 0; i < 5000; i++ {
		text, _, err := readInstructions(settings.Settings{}, ws)
		if err == nil && strings.Contains(text, "NOT FOR THE MODEL") {
			t.Fatalf("try %d: the AGENTS.md its own folder's rules deny went to the model", i)
		}
		if err == nil && strings.Contains(text, "plain notes") {
			plainSeen++
		}
	}
	if plainSeen == 0 {
		t.Fatal("no AGENTS.md was ever read: the test shows nothing")
	}
}
