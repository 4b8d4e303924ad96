//go:build linux

package attacks_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/cmdshell"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/testkit/gguf"
)

// TestValuesBashEvaluatesDoNotPassRules: a file in the workspace holds
// a[$(rm -f victim.txt)], and the command reads it into a variable and
// uses it in arithmetic, where bash evaluates the subscript and runs rm.
// The user set deny rm *. Run by the shell commands run in, outside Loupe
// (the control), victim.txt goes; through loupe, in auto mode too, the
// call asks (the rule cannot be checked against what bash evaluates) and,
// with no one to ask, is refused: nothing changes.
func TestValuesBashEvaluatesDoNotPassRules(t *testing.T) {
	l := newLab(t)
	db := filepath.Join(l.dir, "rules", "loupe.db")
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	set, err := settings.Load(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	set.Rules = []permission.Rule{{Effect: permission.EffectDeny, Command: "rm *"}}
	if err := settings.Save(context.Background(), st, set); err != nil {
		t.Fatal(err)
	}
	st.Close()

	workspace := func(t *testing.T) string {
		ws := l.fresh("ws")
		writeFile(t, filepath.Join(ws, "victim.txt"), "keep me\n")
		writeFile(t, filepath.Join(ws, "n.txt"), "a[$(rm -f victim.txt)]\n")
		return ws
	}
	removed := func(ws string) bool {
		_, err := os.Stat(filepath.Join(ws, "victim.txt"))
		return err != nil
	}
	for _, text := range []string{
		`x=$(cat n.txt); echo $((x))`,
		`read -r x < n.txt; [[ x -eq 0 ]]`,
		`declare -i z; z=$(<n.txt)`,
	} {
		t.Run(text, func(t *testing.T) {
			t.Run("control", func(t *testing.T) {
				ws := workspace(t)
				cmd := exec.Command(cmdshell.Commands().Path, "-c", text)
				cmd.Dir = ws
				out, _ := cmd.CombinedOutput()
				if !removed(ws) {
					t.Fatalf("run with %s outside Loupe, the text did not remove victim.txt: fix the attack\n%s", cmdshell.Commands().Path, out)
				}
			})
			for _, md := range modes {
				t.Run(md.name, func(t *testing.T) {
					ws := workspace(t)
					o := l.run(t, runOpts{workspace: ws, db: db, auto: md.auto, calls: []gguf.Call{runCommand(text)}})
					t.Log(o.summary())
					if removed(ws) {
						t.Error("victim.txt was removed")
					}
					for _, c := range o.calls() {
						if c.ran() {
							t.Errorf("the command ran: %s", o.summary())
						}
						if md.auto && !strings.Contains(c.by, "no one to ask") {
							t.Errorf("in auto mode it was not asked (%s): %s", c.by, o.summary())
						}
					}
				})
			}
		})
	}
}
