package permission

import "testing"

// After a linked worktree wt exists in the workspace (made by an earlier
// round), its copy of the hooks folder core.hooksPath names relative to
// the working tree is a hooks folder git runs from too: write_file must
// ask as it does for the top's .githooks.
func TestFileToolsAskForANewWorktreesHooks(t *testing.T) {
	for _, c := range []struct{ name, setup, file string }{
		{"linked worktree", `git init -q; mkdir .githooks; printf '#!/bin/sh\nexit 0\n' > .githooks/pre-commit; git add .githooks; git -c user.name=n -c user.email=a@b commit -q -m init; git config core.hooksPath .githooks; git worktree add -q wt`, "wt/.githooks/pre-commit"},
		{"top, for comparison", `git init -q; mkdir .githooks; printf '#!/bin/sh\nexit 0\n' > .githooks/pre-commit; git add .githooks; git -c user.name=n -c user.email=a@b commit -q -m init; git config core.hooksPath .githooks; git worktree add -q wt`, ".githooks/pre-commit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws := t.TempDir()
			shell(t, ws, c.setup)
			p := Policy{Mode: ModeAuto, Workspace: ws}
			d := decideTool(t, p, "write_file", map[string]any{"path": c.file, "content": "#!/bin/sh\ntouch RAN\n"})
			if d.Verdict == Run {
				t.Errorf("write_file %s runs in auto mode, though the user's git commit in that tree runs it", c.file)
			}
		})
	}
}
