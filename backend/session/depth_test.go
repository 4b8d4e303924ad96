package session_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/workspace"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

// Safety at depth, through the Manager: what the policy protects holds for
// commands because the sandbox enforces it, even in Auto where nothing
// asks and the classifier is not consulted for the paths a command writes.

func needSandbox(t *testing.T) {
	t.Helper()
	if p := workspace.Protections(); !p.Sandboxed() {
		t.Fatalf("this machine's kernel cannot confine commands (%s): the safety-at-depth tests need it", p.Summary())
	}
}

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.email=a@b", "-c", "user.name=n"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func TestCommandsCannotChangeProtectedOrReadDeniedPaths(t *testing.T) {
	needSandbox(t)
	h := newHarness(t, permission.ModeAuto, func(s *settings.Settings) {
		s.Rules = []permission.Rule{{Effect: permission.EffectDeny, Path: "**/*.pem"}}
	})
	gitIn(t, h.ws, "init", "-q")
	h.write("x", "[core]\n\tfsmonitor = touch FSMONITOR-RAN\n")
	h.write("certs/key.pem", "PEM-SECRET")
	h.write(".env", "ENV-SECRET=1")
	cfg := filepath.Join(h.ws, ".git", "config")
	before, _ := os.ReadFile(cfg)
	h.srv.Script(
		calls(
			call("c1", "run_command", `{"command":"cp x .gi?/config; for d in .git/hook?; do printf '#!/bin/sh\\ntouch HOOK-RAN\\n' > $d/pre-commit; chmod +x $d/pre-commit; done; echo step1"}`),
			call("c2", "run_command", `{"command":"python3 -c \"open('.git/config','a').write('[core]\\\\n\\\\thooksPath=/tmp\\\\n')\" ; cat certs/key.pem .env; echo; echo step2"}`),
		),
		ollamatest.Text("done"),
	)
	// The classifier asks about the writes it can see; the user says yes
	// to everything, which is the worst case: the OS must still hold.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case a := <-h.asks:
				h.answer(a.CallID, true)
			case <-stop:
				return
			}
		}
	}()
	h.run("attack")
	evs := h.events()
	invariants.Check(t, evs)
	after, _ := os.ReadFile(cfg)
	if string(after) != string(before) {
		t.Fatalf(".git/config changed:\n%s", after)
	}
	hooks, _ := filepath.Glob(filepath.Join(h.ws, ".git", "hooks", "pre-commit"))
	if len(hooks) > 0 {
		t.Fatalf("a hook was planted: %v", hooks)
	}
	for _, r := range results(t, evs) {
		if strings.Contains(r.Content, "PEM-SECRET") {
			t.Errorf("a denied file was read by a command: %q", r.Content)
		}
		if !strings.Contains(r.Content, "step") {
			t.Errorf("a command did not run to its end: %q", r.Content)
		}
	}
	gitIn(t, h.ws, "commit", "-q", "--allow-empty", "-m", "as the user")
	for _, m := range []string{"FSMONITOR-RAN", "HOOK-RAN"} {
		if _, err := os.Stat(filepath.Join(h.ws, m)); err == nil {
			t.Errorf("git ran a planted command (%s)", m)
		}
	}
}

func TestTooWideWorkspacesAreRefused(t *testing.T) {
	xdg := t.TempDir()
	t.Setenv("XDG_DATA_HOME", xdg)
	dataDir := filepath.Join(xdg, "loupe")
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, permission.ModeAsk, nil)
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	cases := [][2]string{
		{"/", "whole file system"},
		{home, "home folder"},
		{dataDir, "Loupe's data folder"},
		{filepath.Dir(dataDir), "Loupe's data folder"},
	}
	if parent := filepath.Dir(home); parent != "/" {
		cases = append(cases, [2]string{parent, "holds your home folder"})
	}
	for _, c := range cases {
		dir, want := c[0], c[1]
		_, err := h.m.Create(context.Background(), dir, testModel)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("workspace %s: %v, want an error saying %q", dir, err, want)
		}
	}
	if _, err := h.m.Create(context.Background(), t.TempDir(), testModel); err != nil {
		t.Errorf("a plain project folder: %v", err)
	}
}

func TestExposedPathsAreCheckedAndKept(t *testing.T) {
	h := newHarness(t, permission.ModeAsk, nil)
	ctx := context.Background()
	tool := t.TempDir()
	if err := h.m.Workspaces().SetExpose(ctx, h.ws, []string{tool, " "}); err != nil {
		t.Fatal(err)
	}
	info, err := h.m.Workspaces().Info(ctx, h.ws)
	if err != nil || len(info.Expose) != 1 || info.Expose[0] != tool {
		t.Fatalf("expose = %v, %v", info.Expose, err)
	}
	home, _ := os.UserHomeDir()
	for _, bad := range []string{"relative/dir", filepath.Join(tool, "missing"), home, "/"} {
		if err := h.m.Workspaces().SetExpose(ctx, h.ws, []string{bad}); err == nil {
			t.Errorf("exposing %s was accepted", bad)
		}
	}
}

// A write killed halfway (Loupe stopped between writing its temporary file
// and renaming it) leaves nothing behind once Loupe starts again.
func TestRecoveryRemovesPartialWrites(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	ctx := context.Background()
	h.crashedDuringCall("write_file", `{"path":"src/main.go","content":"package main"}`)
	h.write("src/.main.go.loupe-1234567.tmp", "package ma")  // what the killed write left
	h.write("src/.other.go.loupe-99.tmp", "not this call's") // another file's: kept
	h.write("src/.main.go.loupe-notes.tmp", "the user's")    // not a name Loupe makes: kept
	m2 := session.NewManager(h.st, ollama.New(h.srv.URL(), nil), permission.NewBroker(), nil)
	if err := m2.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	invariants.Check(t, h.events())
	if _, err := os.Stat(filepath.Join(h.ws, "src", ".main.go.loupe-1234567.tmp")); err == nil {
		t.Error("the killed write's temporary file is still there")
	}
	for _, keep := range []string{".other.go.loupe-99.tmp", ".main.go.loupe-notes.tmp"} {
		if _, err := os.Stat(filepath.Join(h.ws, "src", keep)); err != nil {
			t.Errorf("%s was removed", keep)
		}
	}
}
