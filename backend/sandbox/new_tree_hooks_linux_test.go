package sandbox_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/sandbox"
)

// Other ways a confined command makes a new working tree whose relative
// hooks folder no mount holds: a .git file pointing at the workspace's own
// git folder (the working tree is the folder holding the file), with the
// hooks folder named in the repository's settings or only in the user's
// ~/.gitconfig, and a plain git init under a relative core.hooksPath in
// ~/.gitconfig. The check after the command finds the new working tree and
// its hooks folder and disarms it; each case has a control on the host.
func TestHooksFolderOfOtherNewTrees(t *testing.T) {
	needs(t, protections(t).Writes)
	for _, tc := range []struct {
		name, script, userDir string
		global                bool
	}{
		{"a .git file naming the workspace's .git", `mkdir -p sub/.githooks && printf 'gitdir: ../.git\n' > sub/.git && printf '#!/bin/sh\ntouch MARKER\n' > sub/.githooks/pre-commit && chmod +x sub/.githooks/pre-commit; echo "write=$?"`, "sub", false},
		{"a .git file naming the workspace's .git, hooksPath in ~/.gitconfig", `mkdir -p sub/.githooks && printf 'gitdir: ../.git\n' > sub/.git && printf '#!/bin/sh\ntouch MARKER\n' > sub/.githooks/pre-commit && chmod +x sub/.githooks/pre-commit; echo "write=$?"`, "sub", true},
		{"git init under a relative hooksPath in ~/.gitconfig", `git init -q sub && mkdir -p sub/.githooks && printf '#!/bin/sh\ntouch MARKER\n' > sub/.githooks/pre-commit && chmod +x sub/.githooks/pre-commit; echo "write=$?"`, "sub", true},
	} {
		for _, control := range []bool{true, false} {
			name := tc.name
			if control {
				name += "/control"
			}
			t.Run(name, func(t *testing.T) {
				home := isolateGit(t)
				ws := t.TempDir()
				initRepo(t, ws)
				if tc.global {
					hostGit(t, ws, "config", "--file", filepath.Join(home, ".gitconfig"), "core.hooksPath", ".githooks")
				} else {
					hostGit(t, ws, "config", "core.hooksPath", ".githooks")
				}
				marker := filepath.Join(t.TempDir(), "RAN")
				script := strings.ReplaceAll(tc.script, "MARKER", marker)
				if control {
					if out := hostShell(t, ws, script); !strings.Contains(out, "write=0") {
						t.Fatalf("control: %s", out)
					}
				} else {
					out := crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, script)
					t.Logf("command: %s", out.Text)
				}
				t.Logf("tree: %s", hostShell(t, ws, "find . -path ./.git -prune -o -print"))
				t.Logf("user's git commit in %s: %s", tc.userDir, hostGit(t, filepath.Join(ws, tc.userDir), "commit", "-q", "--allow-empty", "-m", "x"))
				switch {
				case control && !ran(t, marker):
					t.Fatalf("control: the user's git did not run the hook")
				case !control && ran(t, marker):
					t.Errorf("the user's git commit in %s ran the hook a confined command wrote", tc.userDir)
				}
			})
		}
	}
}

// A new working tree whose hooks folder is a symbolic link leading out of
// the workspace, to a folder holding a hook (as one a command could fill
// in its cache, which outlasts it): the check after the command renames
// the link, and the user's git commit runs nothing. The control shows
// that on the host it runs.
func TestHooksFolderOfANewTreeBehindALinkOut(t *testing.T) {
	needs(t, protections(t).Writes)
	for _, control := range []bool{true, false} {
		name := "through Loupe"
		if control {
			name = "control"
		}
		t.Run(name, func(t *testing.T) {
			isolateGit(t)
			ws := t.TempDir()
			initRepo(t, ws)
			hostGit(t, ws, "config", "core.hooksPath", ".githooks")
			marker := filepath.Join(t.TempDir(), "RAN")
			out := t.TempDir()
			hostShell(t, out, `printf '#!/bin/sh\ntouch `+marker+`\n' > pre-commit && chmod +x pre-commit`)
			script := `git worktree add -q wt && ln -s ` + out + ` wt/.githooks; echo "write=$?"`
			if control {
				if o := hostShell(t, ws, script); !strings.Contains(o, "write=0") {
					t.Fatalf("control: %s", o)
				}
			} else {
				o := crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, script)
				t.Logf("command: %s", o.Text)
			}
			t.Logf("user's git commit in wt: %s", hostGit(t, filepath.Join(ws, "wt"), "commit", "-q", "--allow-empty", "-m", "x"))
			switch {
			case control && !ran(t, marker):
				t.Fatalf("control: the user's git did not run the hook")
			case !control && ran(t, marker):
				t.Errorf("the user's git commit in wt ran a hook through the link a confined command made")
			}
		})
	}
}
