package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
)

// Where a command (or a held process, Start) works: the workspace as it
// resolves now, which must be the folder judged, and the working
// directory inside it.

// workspaceNow is the workspace (Workspace, else dir) with its links
// resolved now, refused unless it is the folder that was judged
// (Checked): the view mounts it, and the view checks the mount again.
func (c Confined) workspaceNow(dir string) (string, error) {
	ws := c.Workspace
	if ws == "" {
		ws = dir
	}
	ws, err := filepath.Abs(ws)
	if err == nil {
		ws, err = filepath.EvalSymlinks(ws)
	}
	if err != nil {
		return "", fmt.Errorf("sandbox: workspace: %w", err)
	}
	if c.Checked != nil {
		if fi, err := os.Stat(ws); err != nil || !os.SameFile(fi, c.Checked) {
			where := ""
			if ws != filepath.Clean(c.Workspace) {
				where = "; it leads to " + ws + " now"
			}
			return "", fmt.Errorf("sandbox: the workspace %s is no longer the folder this run began in (it was replaced since: deleted and made again, or swapped for a link%s); the command did not run. If you replaced it, send your message again: a new run works in the folder as it is now", c.Workspace, where)
		}
	}
	return ws, nil
}

// dirInWorkspace gives the command's working directory in the view: dir
// (given under the workspace as given, ws0, or as resolved, ws), with the
// workspace's symlinks resolved. A directory outside the workspace is
// refused: the view would not have it.
func dirInWorkspace(dir, ws0, ws string) (string, error) {
	if dir == "" {
		return ws, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("sandbox: working directory: %w", err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if _, ok := within(ws, abs); !ok {
		if ws0 == "" {
			return ws, nil
		}
		return "", fmt.Errorf("sandbox: the working directory %s is outside the workspace %s", dir, ws0)
	}
	return abs, nil
}
