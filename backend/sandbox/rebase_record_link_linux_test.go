package sandbox_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/sandbox"
)

// A confined command pauses an interactive rebase of its own, moves
// git's record of it (.git/rebase-merge) into the working tree, leaves a
// symbolic link to it in its place and adds an exec line to the todo list.
// Git follows the link; the check after the command opens folders without
// following links, so it renames the link itself, in the held git folder:
// the user's git rebase --continue finds no rebase and runs nothing. The
// control shows the same steps on the host have git run the exec line.
func TestRebaseRecordBehindALink(t *testing.T) {
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
			hostGit(t, ws, "commit", "-q", "--allow-empty", "-m", "second")
			marker := filepath.Join(t.TempDir(), "RAN")
			script := `export GIT_SEQUENCE_EDITOR="sed -i '1i break'"; git -c user.name=a -c user.email=a@b rebase -q -i HEAD~1 && mv .git/rebase-merge notes && ln -s ../notes .git/rebase-merge && printf 'exec touch ` + marker + `\n' > notes/git-rebase-todo; echo "write=$?"`
			if control {
				if out := hostShell(t, ws, script); !strings.Contains(out, "write=0") {
					t.Fatalf("control: %s", out)
				}
			} else {
				out := crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, script)
				t.Logf("command: %s", out.Text)
			}
			t.Logf("user's git rebase --continue: %s", hostGit(t, ws, "rebase", "--continue"))
			switch {
			case control && !ran(t, marker):
				t.Fatalf("control: the user's git did not run the exec line")
			case !control && ran(t, marker):
				t.Errorf("the user's git rebase --continue ran an exec line a confined command left behind a link")
			}
		})
	}
}
