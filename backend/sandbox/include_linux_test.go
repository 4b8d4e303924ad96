package sandbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/sandbox"
)

// A repository whose settings include a file of the working tree
// (include.path = ../.gitconfig, a common way to share settings; or an
// includeIf): git reads that file as its own settings, so it is read-only
// for commands as .git/config is, and the user's next git status runs
// nothing a command wrote there.
func TestIncludedSettingsAreReadOnly(t *testing.T) {
	needs(t, protections(t).Writes)
	for _, tc := range []struct{ name, key, val, file string }{
		{"include.path", "include.path", "../.gitconfig", ".gitconfig"},
		{"includeIf", "includeIf.gitdir:**.path", "../tools/git.inc", "tools/git.inc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			initRepo(t, ws)
			f := filepath.Join(ws, filepath.FromSlash(tc.file))
			if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f, []byte("[user]\n\tname = shared\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			hostGit(t, ws, "config", "--local", tc.key, tc.val)
			marker := filepath.Join(t.TempDir(), "RAN")
			out := crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")},
				`printf '[core]\n\tfsmonitor = "touch `+marker+`; false"\n' >> `+tc.file+`; echo "write=$?"`)
			if !strings.Contains(out.Text, "write=1") {
				t.Errorf("a command could write %s, which the repository's settings include: %q", tc.file, out.Text)
			}
			hostGit(t, ws, "status")
			if ran(t, marker) {
				t.Errorf("the user's git status ran a program a command wrote in %s", tc.file)
			}
		})
	}
}
