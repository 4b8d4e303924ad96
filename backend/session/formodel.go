package session

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/loupe-dev/loupe/backend/hands"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/settings"
)

// readForModel is every read Loupe's own process makes of a workspace file
// for the model outside the tools (AGENTS.md): the file rel, a name in the
// workspace's top folder, read through hands (a link is not followed: it
// is named in the error, and not read) and only when a read_file of it
// would not be refused by the user's deny rules, the workspace file's deny
// rules or the protected paths. A file missing is fs.ErrNotExist.
func readForModel(set settings.Settings, workspace, rel string, max int64) ([]byte, error) {
	// One folder, held open, for the rules and the file: by path twice,
	// a swap between could have the rules of one folder judge the read of
	// another's file.
	root, err := hands.Open(workspace, nil)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	pol := permission.Policy{Mode: permission.ModeAuto, Rules: set.Rules, Workspace: workspace}
	if ws, err := permission.LoadWorkspaceSettingsIn(root); err == nil {
		// Its deny rules count trusted or not; Trusted stays unset, so
		// its allow rules do not.
		pol.WorkspaceSettings = ws
	}
	if d := pol.Decide(permission.Call{Tool: "read_file", Paths: []string{rel}}); d.Verdict == permission.Refuse {
		return nil, fmt.Errorf("a read of it is refused (%s), so Loupe does not read it for the model either", d.By)
	}
	top, err := root.OpenDir(".")
	if err != nil {
		return nil, err
	}
	defer top.Close()
	b, _, err := top.ReadFile(rel, max)
	var found *hands.FoundError
	var big *hands.TooLargeError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fs.ErrNotExist
	case errors.As(err, &found) && found.Link():
		if found.Target != "" {
			return nil, fmt.Errorf("it is a link (to %s), which Loupe does not follow", found.Target)
		}
		return nil, errors.New("it is a link, which Loupe does not follow")
	case errors.As(err, &found):
		return nil, errors.New("it is not a regular file")
	case errors.As(err, &big):
		return nil, fmt.Errorf("it is larger than %d MB", max>>20)
	case err != nil:
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, pe.Err
		}
		return nil, err
	}
	return b, nil
}
