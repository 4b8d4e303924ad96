package session_test

import (
	"context"
	"errors"
	"github.com/loupe-dev/loupe/backend/session"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/backend/workspace"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

// Commands run confined by the OS, even in auto mode: a write outside the
// workspace fails however the command is written.
func TestCommandsAreConfined(t *testing.T) {
	if p := workspace.Protections(); !p.Sandboxed() {
		t.Skipf("this kernel cannot confine commands (%s); the policy then asks before every command, which TestUnconfinedAsks covers", p.Summary())
	}
	h := newHarness(t, permission.ModeAuto, nil)
	outside := t.TempDir()
	target := filepath.Join(outside, "escaped.txt")
	h.srv.Script(
		calls(call("c1", "run_command", `{"command":"echo inside > in.txt; echo out > `+target+`; echo done"}`)),
		ollamatest.Text("ok"),
	)
	h.run("try")
	if _, err := os.Stat(target); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a command wrote outside the workspace: %v", err)
	}
	if s, _ := h.read("in.txt"); s != "inside\n" {
		t.Fatalf("a write inside the workspace failed: %q", s)
	}
	rs := results(t, h.events())
	if !strings.Contains(rs[0].Content, "done") {
		t.Fatalf("result = %q", rs[0].Content)
	}
}

// Deny rules refuse without asking, protected paths ask even in auto mode,
// and the third call of the message runs: each call is decided on its own.
func TestDenyRuleAndProtectedPathAmongParallelCalls(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, func(s *settings.Settings) {
		s.Rules = []permission.Rule{{Effect: permission.EffectDeny, Path: "**/*.pem"}}
	})
	h.srv.Script(
		calls(
			call("c1", "write_file", `{"path":"key.pem","content":"secret"}`),
			call("c2", "write_file", `{"path":".env","content":"TOKEN=1"}`),
			call("c3", "list_dir", `{"path":"."}`),
		),
		ollamatest.Text("ok"),
	)
	go func() {
		a := <-h.asks
		if a.CallID != "c2" || !a.OnceOnly {
			t.Errorf("asked about %+v, want the protected .env write, once only", a)
		}
		h.answer(a.CallID, false)
	}()
	h.run("write things")
	evs := h.events()
	invariants.Check(t, evs)
	rs := results(t, evs)
	if rs[0].ErrorKind != trace.ErrDenied || !strings.Contains(rs[0].Content, "*.pem") {
		t.Fatalf("deny rule result = %+v", rs[0])
	}
	if rs[1].ErrorKind != trace.ErrDenied {
		t.Fatalf("protected path result = %+v", rs[1])
	}
	if rs[2].IsError || !strings.Contains(rs[2].Content, "README.md") {
		t.Fatalf("third call = %+v", rs[2])
	}
	for _, f := range []string{"key.pem", ".env"} {
		if _, ok := h.read(f); ok {
			t.Fatalf("%s was written", f)
		}
	}
}

// "For this session" is remembered: the same command runs without asking
// the next time, and the log says who allowed it.
func TestSessionGrant(t *testing.T) {
	h := newHarness(t, permission.ModeAsk, nil)
	h.srv.Script(
		calls(call("c1", "run_command", `{"command":"echo one"}`)),
		calls(call("c2", "run_command", `{"command":"echo one"}`)),
		ollamatest.Text("ok"),
	)
	asked := 0
	go func() {
		for a := range h.asks {
			asked++
			if _, err := h.m.Do(context.Background(), session.Answer{Session: h.id, CallID: a.CallID, Allow: true, Scope: string(permission.ScopeSession)}); err != nil {
				t.Error(err)
			}
		}
	}()
	h.run("twice")
	var bys []string
	for _, e := range h.events() {
		if e.Kind == trace.KindPermission {
			if p, _ := trace.Decode[trace.Permission](e); p.Decision != trace.Ask {
				bys = append(bys, p.By)
			}
		}
	}
	if len(bys) != 2 || !strings.Contains(bys[1], "session") || asked != 1 {
		t.Fatalf("permission deciders = %q after %d questions, want one question", bys, asked)
	}
	// A new run of the same session still remembers.
	h.srv.Script(calls(call("c3", "run_command", `{"command":"echo one"}`)), ollamatest.Text("ok"))
	h.run("again")
	if asked != 1 {
		t.Fatalf("asked %d times, want once", asked)
	}
}

// A workspace's own settings file cannot grant anything until the user
// trusts the workspace.
func TestUntrustedWorkspaceSettingsCannotGrant(t *testing.T) {
	h := newHarness(t, permission.ModeAsk, nil)
	h.write(".loupe/settings.json", `{"rules":[{"effect":"allow","tool":"run_command","command":"echo *"}]}`)
	h.srv.Script(calls(call("c1", "run_command", `{"command":"echo hi"}`)), ollamatest.Text("ok"))
	go func() {
		a := <-h.asks
		h.answer(a.CallID, false)
	}()
	h.run("hi")
	if notices(h.events(), "workspace_untrusted") == 0 {
		t.Fatal("no notice that the workspace settings are ignored")
	}
	if rs := results(t, h.events()); rs[0].ErrorKind != trace.ErrDenied {
		t.Fatalf("untrusted settings allowed the command: %+v", rs[0])
	}
	// Trusted, the same rule lets it run.
	if err := h.m.Workspaces().Trust(context.Background(), h.ws, true); err != nil {
		t.Fatal(err)
	}
	h.srv.Script(calls(call("c2", "run_command", `{"command":"echo hi"}`)), ollamatest.Text("ok"))
	h.run("hi again")
	rs := results(t, h.events())
	if last := rs[len(rs)-1]; last.IsError || !strings.Contains(last.Content, "hi") {
		t.Fatalf("trusted rule did not allow the command: %+v", last)
	}
	// Changing the file withdraws the trust.
	h.write(".loupe/settings.json", `{"rules":[{"effect":"allow","tool":"run_command","command":"*"}]}`)
	info, err := h.m.Workspaces().Info(context.Background(), h.ws)
	if err != nil || info.Trusted {
		t.Fatalf("a changed settings file is still trusted: %+v %v", info, err)
	}
}
