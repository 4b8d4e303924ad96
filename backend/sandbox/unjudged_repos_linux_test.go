package sandbox_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/sandbox"
	"github.com/loupe-dev/loupe/testkit/asuser"
)

// plantSubmodule is a command that makes a repository at where with a
// core.fsmonitor that touches marker, and registers it as a submodule of
// the workspace's repository by a gitlink in the index (the index is
// writable to commands, so that commits work): the user's plain
// `git status` at the top of the workspace then looks into it and runs its
// fsmonitor. before runs first (a decoy, a chmod).
func plantSubmodule(where, marker, before, after string) string {
	return `set -e
top=$PWD
` + before + `
mkdir -p ` + where + `
git -C ` + where + ` init -q
git -C ` + where + ` -c user.name=n -c user.email=a@b commit -q --allow-empty -m s
git -C ` + where + ` config core.fsmonitor "touch ` + marker + `; false"
sha=$(git -C ` + where + ` rev-parse HEAD)
cd "$top"; git update-index --add --cacheinfo 160000,$sha,` + where + `
` + after + `
echo planted`
}

// decoy lays out at dir what git does not take for a repository but a
// check by names would: a HEAD of garbage beside objects/, refs/ and logs/.
func decoy(dir string) string {
	return "mkdir -p " + dir + "/objects " + dir + "/refs " + dir + "/logs; echo garbage > " + dir + "/HEAD"
}

// The check after a round must judge every repository a command can leave
// where the user's git goes, whatever folder it hides in: under what looks
// like a git directory's objects/, refs/ or logs/ (a decoy's, or the
// workspace's own when the command makes the workspace look like one),
// deeper than the check descends. Each case has a control run outside Loupe
// that shows the user's git status runs the planted program; under Loupe it
// must not, and the round's result must say what Loupe did.
func TestRepositoriesHiddenWhereTheCheckDidNotLookAreDisarmed(t *testing.T) {
	needs(t, protections(t).Writes)
	deep := strings.Repeat("d/", 260) + "evil"
	for _, c := range []struct {
		name, where, before string
	}{
		{"a plain place", "evil", ""},
		{"under a decoy's objects/", "foo/objects/evil", decoy("foo")},
		{"under a decoy's refs/", "foo/refs/evil", decoy("foo")},
		{"under a decoy's logs/", "foo/logs/evil", decoy("foo")},
		{"under a decoy's lfs/", "foo/lfs/evil", decoy("foo") + "; mkdir -p foo/lfs"},
		{"under the workspace's logs/, the workspace the decoy", "logs/evil", decoy(".")},
		{"deeper than the check descends", deep, ""},
	} {
		for _, control := range []bool{true, false} {
			name := c.name
			if control {
				name = "control: " + name
			}
			t.Run(name, func(t *testing.T) {
				ws := t.TempDir()
				initRepo(t, ws)
				marker := filepath.Join(t.TempDir(), "RAN")
				script := plantSubmodule(c.where, marker, c.before, "")
				var said string
				if control {
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
				os.Remove(marker)
				status := hostGit(t, ws, "status", "--short")
				switch {
				case control && !ran(t, marker):
					t.Fatalf("control: the user's git status did not run the submodule's fsmonitor; the case is not real (%s)", status)
				case !control && ran(t, marker):
					t.Errorf("the user's git status ran the fsmonitor of a repository a command left at %s", c.where)
				case !control && !strings.Contains(said, "Loupe renamed"):
					t.Errorf("the result does not say what Loupe disarmed: %q", said)
				}
			})
		}
	}
}

// A folder Loupe's process cannot list (a command took its read
// permission away, chmod 311) is one git still goes through: the user's
// git status looks into a submodule there and runs its fsmonitor (with a
// warning that it could not open the folder). The check after the round
// cannot see inside, so it disarms the folder and says so. One that was
// unreadable before the command is read-only to it, so the command can
// neither plant there nor give it back its read permission. The control
// shows the user's git running the program.
func TestFolderTheCheckCannotReadIsDisarmed(t *testing.T) {
	if !asuser.Run(t) {
		return
	}
	needs(t, protections(t).Writes)
	for _, c := range []struct {
		name        string
		control     bool
		before      func(t *testing.T, ws string)
		wantRenamed bool
	}{
		{name: "control: outside Loupe", control: true},
		{name: "made unreadable by the command", wantRenamed: true},
		{name: "unreadable before the command", before: func(t *testing.T, ws string) {
			if err := os.MkdirAll(filepath.Join(ws, "locked"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(filepath.Join(ws, "locked"), 0o311); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws := t.TempDir()
			initRepo(t, ws)
			t.Cleanup(func() { // so that t.TempDir can remove them
				os.Chmod(filepath.Join(ws, "locked"), 0o755)
				os.Chmod(filepath.Join(ws, "locked.loupe-disarmed"), 0o755)
			})
			if c.before != nil {
				c.before(t, ws)
			}
			marker := filepath.Join(t.TempDir(), "RAN")
			script := plantSubmodule("locked/evil", marker, "chmod 755 locked 2>/dev/null || true", "chmod 311 locked")
			var said string
			if c.control {
				cmd := exec.Command("bash", "-c", script)
				cmd.Dir = ws
				out, _ := cmd.CombinedOutput()
				said = string(out)
				if !strings.Contains(said, "planted") {
					t.Fatalf("control: the command failed: %q", said)
				}
			} else {
				said = crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, script).Text
			}
			os.Remove(marker)
			t.Logf("user's git status: %s", hostGit(t, ws, "status", "--short"))
			switch {
			case c.control && !ran(t, marker):
				t.Fatalf("control: git status did not run the submodule's fsmonitor; the case is not real")
			case !c.control && ran(t, marker):
				t.Errorf("the user's git status ran the fsmonitor of a repository a command left in a folder Loupe cannot read (%q)", said)
			case c.wantRenamed && !strings.Contains(said, "Loupe renamed it to locked.loupe-disarmed"):
				t.Errorf("the result does not say Loupe disarmed the unreadable folder: %q", said)
			case !c.control && !c.wantRenamed && strings.Contains(said, "planted"):
				t.Errorf("the command planted a repository in a folder that was unreadable before it: %q", said)
			}
		})
	}
}
