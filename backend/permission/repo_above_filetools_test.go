package permission

import (
	"path/filepath"
	"testing"
)

// The workspace is a folder (sub) of a bigger repository: write_file asks
// before writing what that repository's settings have git run or read
// inside the workspace (a program core.fsmonitor names, a hooks folder
// core.hooksPath names, an included file: the control, held before).
func TestFileToolsAskInAFolderOfABiggerRepository(t *testing.T) {
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
