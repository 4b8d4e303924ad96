package workspace

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A workspace that is the hooks folder its repository's settings name
// (core.hooksPath = .githooks, opened on .githooks; husky's .husky/_,
// opened on .husky) is refused with the reason: every file in it would be
// a program the user's git runs, and none could be held for a command.
// The repository itself, and a folder beside the hooks, are fine.
func TestAWorkspaceThatIsTheRepositorysHooksFolderIsRefused(t *testing.T) {
	for _, tc := range []struct{ hooksPath, open string }{
		{".githooks", ".githooks"},
		{".husky/_", ".husky"},
		{"tools/hooks", "tools/hooks"},
	} {
		t.Run(tc.hooksPath, func(t *testing.T) {
			repo := t.TempDir()
			for _, args := range [][]string{{"init", "-q"}, {"config", "core.hooksPath", tc.hooksPath}} {
				cmd := exec.Command("git", args...)
				cmd.Dir = repo
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v %s", args, err, out)
				}
			}
			for _, d := range []string{tc.hooksPath, "src"} {
				if err := os.MkdirAll(filepath.Join(repo, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Check(filepath.Join(repo, tc.open))
			if err == nil || !strings.Contains(err.Error(), "is the hooks folder") || !strings.Contains(err.Error(), "choose the project folder") {
				t.Fatalf("a workspace on %s: %v, want it refused as the hooks folder", tc.open, err)
			}
			for _, ok := range []string{".", "src"} {
				if _, err := Check(filepath.Join(repo, ok)); err != nil {
					t.Errorf("%s: %v", ok, err)
				}
			}
		})
	}
}
