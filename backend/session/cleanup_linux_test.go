package session_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/sandbox"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

// The check of what commands left runs once every call of the round has
// ended, not when the first command ends: a parallel command still
// running sees the workspace as the commands left it, the check renames
// the repository the first command planted after both ended, and what
// it did is said at the end of the round's last result, which the model
// reads. Through the whole loop (fake Ollama, the real sandbox, SQLite).
func TestRoundCleanupWaitsForEveryCall(t *testing.T) {
	if p := sandbox.Probe(); !p.Sandboxed() {
		t.Skipf("this kernel cannot confine commands: %s", p.Summary())
	}
	h := newHarness(t, permission.ModeAuto, nil)
	marker := filepath.Join(t.TempDir(), "RAN")
	// The glob keeps the classifier from asking about .git/config: the
	// command runs in auto mode, as an injected one would.
	plant := `git init -q sub && for d in sub/.gi?; do printf '[core]\n\tfsmonitor = "touch ` + marker + `; false"\n' >> $d/config; done && echo planted`
	// A glob again: a command naming sub/.git asks (a .git entry that is
	// not a folder yet could become a .git file).
	watch := `sleep 2; if [ -e sub/.gi? ]; then echo still-there; else echo gone; fi`
	h.srv.Script(
		calls(call("c1", "run_command", jsonArgs(t, map[string]any{"command": plant})),
			call("c2", "run_command", jsonArgs(t, map[string]any{"command": watch}))),
		ollamatest.Text("done"),
	)
	h.run("plant a repository")
	evs := h.events()
	invariants.Check(t, evs)
	res := results(t, evs)
	if len(res) != 2 {
		t.Fatalf("results: %+v", res)
	}
	if strings.Contains(res[0].Content, "loupe-disarmed") {
		t.Errorf("the first command's result speaks of the clean-up, which must wait for the round: %q", res[0].Content)
	}
	if !strings.Contains(res[1].Content, "still-there") {
		t.Errorf("the repository was renamed while a parallel command of the round still ran: %q", res[1].Content)
	}
	if !strings.Contains(res[1].Content, "renamed it to sub/.git.loupe-disarmed") || !strings.Contains(res[1].Content, "fsmonitor") {
		t.Errorf("the round's last result does not say what Loupe disarmed: %q", res[1].Content)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "sub", ".git")); err == nil {
		t.Fatal("the planted repository is still where git finds it")
	}
	// The user's git in sub/ afterwards runs nothing of it.
	c := exec.Command("git", "status")
	c.Dir = filepath.Join(h.ws, "sub")
	c.Run()
	if _, err := os.Stat(marker); err == nil {
		t.Error("git ran the planted fsmonitor")
	}
}

// jsonArgs encodes a call's arguments.
func jsonArgs(t *testing.T, args map[string]any) string {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
