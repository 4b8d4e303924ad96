package permission

import (
	"path/filepath"
	"testing"
)

// The workspace is a linked worktree (outside the main repository) of a
// repository whose settings name a hooks folder and a program relative to
// the working tree: git runs the worktree's own .githooks and
// tools/fsmon.sh, and write_file asks before writing them.
func TestFileToolsAskInALinkedWorktreeOfARepositoryWithPrograms(t *testing.T) {
	p, w := t.TempDir(), filepath.Join(t.TempDir(), "w")
	shell(t, p, `git init -q; mkdir .githooks; echo 'exit 0' > .githooks/pre-commit; git add .githooks; git -c user.name=n -c user.email=a@b commit -q -m init; git config core.hooksPath .githooks; git config core.fsmonitor 'sh tools/fsmon.sh'; git worktree add -q `+w)
	pol := Policy{Mode: ModeAuto, Workspace: w}
	for _, f := range []string{".githooks/pre-commit", "tools/fsmon.sh"} {
		if d := decideTool(t, pol, "write_file", map[string]any{"path": f, "content": "x\n"}); d.Verdict == Run {
			t.Errorf("write_file %s runs in auto mode in a linked worktree whose repository's settings name it", f)
		}
	}
}
