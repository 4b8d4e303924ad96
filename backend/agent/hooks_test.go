package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/hooks"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/sandbox"
	"github.com/loupe-dev/loupe/backend/tools"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

// Hooks run as real shell commands (sandbox.Local, the runner without
// confinement, so that these tests run anywhere; the session's tests run
// them confined).

// hooked runs the rig's agent with hs in dir.
func (r *rig) hooked(ctx context.Context, dir, text string, hs ...hooks.Hook) trace.RunEnd {
	r.t.Helper()
	var pauser Pauser
	if r.pauser != nil {
		pauser = r.pauser
		if s, ok := r.pauser.(*stepper); ok {
			s.log = r.log
		}
	}
	ag := New(r.cfg, Seams{Model: r.model, Recorder: r.log, Tools: r.tools, Approver: r.ask, Pauser: pauser,
		Hooks: &hooks.Set{Hooks: hs, Runner: sandbox.Local{}, Dir: dir}}, r.log.all())
	end, err := ag.Run(ctx, text)
	if err != nil {
		r.t.Fatalf("run: %v", err)
	}
	return end
}

// tallied is a tool that counts its runs.
func tallied(name string, readOnly bool, runs *int) fn {
	return fn{name: name, readOnly: readOnly, run: func(context.Context, json.RawMessage) (tools.Result, error) {
		*runs++
		return tools.Result{Content: name + " ran"}, nil
	}}
}

func hookRuns(t *testing.T, evs []trace.Event) []trace.HookRun {
	return payloads[trace.HookRun](t, evs)
}

// Exit 0 goes on: the call runs, and the hook's run is on the log with the
// JSON it read.
func TestHookExitZeroGoesOn(t *testing.T) {
	dir := t.TempDir()
	runs := 0
	r := newRig(t, tallied("look", true, &runs))
	r.model.say(asks(tc("c1", "look", `{"x":"a"}`)), text("Done."))
	end := r.hooked(t.Context(), dir, "Go", hooks.Hook{Name: "audit", Event: hooks.BeforeTool, Matcher: "lo*", Command: "cat > input.json; echo fine"})
	if end.Reason != trace.EndAnswered || runs != 1 {
		t.Fatalf("end = %+v, runs = %d", end, runs)
	}
	evs := r.log.all()
	hr := hookRuns(t, evs)
	if len(hr) != 1 || hr[0].Outcome != trace.HookPassed || hr[0].ExitCode != 0 || hr[0].Stdout != "fine\n" || hr[0].CallID != "c1" || hr[0].Event != hooks.BeforeTool {
		t.Fatalf("hook runs = %+v", hr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "input.json"))
	if err != nil {
		t.Fatal(err)
	}
	var in hooks.Input
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatalf("the hook read %q: %v", b, err)
	}
	if in.SessionID != "s" || in.Event != hooks.BeforeTool || in.Tool != "look" || string(in.Args) != `{"x":"a"}` || in.Workspace != dir || in.Run != 1 || in.Round != 1 {
		t.Fatalf("input = %+v", in)
	}
	if got := strings.Join(kinds(evs), " "); !strings.Contains(got, "tool_call/c1 hook_run/c1 permission/c1:allow tool_result/c1") {
		t.Fatalf("log = %s", got)
	}
	invariants.Check(t, evs)
}

// Exit 2 blocks: the call is denied, and the model reads the hook's stderr.
func TestHookExitTwoDeniesWithItsStderr(t *testing.T) {
	runs := 0
	r := newRig(t, tallied("look", true, &runs))
	r.model.say(asks(tc("c1", "look", `{"x":"a"}`)), text("Done."))
	r.hooked(t.Context(), t.TempDir(), "Go", hooks.Hook{Name: "guard", Event: hooks.BeforeTool, Command: "echo 'not in this folder' >&2; exit 2"})
	evs := r.log.all()
	res := resultFor(t, evs, "c1")
	if runs != 0 || res.ErrorKind != trace.ErrDenied || !strings.Contains(res.Content, "not in this folder") {
		t.Fatalf("runs = %d, result = %+v", runs, res)
	}
	if !r.log.has(trace.KindPermission, "c1", trace.Deny) {
		t.Fatalf("no deny: %s", kinds(evs))
	}
	hr := hookRuns(t, evs)
	if len(hr) != 1 || hr[0].Outcome != trace.HookBlocked || hr[0].ExitCode != 2 || hr[0].Stderr != "not in this folder\n" {
		t.Fatalf("hook runs = %+v", hr)
	}
	// The model reads the reason in the next request.
	last := r.model.sent()[1].Messages
	if m := last[len(last)-1]; !strings.Contains(m.Content, "not in this folder") {
		t.Fatalf("the model read %q", m.Content)
	}
}

// Any other exit is a failure, and blocks; on_failure continue lets the
// call through with a notice.
func TestHookFailureBlocksUnlessItContinues(t *testing.T) {
	for _, tt := range []struct {
		onFailure string
		runs      int
	}{{"", 0}, {hooks.FailBlock, 0}, {hooks.FailContinue, 1}} {
		t.Run("on_failure="+tt.onFailure, func(t *testing.T) {
			runs := 0
			r := newRig(t, tallied("look", true, &runs))
			r.model.say(asks(tc("c1", "look", `{"x":"a"}`)), text("Done."))
			r.hooked(t.Context(), t.TempDir(), "Go", hooks.Hook{Name: "broken", Event: hooks.BeforeTool, Command: "echo oops >&2; exit 1", OnFailure: tt.onFailure})
			evs := r.log.all()
			if runs != tt.runs {
				t.Fatalf("runs = %d, want %d; log %s", runs, tt.runs, kinds(evs))
			}
			hr := hookRuns(t, evs)
			res := resultFor(t, evs, "c1")
			notices := payloads[trace.Notice](t, evs)
			if tt.runs == 0 {
				if hr[0].Outcome != trace.HookFailed || res.ErrorKind != trace.ErrDenied || !strings.Contains(res.Content, "hook broken failed (exit 1): oops") {
					t.Fatalf("hook = %+v, result = %+v", hr[0], res)
				}
				return
			}
			if hr[0].Outcome != trace.HookFailedContinued || res.IsError || len(notices) != 1 || notices[0].Code != CodeHookFailed || !strings.Contains(notices[0].Message, "exit 1") {
				t.Fatalf("hook = %+v, result = %+v, notices = %+v", hr[0], res, notices)
			}
		})
	}
}

// A hook that hangs is killed at its timeout with everything it started:
// the call is blocked, and what it left running never gets to write.
func TestHangingHookIsKilledAtItsTimeout(t *testing.T) {
	dir := t.TempDir()
	runs := 0
	r := newRig(t, tallied("look", true, &runs))
	r.model.say(asks(tc("c1", "look", `{"x":"a"}`)), text("Done."))
	start := time.Now()
	r.hooked(t.Context(), dir, "Go", hooks.Hook{Name: "slow", Event: hooks.BeforeTool, TimeoutS: 1, Command: "(sleep 2; echo alive > left.txt) & sleep 60"})
	took := time.Since(start)
	hr := hookRuns(t, r.log.all())
	if runs != 0 || len(hr) != 1 || !hr[0].TimedOut || hr[0].Outcome != trace.HookFailed || took > 10*time.Second {
		t.Fatalf("runs = %d, took %v, hook runs = %+v", runs, took, hr)
	}
	if res := resultFor(t, r.log.all(), "c1"); !strings.Contains(res.Content, "timed out after 1s") {
		t.Fatalf("result = %+v", res)
	}
	time.Sleep(3 * time.Second)
	if _, err := os.Stat(filepath.Join(dir, "left.txt")); !os.IsNotExist(err) {
		t.Fatalf("a process the hook started outlived it: %v", err)
	}
}

// What an after_edit hook prints is in the observation the model reads,
// and the hook got the paths edited.
func TestAfterEditOutputJoinsTheObservation(t *testing.T) {
	after := "new"
	write := fn{name: "write", run: func(context.Context, json.RawMessage) (tools.Result, error) {
		return tools.Result{Content: "wrote a.go", Changes: []trace.FileChange{{Path: "a.go", After: &after}}}, nil
	}}
	r := newRig(t, write)
	r.model.say(asks(tc("w1", "write", `{"x":"a"}`)), text("Done."))
	r.hooked(t.Context(), t.TempDir(), "Go",
		hooks.Hook{Name: "fmt", Event: hooks.AfterEdit, Command: `grep -o '"paths":\[[^]]*\]'; echo 'a.go:1: missing semicolon'`},
		hooks.Hook{Name: "tests", Event: hooks.AfterTool, Matcher: "read_*", Command: "echo never"})
	evs := r.log.all()
	res := resultFor(t, evs, "w1")
	for _, want := range []string{"wrote a.go", "[loupe: hook fmt (after_edit) said:]", `"paths":["a.go"]`, "a.go:1: missing semicolon"} {
		if !strings.Contains(res.Content, want) {
			t.Fatalf("result lacks %q:\n%s", want, res.Content)
		}
	}
	if res.IsError || res.Bytes != len(res.Content) {
		t.Fatalf("result = %+v", res)
	}
	if hr := hookRuns(t, evs); len(hr) != 1 || hr[0].Event != hooks.AfterEdit {
		t.Fatalf("hook runs = %+v (the matcher should keep the after_tool hook off write)", hr)
	}
	last := r.model.sent()[1].Messages
	if m := last[len(last)-1]; !strings.Contains(m.Content, "missing semicolon") {
		t.Fatalf("the model read %q", m.Content)
	}
	// Exit 2 after a call makes its result an error, with the stderr.
	r2 := newRig(t, write)
	r2.model.say(asks(tc("w1", "write", `{"x":"a"}`)), text("Done."))
	r2.hooked(t.Context(), t.TempDir(), "Go", hooks.Hook{Name: "lint", Event: hooks.AfterTool, Command: "echo 'a.go: 2 problems' >&2; exit 2"})
	if res := resultFor(t, r2.log.all(), "w1"); !res.IsError || !strings.Contains(res.Content, "[loupe: hook lint (after_tool) blocked:]\na.go: 2 problems") {
		t.Fatalf("result = %+v", res)
	}
}

// A hook's allow never runs what a deny rule refuses; it answers a
// question the policy asks; its ask makes a call that would run ask.
func TestHookDecisionsOnlyTighten(t *testing.T) {
	allow := `echo '{"decision":"allow","reason":"looks fine"}'`
	for _, tt := range []struct {
		name   string
		policy permission.Policy
		hook   string
		runs   int
		asked  int
		by     string
	}{
		{"allow does not beat a deny rule", permission.Policy{Mode: permission.ModeAuto, Rules: []permission.Rule{{Effect: permission.EffectDeny, Tool: "write"}}}, allow, 0, 0, "rule: deny write"},
		{"allow does not beat a tool set to never", permission.Policy{Mode: permission.ModeAuto, Tools: map[string]permission.ToolSetting{"write": permission.ToolNever}}, allow, 0, 0, ""},
		{"allow answers an ask", permission.Policy{Mode: permission.ModeAsk}, allow, 1, 0, "hook ok: looks fine"},
		{"ask makes a run ask", permission.Policy{Mode: permission.ModeAuto}, `echo '{"decision":"ask","reason":"big change"}'`, 0, 1, "you"},
		{"deny refuses what would run", permission.Policy{Mode: permission.ModeAuto}, `echo '{"decision":"deny","reason":"frozen"}'`, 0, 0, "hook ok: frozen"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			runs := 0
			r := newRig(t, tallied("write", false, &runs))
			r.cfg.Policy = tt.policy
			r.cfg.Policy.Workspace = t.TempDir()
			r.model.say(asks(tc("w1", "write", `{"x":"a"}`)), text("Done."))
			r.hooked(t.Context(), r.cfg.Policy.Workspace, "Go", hooks.Hook{Name: "ok", Event: hooks.BeforeTool, Command: tt.hook})
			evs := r.log.all()
			if runs != tt.runs || len(r.ask.questions()) != tt.asked {
				t.Fatalf("runs = %d, asked %v; log %s", runs, r.ask.questions(), kinds(evs))
			}
			var last trace.Permission
			for _, p := range payloads[trace.Permission](t, evs) {
				last = p
			}
			if tt.by != "" && last.By != tt.by {
				t.Fatalf("decided by %q, want %q", last.By, tt.by)
			}
		})
	}
}

// Step mode pauses after a call's hook, naming it, before what it said
// counts.
func TestStepModePausesAtAHook(t *testing.T) {
	runs := 0
	r := newRig(t, tallied("look", true, &runs))
	st := newStepper(func(c Checkpoint) bool { return c.Point == trace.PointAfterHook })
	r.pauser = st
	r.model.say(asks(tc("c1", "look", `{"x":"a"}`)), text("Done."))
	done := make(chan trace.RunEnd, 1)
	go func() {
		done <- r.hooked(t.Context(), t.TempDir(), "Go", hooks.Hook{Name: "audit", Event: hooks.BeforeTool, Command: "true"})
	}()
	p := st.next(t)
	if p.Point != trace.PointAfterHook || p.Hook != "audit" || p.CallID != "c1" || runs != 0 {
		t.Fatalf("paused at %+v, runs = %d", p.Checkpoint, runs)
	}
	if err := st.send(t, Command{Action: trace.ActionContinue}); err != nil {
		t.Fatal(err)
	}
	if end := wait(t, done); end.Reason != trace.EndAnswered || runs != 1 {
		t.Fatalf("end = %+v, runs = %d", end, runs)
	}
}

// before_request and run_end hooks run at their events; a before_request
// hook that blocks ends the run before anything is sent.
func TestRequestAndEndHooks(t *testing.T) {
	dir := t.TempDir()
	r := newRig(t)
	r.model.say(text("Hello."))
	end := r.hooked(t.Context(), dir, "Hi",
		hooks.Hook{Name: "req", Event: hooks.BeforeRequest, Command: "cat > req.json"},
		hooks.Hook{Name: "end", Event: hooks.RunEnd, Command: "cat > end.json"})
	if end.Reason != trace.EndAnswered {
		t.Fatalf("end = %+v", end)
	}
	if got := strings.Join(kinds(r.log.all()), " "); got != "user_message hook_run model_request model_response hook_run run_end" {
		t.Fatalf("log = %s", got)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "end.json"))
	if !strings.Contains(string(b), `"reason":"answered"`) || !strings.Contains(string(b), `"event":"run_end"`) {
		t.Fatalf("run_end hook read %s", b)
	}

	r2 := newRig(t)
	r2.model.say(text("Hello."))
	end = r2.hooked(t.Context(), dir, "Hi", hooks.Hook{Name: "gate", Event: hooks.BeforeRequest, Command: "echo 'offline hours' >&2; exit 2"})
	if end.Reason != trace.EndHookBlocked || !strings.Contains(end.Detail, "offline hours") || len(r2.model.sent()) != 0 {
		t.Fatalf("end = %+v, sent %d", end, len(r2.model.sent()))
	}
	invariants.Check(t, r2.log.all())
}
