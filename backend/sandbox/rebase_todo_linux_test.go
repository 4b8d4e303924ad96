package sandbox_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/sandbox"
)

// A command that leaves an interactive rebase paused at a "break", with
// "exec" lines after it in .git/rebase-merge/git-rebase-todo (writable to
// commands: git writes it as it rebases), has the user's next
// `git rebase --continue` run them outside the sandbox. The check after
// the round renames a todo list with exec lines that the round wrote, and
// says so; the control shows git running the line. A rebase of the user's
// own, paused with exec lines before the round, is left as it was.
func TestRebaseLeftWithExecLinesIsDisarmed(t *testing.T) {
	needs(t, protections(t).Writes)
	rebase := func(marker string) string {
		return `GIT_SEQUENCE_EDITOR="printf 'break\nexec true\nexec touch ` + marker + `\n' >" git -c user.name=n -c user.email=a@b rebase -q -i HEAD; echo planted`
	}
	for _, c := range []struct {
		name           string
		control, users bool
	}{
		{name: "control: outside Loupe", control: true},
		{name: "left by a command"},
		{name: "the user's own, paused before the round", users: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws := t.TempDir()
			initRepo(t, ws)
			marker := filepath.Join(t.TempDir(), "RAN")
			script := rebase(marker)
			if c.users {
				cmd := exec.Command("bash", "-c", script)
				cmd.Dir = ws
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("the user's rebase: %v %s", err, out)
				}
				script = "git status >/dev/null; echo planted"
			}
			var said string
			if c.control {
				cmd := exec.Command("bash", "-c", script)
				cmd.Dir = ws
				out, _ := cmd.CombinedOutput()
				said = string(out)
			} else {
				said = crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, script).Text
			}
			if !strings.Contains(said, "planted") {
				t.Fatalf("the command failed: %q", said)
			}
			if ran(t, marker) {
				t.Fatalf("the exec line ran before the user continued")
			}
			t.Logf("user's git rebase --continue: %s", hostGit(t, ws, "rebase", "--continue"))
			switch {
			case (c.control || c.users) && !ran(t, marker):
				t.Fatalf("git rebase --continue did not run the exec line; the case is not real")
			case !c.control && !c.users && ran(t, marker):
				t.Errorf("the user's git rebase --continue ran an exec line a command left in .git/rebase-merge/git-rebase-todo")
			case !c.control && !c.users && !strings.Contains(said, "Loupe renamed it to .git/rebase-merge/git-rebase-todo.loupe-disarmed"):
				t.Errorf("the result does not say Loupe disarmed the todo list: %q", said)
			case c.users && strings.Contains(said, "loupe-disarmed"):
				t.Errorf("the check disarmed a rebase of the user's own that the round did not touch: %q", said)
			}
			os.Remove(marker)
		})
	}
}
