package session_test

import (
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/hooks"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/trace"
)

// The hooks of Settings at work, in the sandbox: an after_edit hook whose
// output joins the edit's observation, and a before_tool hook that blocks
// an rm with exit 2, so the model reads its stderr. Every run is a
// hook_run event on the timeline.
func TestRecordingsHooks(t *testing.T) {
	hs := []hooks.Hook{
		{Name: "no rm", Event: hooks.BeforeTool, Matcher: "run_command",
			Command: `doc=$(cat); case "$doc" in *'"rm '*) echo 'rm is not allowed here: move files to old/ instead' >&2; exit 2;; esac`},
		{Name: "lint", Event: hooks.AfterEdit, Command: `cat >/dev/null; echo "lint: README.md ok"`},
	}
	w := openWindow(t, "hooks", "Two hooks from Settings: a lint after an edit adds its output to the observation; a guard before run_command blocks an rm with exit 2 and the model reads why.", permission.ModeAuto, func(s *settings.Settings) {
		s.Hooks = hs
	})
	w.srv.Script(
		calls(call("call_1", "edit_file", `{"path":"README.md","old_string":"hello","new_string":"Hello"}`)),
		calls(call("call_2", "run_command", `{"command":"rm notes.txt"}`)),
		text("I fixed the README and left notes.txt, since rm is not allowed."),
	)
	w.send("Capitalise the README, then delete notes.txt")
	if end := w.untilEnded(); end.Reason != trace.EndAnswered {
		t.Fatalf("end = %+v", end)
	}
	if w.read("notes.txt") == "" {
		t.Fatal("the blocked rm ran")
	}
	var runs []trace.HookRun
	var results []trace.ToolResult
	for _, e := range w.events() {
		if p, err := trace.Decode[trace.HookRun](e); err == nil {
			runs = append(runs, p)
		}
		if p, err := trace.Decode[trace.ToolResult](e); err == nil {
			results = append(results, p)
		}
	}
	if len(runs) != 2 || runs[0].Hook != "lint" || runs[0].Outcome != trace.HookPassed || runs[1].Hook != "no rm" || runs[1].Outcome != trace.HookBlocked || runs[1].ExitCode != 2 {
		t.Fatalf("hook runs = %+v", runs)
	}
	if !strings.Contains(results[0].Content, "lint: README.md ok") || !strings.Contains(results[1].Content, "rm is not allowed here") || results[1].ErrorKind != trace.ErrDenied {
		t.Fatalf("results = %+v", results)
	}
	w.saveAs("hooks")
}
