package sandbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/sandbox"
)

// The workspace is a linked worktree W. Its own git folder in the main
// repository (main/.git/worktrees/W) is writable for commits. A command
// makes a whole submodule repository there, modules/evil, with a
// post-checkout hook, and registers the submodule (.gitmodules and a
// gitlink in W's index, which is in that writable folder). The user's
// `git submodule update --init` in W reuses the git directory it finds
// and runs its hook (the control shows it). The check after the round
// walks that folder as it walks the workspace and renames the repository.
func TestLinkedWorktreeNewSubmoduleRepository(t *testing.T) {
	needs(t, protections(t).Writes)
	for _, control := range []bool{true, false} {
		name := "loupe"
		if control {
			name = "control"
		}
		t.Run(name, func(t *testing.T) {
			main := t.TempDir()
			initRepo(t, main)
			ws := filepath.Join(t.TempDir(), "W")
			git(t, main, "worktree", "add", "-q", ws)
			marker := filepath.Join(t.TempDir(), "RAN")
			script := `set -e
G=$(git rev-parse --absolute-git-dir)
git init -q s; git -C s -c user.email=a@b -c user.name=n commit -q --allow-empty -m s
sha=$(git -C s rev-parse HEAD)
git clone -q --bare s "$G/modules/evil"; rm -rf s; git -C "$G/modules/evil" config core.bare false
printf '#!/bin/sh\ntouch ` + marker + `\n' > "$G/modules/evil/hooks/post-checkout"; chmod +x "$G/modules/evil/hooks/post-checkout"
printf '[submodule "evil"]\n\tpath = evil\n\turl = ./evil\n' > .gitmodules
git update-index --add --cacheinfo 160000,$sha,evil
echo planted`
			if control {
				out := bash(t, ws, script)
				if !strings.Contains(out, "planted") {
					t.Fatalf("control: %s", out)
				}
			} else {
				out := crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, script)
				t.Logf("command: %q", out.Text)
				if !strings.Contains(out.Text, "planted") {
					t.Fatalf("command failed: %q", out.Text)
				}
			}
			t.Logf("user's git submodule update --init: %s", hostGit(t, ws, "-c", "protocol.file.allow=always", "submodule", "update", "--init"))
			switch {
			case control && !ran(t, marker):
				t.Fatalf("control: the hook did not run; the case is not real")
			case !control && ran(t, marker):
				t.Errorf("the user's git submodule update --init in the worktree ran a hook of a submodule repository a command made in main/.git/worktrees/W/modules")
			}
		})
	}
}

// Nested: a command makes a harmless submodule repository modules/a and,
// inside it, modules/a/modules/evil with a hook (git keeps a submodule's
// own submodules there). The check renames the one with the hook, however
// deep, and leaves the harmless one.
func TestLinkedWorktreeNewNestedSubmoduleRepository(t *testing.T) {
	needs(t, protections(t).Writes)
	main := t.TempDir()
	initRepo(t, main)
	ws := filepath.Join(t.TempDir(), "W")
	git(t, main, "worktree", "add", "-q", ws)
	script := `set -e
G=$(git rev-parse --absolute-git-dir)
git init -q --bare "$G/modules/a"; git init -q --bare "$G/modules/a/modules/evil"
printf '#!/bin/sh\ntouch /tmp/never\n' > "$G/modules/a/modules/evil/hooks/post-checkout"
echo planted`
	out := crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, script)
	t.Logf("command: %q", out.Text)
	if !strings.Contains(out.Text, "planted") {
		t.Fatalf("command failed: %q", out.Text)
	}
	g := filepath.Join(main, ".git", "worktrees", "W", "modules")
	if _, err := os.Stat(filepath.Join(g, "a", "modules", "evil", "hooks", "post-checkout")); err == nil {
		t.Errorf("the nested submodule repository with a hook a command made is still where git looks for it")
	}
	if _, err := os.Stat(filepath.Join(g, "a", "HEAD")); err != nil {
		t.Errorf("the harmless submodule repository was moved: %v", err)
	}
}
