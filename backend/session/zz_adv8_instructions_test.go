package session_test

// Hole: AGENTS.md is read by Loupe's own process through a symbolic link,
// so a command points it at a file a deny rule hides, and the next run's
// system prompt gives the model the file.
//
// Steps: the user's rule denies secrets/** to every tool (the commands'
// view hides it: it looks empty). The model runs
// `ln -s secrets/prod.key AGENTS.md`: making a link needs nothing of its
// target, and a link in the workspace is not a path the rule covers. The
// user sends the next message: its request's system prompt holds the key,
// as "the workspace's own notes for agents".
//
// Mechanism: readInstructions opens AGENTS.md with os.OpenRoot, which
// follows symbolic links that stay inside the root, and asks no policy:
// neither the deny rules nor the protected paths are checked for the file
// it really reads, unlike the tools (one resolver, the guard on what was
// opened) and hands (no link followed).

import (
	"bytes"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/trace"
)

func TestAdv8InstructionsFileDoesNotReadADeniedFileThroughALink(t *testing.T) {
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
}
