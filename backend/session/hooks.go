package session

import (
	"github.com/loupe-dev/loupe/backend/hooks"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/sandbox"
	"github.com/loupe-dev/loupe/backend/settings"
)

// hooksFor is a run's hooks: the user's, then the workspace's own when the
// workspace is trusted, run in dir by the run's command runner (the
// sandbox run_command uses). Nil when there are none.
func hooksFor(set settings.Settings, pol permission.Policy, runner sandbox.Runner, dir string) *hooks.Set {
	hs := append([]hooks.Hook{}, set.Hooks...)
	if pol.Trusted {
		hs = append(hs, pol.WorkspaceSettings.Hooks...)
	}
	if len(hs) == 0 {
		return nil
	}
	return &hooks.Set{Hooks: hs, Runner: runner, Dir: dir}
}
