package sandbox_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/sandbox"
)

// What one command of a round adds to the writable git folder of a
// linked worktree that is the workspace (main/.git/worktrees/W, outside
// the workspace) is disarmed only after the round. No other call of the
// round can make use of it outside the sandbox meanwhile: a later command
// of the round finds it read-only (it cannot rewrite the hook, add one or
// change the settings), a git it runs there that runs the hook runs it
// confined (the hook cannot write outside), and the file tools refuse the
// folder (it is outside the workspace). After the round, the user's git
// runs nothing of it.
func TestLinkedWorktreeAdditionsAreOutOfReachOfTheRound(t *testing.T) {
	needs(t, protections(t).Writes)
	isolateGit(t)
	main := t.TempDir()
	initRepo(t, main)
	ws := filepath.Join(t.TempDir(), "W")
	git(t, main, "worktree", "add", "-q", ws)
	marker := filepath.Join(t.TempDir(), "RAN")
	g := filepath.Join(main, ".git", "worktrees", "W", "modules", "evil")
	plant := `set -e
G=$(git rev-parse --absolute-git-dir)
git init -q s; git -C s -c user.email=a@b -c user.name=n commit -q --allow-empty -m s
sha=$(git -C s rev-parse HEAD)
git clone -q --bare s "$G/modules/evil"; rm -rf s; git -C "$G/modules/evil" config core.bare false
printf '#!/bin/sh\ntouch ` + marker + `\n' > "$G/modules/evil/hooks/post-checkout"; chmod +x "$G/modules/evil/hooks/post-checkout"
printf '[submodule "evil"]\n\tpath = evil\n\turl = ./evil\n' > .gitmodules
git update-index --add --cacheinfo 160000,$sha,evil
echo planted`
	sw := sandbox.NewSweep()
	c := sandbox.Confined{Workspace: ws, Guard: guardFor(ws, ""), BestEffort: true}
	run := func(script string) string {
		out, err := c.Run(context.Background(), sandbox.Command{Dir: ws, Script: script, Timeout: 60 * time.Second, Sweep: sw})
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		return out.Text
	}
	if out := run(plant); !strings.Contains(out, "planted") {
		t.Fatalf("the first command did not plant: %q", out)
	}
	// The round is not over: a later command of it tries the additions.
	for _, try := range []struct{ what, script string }{
		{"rewrite the hook", `printf '#!/bin/sh\ntouch ` + marker + `\n' > ` + g + `/hooks/post-checkout; echo "done=$?"`},
		{"add a hook", `printf '#!/bin/sh\ntouch ` + marker + `\n' > ` + g + `/hooks/post-merge; echo "done=$?"`},
		{"change the settings", `printf '[core]\n\tfsmonitor = touch ` + marker + `\n' >> ` + g + `/config; echo "done=$?"`},
	} {
		if out := run(try.script); strings.Contains(out, "done=0") {
			t.Errorf("a later command of the round could %s in the submodule repository the first made: %q", try.what, out)
		}
	}
	out := run(`git -c protocol.file.allow=always submodule update --init 2>&1; echo "update=$?"`)
	t.Logf("git submodule update inside the round: %s", out)
	if ran(t, marker) {
		t.Errorf("the hook a command planted ran outside the sandbox during the round")
	}
	pol := permission.Policy{Mode: permission.ModeAuto, Workspace: ws, Rules: []permission.Rule{{Effect: permission.EffectAllow, Path: "**"}}}
	for _, p := range []string{g + "/hooks/post-checkout", g + "/config"} {
		if d := pol.Decide(permission.Call{Tool: "write_file", Paths: []string{p}}); d.Verdict != permission.Refuse {
			t.Errorf("write_file %s: %v, want refused (outside the workspace)", p, d.Verdict)
		}
	}
	notes := sw.Run(context.Background())
	t.Logf("after the round: %q", notes)
	t.Logf("user's git submodule update --init: %s", hostGit(t, ws, "-c", "protocol.file.allow=always", "submodule", "update", "--init"))
	if ran(t, marker) {
		t.Errorf("after the round, the user's git ran the hook a command planted in the linked worktree's git folder")
	}
}
