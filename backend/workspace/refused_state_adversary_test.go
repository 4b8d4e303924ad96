package workspace_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/loupe-dev/loupe/backend/workspace"
)

// Attack on the refusal of Loupe's state folder as a workspace: reach it
// through a link, name it through an XDG_STATE_HOME that is a link, spell
// it with a trailing slash or dot segments, or open a workspace that holds
// it (XDG_STATE_HOME inside a project). Each must be refused: in every
// case the model could write the notes of what Loupe holds.
func TestAdversaryStateFolderIsNoWorkspaceHoweverItIsReached(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	t.Setenv("HOME", home)
	base := t.TempDir()
	realState := filepath.Join(base, "real-state")
	if err := os.MkdirAll(filepath.Join(realState, "loupe", "holds"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(realState, filepath.Join(base, "state-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(realState, "loupe"), filepath.Join(base, "to-loupe")); err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(base, "proj")
	if err := os.MkdirAll(filepath.Join(proj, "st", "loupe"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ xdg, ws string }{
		{realState, filepath.Join(base, "to-loupe")},
		{realState, filepath.Join(base, "to-loupe", "holds")},
		{filepath.Join(base, "state-link"), filepath.Join(realState, "loupe")},
		{filepath.Join(base, "state-link"), filepath.Join(realState, "loupe", "holds")},
		{realState, filepath.Join(realState, "loupe", "holds") + "/"},
		{realState, filepath.Join(realState, "loupe", "holds", "..", "holds")},
		{realState + "/", filepath.Join(realState, "loupe")},
		{filepath.Join(proj, "st"), proj},
	} {
		t.Setenv("XDG_STATE_HOME", tc.xdg)
		if _, err := workspace.Check(tc.ws); err == nil {
			t.Errorf("XDG_STATE_HOME=%s: workspace %s was accepted", tc.xdg, tc.ws)
		}
	}
}
