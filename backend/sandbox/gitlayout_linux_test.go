package sandbox_test

// Git's own files whatever the repository's layout: a linked worktree's
// config.worktree (created, where the repository reads worktree config),
// a workspace that is a .git folder or a bare repository, and a
// workspace a command turns into a repository. Each runs a real command
// through sandbox.Confined with the app's guard, then does what the user
// would do afterwards (git, outside the sandbox) and checks for a marker.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/sandbox"
)

// fsmonitorLine is a config.worktree that runs a marker program on the
// user's next git status.
func fsmonitorLine(marker string) string {
	return `printf '[core]\n\tfsmonitor = "touch ` + marker + `; false"\n'`
}

// A command cannot create config.worktree for a linked worktree of a
// repository that reads worktree config: neither the worktree's git folder
// inside the workspace (the worktree itself elsewhere) nor, in a workspace
// that is the linked worktree, its git folder in the main repository.
func TestLinkedWorktreeConfigWorktreeCannotBeCreated(t *testing.T) {
	needs(t, protections(t).Writes)
	t.Run("worktree folder in the workspace", func(t *testing.T) {
		ws := t.TempDir()
		initRepo(t, ws)
		hostGit(t, ws, "config", "extensions.worktreeConfig", "true")
		feature := filepath.Join(t.TempDir(), "feature")
		hostGit(t, ws, "worktree", "add", "-q", "-b", "feature", feature)
		marker := filepath.Join(t.TempDir(), "RAN")
		out := crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, fsmonitorLine(marker)+` > .git/worktrees/feature/config.worktree; echo "write=$?"`)
		hostGit(t, feature, "status")
		if ran(t, marker) {
			t.Errorf("the user's git status in the linked worktree ran what the command wrote in its config.worktree (%q)", out.Text)
		}
		// The empty config.worktree Loupe made is its own, not something
		// the command left to disarm.
		if strings.Contains(out.Text, "disarm") {
			t.Errorf("Loupe disarmed its own config.worktree: %q", out.Text)
		}
		hostGit(t, ws, "status")
	})
	t.Run("workspace is the linked worktree", func(t *testing.T) {
		main := t.TempDir()
		initRepo(t, main)
		hostGit(t, main, "config", "extensions.worktreeConfig", "true")
		ws := filepath.Join(t.TempDir(), "feature")
		hostGit(t, main, "worktree", "add", "-q", "-b", "feature", ws)
		marker := filepath.Join(t.TempDir(), "RAN")
		out := crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, fsmonitorLine(marker)+` > "$(git rev-parse --git-dir)/config.worktree"; echo "write=$?"; git -c user.email=a@b -c user.name=n commit -q --allow-empty -m inside && echo committed`)
		if !strings.Contains(out.Text, "committed") {
			t.Errorf("git in the linked worktree no longer commits: %q", out.Text)
		}
		hostGit(t, ws, "status")
		if ran(t, marker) {
			t.Errorf("the user's git status ran what the command wrote in the worktree's config.worktree (%q)", out.Text)
		}
	})
}

// A workspace that is a repository's .git folder, or a bare repository:
// its config and hooks are a repository's, read-only for commands (the
// user's git then runs nothing planted), and the clean-up never renames
// the workspace.
func TestWorkspaceThatIsAGitDir(t *testing.T) {
	needs(t, protections(t).Writes)
	proj := t.TempDir()
	initRepo(t, proj)
	bare := filepath.Join(t.TempDir(), "bare.git")
	hostGit(t, filepath.Dir(bare), "init", "-q", "--bare", bare)
	for name, ws := range map[string]string{"a .git folder": filepath.Join(proj, ".git"), "a bare repository": bare} {
		t.Run(name, func(t *testing.T) {
			cfg, _ := os.ReadFile(filepath.Join(ws, "config"))
			marker := filepath.Join(t.TempDir(), "RAN")
			out := crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, `
printf '[core]\n\tfsmonitor = "touch `+marker+`; false"\n\tpager = "touch `+marker+`.pager; cat"\n' >> config; echo "config=$?"
printf '#!/bin/sh\ntouch `+marker+`.hook\n' > hooks/pre-commit; chmod +x hooks/pre-commit; echo "hook=$?"
mv hooks h2; mkdir -p info; echo '* filter=x' > info/attributes; echo "attributes=$?"; echo end`)
			if b, _ := os.ReadFile(filepath.Join(ws, "config")); string(b) != string(cfg) {
				t.Errorf("the command changed the repository's config:\n%s\n(%q)", b, out.Text)
			}
			if _, err := os.Stat(filepath.Join(ws, "hooks", "pre-commit")); err == nil {
				t.Errorf("the command planted a hook (%q)", out.Text)
			}
			if _, err := os.Stat(ws); err != nil {
				t.Fatalf("the workspace is gone: %v (%q)", err, out.Text)
			}
			if strings.Contains(out.Text, "renamed it to .loupe-disarmed") || strings.Contains(out.Text, "renamed it to ..") {
				t.Errorf("the clean-up renamed the workspace: %q", out.Text)
			}
			if name == "a .git folder" {
				hostGit(t, proj, "status")
				hostGit(t, proj, "commit", "-q", "--allow-empty", "-m", "user")
			} else {
				hostGit(t, ws, "log")
			}
			for _, m := range []string{marker, marker + ".pager", marker + ".hook"} {
				if ran(t, m) {
					t.Errorf("the user's git ran %s planted by the command", filepath.Base(m))
				}
			}
		})
	}
}

// A command that turns the workspace itself into a repository whose
// settings run a program: the clean-up does not rename the workspace (the
// user's folder keeps its name), it renames the files that would run
// something, and says so.
func TestWorkspaceTurnedIntoARepositoryKeepsItsName(t *testing.T) {
	needs(t, protections(t).Writes)
	ws := filepath.Join(t.TempDir(), "project")
	os.MkdirAll(ws, 0o755)
	marker := filepath.Join(t.TempDir(), "RAN")
	out := crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, `git init -q --bare . && git config core.pager "touch `+marker+`; cat" && printf '#!/bin/sh\ntouch `+marker+`.hook\n' > hooks/post-update && chmod +x hooks/post-update && echo made`)
	if _, err := os.Stat(filepath.Join(ws, "HEAD")); err != nil {
		t.Fatalf("the workspace was renamed or emptied: %v (%q)", err, out.Text)
	}
	if !strings.Contains(out.Text, "renamed it to config.loupe-disarmed") || !strings.Contains(out.Text, "the workspace itself") {
		t.Errorf("the output does not say what was disarmed in the workspace: %q", out.Text)
	}
	hostGit(t, ws, "log")
	if ran(t, marker) || ran(t, marker+".hook") {
		t.Error("the user's git ran what the command planted")
	}
}
