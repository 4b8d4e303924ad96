package session_test

// Hole: "Run from here on…" (a fork with "a copy as it was then") drops the
// workspace's deny rules: the model reads in the copy what it was refused
// in the workspace.
//
// Steps: the workspace holds secrets/prod.key and a .loupe/settings.json
// the user trusted, whose rule denies secrets/** to every tool (the
// commands' view hides it too). In the session, read_file of the key is
// refused. The user runs the rest of the task on another model ("Run from
// here on…"); in the copy, the same read_file returns the key.
//
// Mechanism: the copy is a new folder with a new path, and everything
// Loupe keeps per workspace is keyed by the path: the trust (a digest of
// the settings file, saved under "workspace/<dir>"), the answers "always
// for this workspace" (deny ones included), the network and exposed
// paths. The copy carries .loupe/settings.json byte for byte, but it is
// untrusted there, and an untrusted settings file's rules are all
// ignored, deny rules as well as allow rules. copyWorkspace also copies
// the denied files themselves. So every workspace deny rule (and every
// "deny always for this workspace") is lost in the fork, with only a
// notice that the settings are untrusted.

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

func TestAdv8RunFromHereKeepsTheWorkspacesDenyRules(t *testing.T) {
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
