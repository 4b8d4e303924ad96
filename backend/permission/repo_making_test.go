package permission

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"testing"
)

// A command can leave half a repository (a HEAD and objects/, no refs/
// yet: not a git directory) where the check after the round finds nothing
// to disarm. The file tools must not finish it: its config, hooks, HEAD,
// objects and refs ask in every mode, at the workspace's root and in a
// folder, so git never comes to run what such a config names. The same
// names in a folder with no HEAD are ordinary files.
func TestFileToolsCannotFinishARepository(t *testing.T) {
	for _, at := range []string{".", "sub"} {
		t.Run("in "+at, func(t *testing.T) {
			ws := t.TempDir()
			dir := filepath.Join(ws, at)
			must(t, os.MkdirAll(filepath.Join(dir, "objects"), 0o755))
			must(t, os.WriteFile(filepath.Join(dir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
			p := Policy{Mode: ModeAuto, Workspace: ws}
			for _, f := range []string{"config", "hooks/pre-commit", "refs/heads/.keep", "objects/ab/cdef", "HEAD", "config.worktree", "info/attributes"} {
				q := path.Join(at, f)
				if d := p.Decide(Call{Tool: "write_file", Paths: []string{q}}); d.Verdict == Run {
					t.Errorf("write_file %s runs in auto mode beside a HEAD: it could finish a repository (%q)", q, d.Reasons)
				}
			}
			// A folder beside it with no HEAD: the same names are plain files.
			must(t, os.MkdirAll(filepath.Join(ws, "plain", "objects"), 0o755))
			for _, f := range []string{"config", "refs/x", "objects/y.js"} {
				if d := p.Decide(Call{Tool: "write_file", Paths: []string{path.Join("plain", f)}}); d.Verdict != Run {
					t.Errorf("write_file plain/%s asks in auto mode, with no repository begun there: %v %q", f, d.Verdict, d.Reasons)
				}
			}

			// What the user would notice: had the writes run, git status
			// would run the config's program. They did not, so it does not.
			marker := filepath.Join(ws, "RAN")
			for _, f := range []string{"config", "refs/heads/.keep"} {
				q := path.Join(at, f)
				if p.Decide(Call{Tool: "write_file", Paths: []string{q}}).Verdict != Run {
					continue
				}
				data := ""
				if f == "config" {
					data = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = touch " + marker + "; false\n"
				}
				must(t, os.MkdirAll(filepath.Dir(filepath.Join(ws, q)), 0o755))
				must(t, os.WriteFile(filepath.Join(ws, q), []byte(data), 0o644))
			}
			cmd := exec.Command("git", "status")
			cmd.Dir = dir
			// git status may well fail here (what the file tools left is
			// not a whole repository): what counts is whether it ran the
			// planted program, which its output is printed beside.
			out, _ := cmd.CombinedOutput()
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("git status ran a program from a config the file tools wrote into a repository they finished; git said:\n%s", out)
			}
		})
	}
}
