package sandbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/sandbox"
)

// A workspace that is a linked worktree with a submodule checked out keeps
// that submodule's repository in the worktree's own git folder
// (<main>/.git/worktrees/W/modules/sub), which commands may write (commits
// need it). The submodule's settings and hooks there are read-only all the
// same: a command cannot plant a program that the user's next git status
// in the workspace runs.
func TestLinkedWorktreeSubmodulesSettingsAreReadOnly(t *testing.T) {
	needs(t, protections(t).Writes)
	base := t.TempDir()
	lib := filepath.Join(base, "lib")
	main := filepath.Join(base, "main")
	for _, d := range []string{lib, main} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		initRepo(t, d)
	}
	hostGit(t, main, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "sub")
	hostGit(t, main, "commit", "-q", "-m", "sub")
	ws := filepath.Join(base, "W")
	hostGit(t, main, "worktree", "add", "-q", ws)
	hostGit(t, ws, "-c", "protocol.file.allow=always", "submodule", "update", "--init", "-q")
	modules := filepath.Join(main, ".git", "worktrees", "W", "modules", "sub")
	before, err := os.ReadFile(filepath.Join(modules, "config"))
	if err != nil {
		t.Fatalf("the submodule's repository is not where git keeps it for a worktree: %v", err)
	}

	marker := filepath.Join(base, "RAN")
	out := crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")},
		`d="$(git rev-parse --git-dir)/modules/sub"
printf '[core]\n\tfsmonitor = "touch `+marker+`; false"\n' >> "$d/config"; echo "config=$?"
printf '#!/bin/sh\ntouch `+marker+`\n' > "$d/hooks/post-checkout"; echo "hook=$?"
git status --short >/dev/null; echo "status=$?"`)
	t.Logf("command: %q", out.Text)
	if !strings.Contains(out.Text, "status=0") {
		t.Fatalf("git does not work in the worktree inside the sandbox: %q", out.Text)
	}
	if !strings.Contains(out.Text, "config=1") || !strings.Contains(out.Text, "hook=1") {
		t.Errorf("the command could write the submodule's settings or hooks: %q", out.Text)
	}
	after, _ := os.ReadFile(filepath.Join(modules, "config"))
	if string(after) != string(before) {
		t.Errorf("the submodule's config changed:\n%s", after)
	}
	hostGit(t, ws, "status")
	if ran(t, marker) {
		t.Error("the user's git status in the workspace ran a program the command planted in the submodule's repository")
	}
}
