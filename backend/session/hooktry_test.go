package session_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/hooks"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/trace"
)

// Try on a recorded session: hooks that were not on run against each
// recorded call, in the sandbox with the workspace read-only, and say what
// they would have decided; the session is not changed. The window's tries
// (Settings → Hooks) are recorded for its spec, a refused one too.
func TestRecordingsTryHooks(t *testing.T) {
	w := openWindow(t, "try_hooks", "Hooks not saved yet, tried on a recorded session: a guard denies the rm, and a hook that writes after an edit finds the workspace read-only.", permission.ModeAuto, nil)
	w.srv.Script(
		calls(call("call_1", "run_command", `{"command":"echo hi"}`)),
		calls(call("call_2", "run_command", `{"command":"rm notes.txt"}`)),
		calls(call("call_3", "edit_file", `{"path":"README.md","old_string":"hello","new_string":"Hello"}`)),
		text("Done."),
	)
	w.send("Go")
	if end := w.untilEnded(); end.Reason != trace.EndAnswered {
		t.Fatalf("end = %+v", end)
	}
	before := len(w.events())
	readme := w.read("README.md")
	hs := []hooks.Hook{
		{Name: "no rm", Event: hooks.BeforeTool, Matcher: "run_command",
			Command: `doc=$(cat); case "$doc" in *'"rm '*) echo 'no rm' >&2; exit 2;; esac; echo '{"decision":"allow"}'`},
		{Name: "scribble", Event: hooks.AfterEdit, OnFailure: hooks.FailContinue,
			Command: `cat > /dev/null; if { echo x >> README.md; } 2>/dev/null; then echo 'wrote README.md'; else echo 'README.md is read-only' >&2; exit 1; fi`},
	}
	var tried []hooks.Tried
	w.must(w.rec.Query("tryHooks", func() (any, error) {
		var err error
		tried, err = w.m.TryHooks(context.Background(), w.id, hs)
		return tried, err
	}, w.id, hs))
	if len(tried) != 3 {
		t.Fatalf("tried = %+v", tried)
	}
	if tried[0].Decision != trace.Allow || tried[1].Decision != trace.Deny || tried[2].Decision != "" {
		t.Fatalf("decisions = %q %q %q", tried[0].Decision, tried[1].Decision, tried[2].Decision)
	}
	if r := tried[1].Runs; len(r) != 1 || r[0].Outcome != trace.HookBlocked || r[0].ExitCode != 2 || strings.TrimSpace(r[0].Stderr) != "no rm" {
		t.Fatalf("rm's runs = %+v", r)
	}
	edit := tried[2].Runs
	if len(edit) != 1 || edit[0].Event != hooks.AfterEdit || !strings.Contains(string(edit[0].Input), `"paths":["README.md"]`) {
		t.Fatalf("edit's runs = %+v", edit)
	}
	if e := edit[0]; e.ExitCode != 1 || e.Outcome != trace.HookFailedContinued || strings.TrimSpace(e.Stderr) != "README.md is read-only" {
		t.Fatalf("a tried hook could write to the workspace: %+v", e)
	}
	if b, err := os.ReadFile(filepath.Join(w.ws, "README.md")); err != nil || string(b) != readme {
		t.Fatalf("a tried hook wrote to the workspace (%v): README.md holds %q", err, b)
	}
	if len(w.events()) != before {
		t.Fatal("trying hooks wrote to the session")
	}
	// A hook with no command is refused before anything runs, saying what
	// to set; the window shows it as Go wrote it.
	noCommand := []hooks.Hook{{Event: hooks.BeforeTool, Command: ""}}
	err := w.rec.Query("tryHooks", func() (any, error) { return w.m.TryHooks(context.Background(), w.id, noCommand) }, w.id, noCommand)
	if err == nil || !strings.Contains(err.Error(), `hook 1: no command: set "command"`) {
		t.Fatalf("a hook with no command: %v", err)
	}
	if _, err := w.m.TryHooks(context.Background(), w.id, []hooks.Hook{{Event: "after_tools", Command: "true"}}); err == nil || !strings.Contains(err.Error(), `unknown event "after_tools"`) {
		t.Fatalf("a bad hook: %v", err)
	}
	if _, err := w.m.TryHooks(context.Background(), "gone", hs); err == nil || !strings.Contains(err.Error(), `there is no session "gone" to try the hooks on`) {
		t.Fatalf("no such session: %v", err)
	}
	w.saveAs("try_hooks")
}

// A hook tried on a recorded session cannot make anything at the
// workspace's root either (the read-only files under it are not enough:
// a new name at the root is no file's): touch and mkdir fail there, and
// the workspace holds nothing new.
func TestTriedHooksCannotMakeFilesAtTheWorkspaceRoot(t *testing.T) {
	w := openWindow(t, "try_hooks_root", "not saved", permission.ModeAuto, nil)
	w.srv.Script(calls(call("call_1", "run_command", `{"command":"echo hi"}`)), text("Done."))
	w.send("Go")
	if end := w.untilEnded(); end.Reason != trace.EndAnswered {
		t.Fatalf("end = %+v", end)
	}
	before, err := os.ReadDir(w.ws)
	if err != nil {
		t.Fatal(err)
	}
	hs := []hooks.Hook{{Name: "scribble", Event: hooks.BeforeTool,
		Command: `cat > /dev/null; touch x; echo "touch=$?"; mkdir d; echo "mkdir=$?"; : > "$PWD/y"; echo "write=$?"`}}
	tried, err := w.m.TryHooks(context.Background(), w.id, hs)
	if err != nil {
		t.Fatal(err)
	}
	if len(tried) != 1 || len(tried[0].Runs) != 1 {
		t.Fatalf("tried = %+v", tried)
	}
	run := tried[0].Runs[0]
	t.Logf("the hook's output: %q, stderr %q", run.Stdout, run.Stderr)
	for _, what := range []string{"touch", "mkdir", "write"} {
		if !strings.Contains(run.Stdout, what+"=") || strings.Contains(run.Stdout, what+"=0") {
			t.Errorf("the tried hook's %s at the workspace's root did not fail: %q", what, run.Stdout)
		}
	}
	after, err := os.ReadDir(w.ws)
	if err != nil {
		t.Fatal(err)
	}
	if entryNames(after) != entryNames(before) {
		t.Errorf("the workspace's root changed:\nbefore: %s\nafter:  %s", entryNames(before), entryNames(after))
	}
}

func entryNames(es []os.DirEntry) string {
	var n []string
	for _, e := range es {
		n = append(n, e.Name())
	}
	return strings.Join(n, " ")
}
