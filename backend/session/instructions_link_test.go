package session_test

// AGENTS.md is read as the tools read: no link followed, and not when a
// rule denies it. A command that links AGENTS.md to a file a deny rule
// hides does not put that file into the next run's system prompt; the run
// says the link was not read.

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/backend/workspace"
)

func TestAgentsFileIsNotReadThroughALinkToADeniedFile(t *testing.T) {
	const secret = "PROD-KEY-d41c8e"
	h := newHarness(t, permission.ModeAuto, func(s *settings.Settings) {
		s.Rules = append(s.Rules, permission.Rule{Effect: permission.EffectDeny, Path: "secrets/**"})
	})
	h.write("secrets/prod.key", secret+"\n")
	h.approveAll()
	h.srv.Script(
		calls(call("c1", "read_file", `{"path":"secrets/prod.key"}`),
			call("c2", "run_command", `{"command":"cat secrets/prod.key; ln -s secrets/prod.key AGENTS.md; echo linked"}`)),
		ollamatest.Text("done"),
	)
	h.run("Set things up.")
	rs := results(t, h.events())
	if rs[0].ErrorKind != trace.ErrDenied {
		t.Fatalf("control: the deny rule did not refuse read_file: %+v", rs[0])
	}
	for _, r := range rs {
		if bytes.Contains([]byte(r.Content), []byte(secret)) {
			t.Fatalf("control: %s read the denied file: %q", r.CallID, r.Content)
		}
	}
	sent := len(h.srv.Requests())
	h.srv.Script(ollamatest.Text("hello"))
	h.run("Next task.")
	for _, r := range h.srv.Requests()[sent:] {
		if bytes.Contains(r.Body, []byte(secret)) {
			t.Fatalf("the next run's request gave the model the file the deny rule hides, through AGENTS.md -> secrets/prod.key")
		}
	}
	if workspace.Protections().Sandboxed() && notices(h.events(), "instructions_unreadable") == 0 {
		t.Fatal("the run does not say that AGENTS.md, a link, was not read")
	}
}

// A link inside the workspace (AGENTS.md -> docs/agents.md) is named, not
// read; an AGENTS.md a rule denies is not read either.
func TestAgentsFileThatIsALinkOrDeniedIsNamedNotRead(t *testing.T) {
	ws := t.TempDir()
	writeIn(t, ws, "docs/agents.md", "SECRET NOTES\n")
	if err := os.Symlink("docs/agents.md", filepath.Join(ws, "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	sp, err := session.SystemFor(settings.Defaults(), ws)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sp.Text, "SECRET") || sp.Notice == nil || !strings.Contains(sp.Notice.Message, "link") || !strings.Contains(sp.Notice.Message, "docs/agents.md") {
		t.Fatalf("AGENTS.md, a link: notice %+v; want it named, not read", sp.Notice)
	}
	ws = t.TempDir()
	writeIn(t, ws, "AGENTS.md", "SECRET NOTES\n")
	writeIn(t, ws, ".loupe/settings.json", `{"rules":[{"effect":"deny","path":"AGENTS.md"}]}`)
	sp, err = session.SystemFor(settings.Defaults(), ws)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sp.Text, "SECRET") || sp.Notice == nil || !strings.Contains(sp.Notice.Message, "refused") {
		t.Fatalf("AGENTS.md denied by the workspace's own rule: notice %+v; want it not read", sp.Notice)
	}
}
