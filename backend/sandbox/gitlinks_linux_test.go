package sandbox_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/sandbox"
)

// A git file of the workspace's repository that is a symbolic link
// (.git/config -> ../shared/config, .git/hooks -> ../shared/hooks): git
// reads and runs what it leads to. The file tools ask before writing that
// target, as they do for .git/config; a command is refused with an error
// that says what to do (a read-only mount lands on the target, and the
// link, in a writable folder, could be replaced by the command); and the
// user's git afterwards runs nothing either tried to plant.
func TestSymlinkedGitFilesHoldOnTheirTarget(t *testing.T) {
	needs(t, protections(t).Writes)
	for _, name := range []string{"config", "hooks"} {
		t.Run(name, func(t *testing.T) {
			ws := t.TempDir()
			initRepo(t, ws)
			must := func(err error) {
				if err != nil {
					t.Fatal(err)
				}
			}
			must(os.MkdirAll(filepath.Join(ws, "shared"), 0o755))
			must(os.Rename(filepath.Join(ws, ".git", name), filepath.Join(ws, "shared", name)))
			must(os.Symlink("../shared/"+name, filepath.Join(ws, ".git", name)))
			if _, err := os.Stat(filepath.Join(ws, "shared", "hooks")); err != nil {
				must(os.MkdirAll(filepath.Join(ws, "shared", "hooks"), 0o755))
			}
			marker := filepath.Join(t.TempDir(), "RAN")

			p := permission.Policy{Mode: permission.ModeAuto, Workspace: ws, Rules: []permission.Rule{{Effect: permission.EffectAllow, Path: "**"}}}
			target := "shared/config"
			if name == "hooks" {
				target = "shared/hooks/pre-commit"
			}
			if d := p.Decide(permission.Call{Tool: "write_file", Paths: []string{target}}); d.Verdict != permission.Ask {
				t.Errorf("write_file %s (what .git/%s leads to) runs without asking: %v %q", target, name, d.Verdict, d.Reasons)
			}

			c := sandbox.Confined{Workspace: ws, Guard: guardFor(ws, ""), BestEffort: true}
			_, err := c.Run(context.Background(), sandbox.Command{Dir: ws, Timeout: 30 * time.Second, Script: `printf '[core]\n\tfsmonitor = "touch ` + marker + `; false"\n' >> shared/config
rm -rf .git/` + name + ` && cp -r shared/` + name + ` .git/` + name + ` && printf '[core]\n\tfsmonitor = "touch ` + marker + `; false"\n' >> .git/config
printf '#!/bin/sh\ntouch ` + marker + `\n' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit`})
			if !errors.Is(err, sandbox.ErrLinkedProtected) || !strings.Contains(err.Error(), ".git/"+name+" leads to ../shared/"+name) || !strings.Contains(err.Error(), "make .git/"+name+" the file or folder itself") {
				t.Errorf("the command was not refused with an error that names the link and what to do: %v", err)
			}
			hostGit(t, ws, "status")
			hostGit(t, ws, "commit", "-q", "--allow-empty", "-m", "user")
			if ran(t, marker) {
				t.Error("the user's git ran what the command planted through the link")
			}
		})
	}
}
