package session_test

// "Run from here on…" (a fork in a copy of the workspace) keeps the
// workspace's deny rules: the copy is a new folder at a new path, and its
// .loupe/settings.json, the same file, inherits the trust the user gave
// it; its deny rules count trusted or not. What the model was refused in
// the workspace it is refused in the copy, by the tools and the commands.

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/trace"
)

func TestRunFromHereKeepsTheWorkspacesDenyRules(t *testing.T) {
	const secret = "PROD-KEY-7f3a9c"
	h := newHarness(t, permission.ModeAuto, nil)
	ctx := context.Background()
	h.srv.AddModel(ollamatest.ModelSpec{Name: "other", ContextLength: 32768})
	h.write("secrets/prod.key", secret+"\n")
	h.write(".loupe/settings.json", `{"rules":[{"effect":"deny","path":"secrets/**"}]}`)
	if err := h.m.Workspaces().Trust(ctx, h.ws, true); err != nil {
		t.Fatal(err)
	}
	h.srv.Script(
		calls(call("c1", "read_file", `{"path":"secrets/prod.key"}`)),
		ollamatest.Text("It is refused."),
	)
	h.run("Read the key.")
	rs := results(t, h.events())
	if rs[0].ErrorKind != trace.ErrDenied || strings.Contains(rs[0].Content, secret) {
		t.Fatalf("control: the trusted deny rule did not refuse the read in the workspace: %+v", rs[0])
	}

	h.srv.Script(
		calls(call("d1", "read_file", `{"path":"secrets/prod.key"}`),
			call("d2", "run_command", `{"command":"cat secrets/prod.key"}`)),
		ollamatest.Text("Read it."),
	)
	f, err := h.m.RunFrom(ctx, session.Fork{Session: h.id, At: 1, Model: "other"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(f.Files.Workspace) })
	// Whatever the user answers about the command (it mentions what the
	// rule denies, so it asks), the copy's view hides the key.
	go func() {
		for a := range h.asks {
			if _, err := h.m.Do(ctx, session.Answer{Session: f.Summary.ID, CallID: a.CallID, Allow: true, Scope: string(permission.ScopeOnce)}); err != nil {
				t.Errorf("answering the question: %v", err)
			}
		}
	}()
	waitFor(t, func() bool {
		s, _ := h.st.GetSession(ctx, f.Summary.ID)
		return s.OpenRun == 0 && s.EventCount > 2
	}, "the fork's run to end")
	child, err := h.st.Events(ctx, f.Summary.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range child {
		if e.Kind != trace.KindToolResult {
			continue
		}
		r, err := trace.Decode[trace.ToolResult](e)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(r.Content, secret) {
			t.Fatalf("in the fork's copy (%s) the model read the key the workspace's deny rule refuses: %s returned %q", f.Files.Workspace, r.Name, r.Content)
		}
	}
}

// A fork's copy inherits what the user decided for the workspace that
// keeps it as safe: the trust of its .loupe/settings.json (the same file)
// and the answers "deny, always for this workspace"; not the answers that
// allow.
func TestAForksCopyInheritsTheWorkspacesTrustAndDenyAnswers(t *testing.T) {
	const secret = "PROD-KEY-18be20"
	h := newHarness(t, permission.ModeAuto, nil)
	ctx := context.Background()
	h.write("secrets/prod.key", secret+"\n")
	h.write(".loupe/settings.json", `{"commands":["make test"]}`)
	w := h.m.Workspaces()
	if err := w.Trust(ctx, h.ws, true); err != nil {
		t.Fatal(err)
	}
	deny := permission.Grant{Rule: permission.Rule{Effect: permission.EffectDeny, Tool: "read_file", Path: "secrets/**"}, Scope: permission.ScopeWorkspace}
	allow := permission.Grant{Rule: permission.Rule{Effect: permission.EffectAllow, Tool: "run_command", Command: "curl *"}, Scope: permission.ScopeWorkspace}
	for _, g := range []permission.Grant{deny, allow} {
		if err := w.Remember(ctx, h.ws, g); err != nil {
			t.Fatal(err)
		}
	}
	h.srv.Script(ollamatest.Text("hello"))
	h.run("Hello.")
	h.srv.Script(calls(call("d1", "read_file", `{"path":"secrets/prod.key"}`)), ollamatest.Text("Read it."))
	f, err := h.m.RunFrom(ctx, session.Fork{Session: h.id, At: 1, Model: testModel})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(f.Files.Workspace) })
	waitFor(t, func() bool {
		s, _ := h.st.GetSession(ctx, f.Summary.ID)
		return s.OpenRun == 0 && s.EventCount > 2
	}, "the fork's run to end")
	child, _ := h.st.Events(ctx, f.Summary.ID)
	rs := results(t, child)
	if len(rs) == 0 || rs[0].ErrorKind != trace.ErrDenied || strings.Contains(rs[0].Content, secret) {
		t.Fatalf("in the copy the answer \"deny, always for this workspace\" did not count: %+v", rs)
	}
	info, err := w.Info(ctx, f.Files.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	if !info.Trusted {
		t.Error("the copy's .loupe/settings.json, the file the user trusted, is not trusted in the copy")
	}
	if len(info.Grants) != 1 || info.Grants[0].Rule != deny.Rule {
		t.Errorf("the copy's answers for the workspace: %+v; want only the deny", info.Grants)
	}
}
