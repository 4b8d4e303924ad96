package permission

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// decideTool is the decision for a file tool's call as the tool loop
// makes it: the call's JSON arguments read by CallFor, then the policy.
func decideTool(t *testing.T, p Policy, tool string, args map[string]any) Decision {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	c, err := CallFor(tool, raw, false)
	if err != nil {
		t.Fatalf("CallFor(%s, %s): %v", tool, raw, err)
	}
	return p.Decide(c)
}

func shell(t *testing.T, dir, script string) string {
	t.Helper()
	c := exec.Command("bash", "-c", script)
	c.Dir = dir
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v %s", script, err, out)
	}
	return string(out)
}

// A file of the working tree that the repository's settings have git run
// (core.fsmonitor = sh tools/fsmon.sh; a hook in the core.hooksPath folder
// .githooks) is read-only to commands, and the file tools ask before
// changing it, in auto mode too, with the reason: write_file and edit_file
// alike. The control writes what the tool would have and shows the user's
// git running it.
func TestFileToolsAskBeforeWritingProgramsGitRuns(t *testing.T) {
	for _, c := range []struct {
		name, file string
		user       string
	}{
		{"fsmonitor script", "tools/fsmon.sh", "status --short"},
		{"hook in core.hooksPath", ".githooks/pre-commit", "commit -q --allow-empty -m x"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws := t.TempDir()
			shell(t, ws, `git init -q; git -c user.name=n -c user.email=a@b commit -q --allow-empty -m init
mkdir -p tools .githooks; printf '#!/bin/sh\nexit 1\n' > tools/fsmon.sh
printf '#!/bin/sh\nexit 0\n' > .githooks/pre-commit; chmod +x .githooks/pre-commit
git config core.fsmonitor 'sh tools/fsmon.sh'; git config core.hooksPath .githooks`)
			p := Policy{Mode: ModeAuto, Workspace: ws}
			for tool, args := range map[string]map[string]any{
				"write_file": {"path": c.file, "content": "#!/bin/sh\ntouch RAN\n"},
				"edit_file":  {"path": c.file, "old_string": "exit", "new_string": "touch RAN; exit"},
			} {
				d := decideTool(t, p, tool, args)
				if d.Verdict == Run {
					t.Errorf("%s %s runs in auto mode, though git runs that file", tool, c.file)
				} else if !strings.Contains(strings.Join(d.Reasons, " "), "a program or hooks folder a git setting names") {
					t.Errorf("%s %s asks without saying why: %q", tool, c.file, d.Reasons)
				}
			}
			// Control: what write_file would have written, the user's
			// git runs.
			marker := filepath.Join(t.TempDir(), "RAN")
			if err := os.WriteFile(filepath.Join(ws, c.file), []byte("#!/bin/sh\ntouch "+marker+"\nexit 1\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			shell(t, ws, `git -c user.name=n -c user.email=a@b `+c.user+` >/dev/null 2>&1 || true`)
			if _, err := os.Stat(marker); err != nil {
				t.Errorf("control: the user's git did not run %s; the case is not real", c.file)
			}
		})
	}
}

// What git keeps of a rebase, cherry-pick or revert under way (the todo
// list whose exec lines the user's git rebase --continue runs, and the
// files that make git think one is paused) asks before a file tool changes
// it, in auto mode too, in a .git folder (also before it exists), in a
// bare repository in a folder, in a linked worktree's folder and in a
// workspace that is a .git folder. A folder of the same name in the
// working tree is a plain folder.
func TestFileToolsAskBeforeWritingARebaseUnderWay(t *testing.T) {
	ws := t.TempDir()
	shell(t, ws, `git init -q; git -c user.name=n -c user.email=a@b commit -q --allow-empty -m init
git init -q --bare vendor/bare.git; git worktree add -q ../wt-$$ 2>/dev/null || true
mkdir -p .git/worktrees/w; echo ref: refs/heads/main > .git/worktrees/w/HEAD; echo ../.. > .git/worktrees/w/commondir`)
	p := Policy{Mode: ModeAuto, Workspace: ws}
	var files []string
	for _, dir := range []string{".git", "vendor/bare.git", ".git/worktrees/w"} {
		for _, f := range []string{"rebase-merge/git-rebase-todo", "rebase-merge/interactive", "rebase-merge/head-name", "rebase-merge/onto", "rebase-merge/done", "rebase-apply/next", "sequencer/todo", "sequencer/opts"} {
			files = append(files, dir+"/"+f)
		}
	}
	for _, f := range files {
		for tool, args := range map[string]map[string]any{
			"write_file": {"path": f, "content": "exec touch RAN\n"},
			"edit_file":  {"path": f, "old_string": "pick", "new_string": "exec touch RAN"},
		} {
			if d := decideTool(t, p, tool, args); d.Verdict == Run {
				t.Errorf("%s %s runs in auto mode; git carries out what it says on --continue", tool, f)
			}
		}
	}
	if d := decideTool(t, p, "write_file", map[string]any{"path": "docs/rebase-merge/notes.md", "content": "x"}); d.Verdict != Run {
		t.Errorf("write_file docs/rebase-merge/notes.md asks in auto mode, in no git directory: %q", d.Reasons)
	}
	// A workspace that is a .git folder: its rebase-merge/ is git's.
	gp := Policy{Mode: ModeAuto, Workspace: filepath.Join(ws, ".git")}
	if d := decideTool(t, gp, "write_file", map[string]any{"path": "rebase-merge/git-rebase-todo", "content": "exec touch RAN\n"}); d.Verdict == Run {
		t.Errorf("write_file rebase-merge/git-rebase-todo runs in auto mode in a workspace that is a .git folder")
	}
}
