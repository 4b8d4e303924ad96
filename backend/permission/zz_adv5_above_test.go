package permission

import (
	"path/filepath"
	"testing"
)

// The workspace is a folder (sub) of a bigger repository. What that
// repository's settings have git run or read inside the workspace: does
// write_file ask? (The included file is the control: SECURITY.md says the
// repository the workspace is a folder of is read for includes.)
func TestZZAdv5FileToolsInAFolderOfABiggerRepository(t *testing.T) {
	for _, c := range []struct{ name, config, file string }{
		{"included settings (control: held)", `git config include.path "$PWD/sub/team.inc"`, "team.inc"},
		{"core.fsmonitor program", `git config core.fsmonitor 'sh sub/fsmon.sh'`, "fsmon.sh"},
		{"core.hooksPath folder", `git config core.hooksPath sub/.husky/_`, ".husky/_/pre-commit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := t.TempDir()
			shell(t, p, `git init -q; mkdir -p sub/.husky/_; echo 'exit 0' > sub/fsmon.sh; git -c user.name=n -c user.email=a@b commit -q --allow-empty -m init; `+c.config)
			pol := Policy{Mode: ModeAuto, Workspace: filepath.Join(p, "sub")}
			if d := decideTool(t, pol, "write_file", map[string]any{"path": c.file, "content": "x\n"}); d.Verdict == Run {
				t.Errorf("write_file %s runs in auto mode in a folder of a repository whose settings name it", c.file)
			}
		})
	}
}

// The workspace is a linked worktree (outside the main repository) of a
// repository whose settings name a hooks folder relative to the working
// tree: git runs the worktree's own .githooks.
func TestZZAdv5FileToolsInALinkedWorktree(t *testing.T) {
	p, w := t.TempDir(), filepath.Join(t.TempDir(), "w")
	shell(t, p, `git init -q; mkdir .githooks; echo 'exit 0' > .githooks/pre-commit; git add .githooks; git -c user.name=n -c user.email=a@b commit -q -m init; git config core.hooksPath .githooks; git config core.fsmonitor 'sh tools/fsmon.sh'; git worktree add -q `+w)
	pol := Policy{Mode: ModeAuto, Workspace: w}
	for _, f := range []string{".githooks/pre-commit", "tools/fsmon.sh"} {
		if d := decideTool(t, pol, "write_file", map[string]any{"path": f, "content": "x\n"}); d.Verdict == Run {
			t.Errorf("write_file %s runs in auto mode in a linked worktree whose repository's settings name it", f)
		}
	}
}
