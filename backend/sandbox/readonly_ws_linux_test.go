package sandbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A command run with ReadOnlyWorkspace (a hook tried on a recorded
// session) changes nothing in the workspace, at its root or below: with a
// view of its own (the workspace a read-only mount); with Landlock alone
// (which cannot stop chmod or touch -d) or with neither it does not run,
// BestEffort or not, and the error says why.
func TestReadOnlyWorkspaceWritesNothing(t *testing.T) {
	needs(t, protections(t).Writes)
	noMountNS := func(pr *probeResult) { pr.best.MountNS = false }
	nothing := func(pr *probeResult) {
		pr.best.MountNS, pr.best.Landlock = false, 0
		pr.prot.Writes = Protection{Name: "Writes", Detail: "test: no Landlock, no mount namespace"}
	}
	script := `touch x; echo "touch=$?"; mkdir d; echo "mkdir=$?"; echo changed > sub/f; echo "write=$?"; rm sub/f; echo "rm=$?"`
	for _, tc := range []struct {
		name   string
		adjust func(*probeResult)
	}{{"a view of its own", nil}, {"Landlock alone", noMountNS}, {"neither", nothing}} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			os.Mkdir(filepath.Join(ws, "sub"), 0o755)
			os.WriteFile(filepath.Join(ws, "sub", "f"), []byte("as it was\n"), 0o644)
			before := listing(t, ws)
			c := Confined{Workspace: ws, ReadOnlyWorkspace: true, BestEffort: true, adjust: tc.adjust}
			out, err := c.Run(context.Background(), Command{Dir: ws, Script: script, Timeout: 30 * time.Second})
			t.Logf("%v: %q", err, out.Text)
			if tc.adjust != nil {
				if !errors.Is(err, ErrNotConfined) || !strings.Contains(err.Error(), "cannot be made read-only") {
					t.Errorf("err = %v, want ErrNotConfined saying the workspace cannot be made read-only", err)
				}
				if tc.name == "Landlock alone" && !strings.Contains(err.Error(), "mode or times") {
					t.Errorf("err = %v, want it to say what Landlock alone cannot stop", err)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				for _, what := range []string{"touch", "mkdir", "write", "rm"} {
					if !strings.Contains(out.Text, what+"=") || strings.Contains(out.Text, what+"=0") {
						t.Errorf("%s in the workspace did not fail: %q", what, out.Text)
					}
				}
			}
			if got := listing(t, ws); got != before {
				t.Errorf("the workspace changed:\nbefore:\n%s\nafter:\n%s", before, got)
			}
			if b, _ := os.ReadFile(filepath.Join(ws, "sub", "f")); string(b) != "as it was\n" {
				t.Errorf("sub/f holds %q", b)
			}
		})
	}
}

// A linked worktree's own git folder lies outside it, and its commands may
// write there (a commit does); with ReadOnlyWorkspace they may not.
func TestReadOnlyWorkspaceOfALinkedWorktree(t *testing.T) {
	needs(t, protections(t).Writes)
	main := t.TempDir()
	ws := filepath.Join(t.TempDir(), "W")
	for _, args := range [][]string{{"init", "-q"}, {"commit", "-q", "--allow-empty", "-m", "init"}, {"worktree", "add", "-q", ws}} {
		cmd := exec.Command("git", append([]string{"-c", "user.email=a@b", "-c", "user.name=n"}, args...)...)
		cmd.Dir = main
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	g := filepath.Join(main, ".git", "worktrees", "W")
	before := listing(t, g)
	out := crun(t, Confined{Workspace: ws, ReadOnlyWorkspace: true},
		`touch "$(git rev-parse --absolute-git-dir)/x"; echo "share=$?"; git -c user.email=a@b -c user.name=n commit -q --allow-empty -m x; echo "commit=$?"`)
	t.Logf("%q", out.Text)
	for _, what := range []string{"share", "commit"} {
		if !strings.Contains(out.Text, what+"=") || strings.Contains(out.Text, what+"=0") {
			t.Errorf("%s did not fail: %q", what, out.Text)
		}
	}
	if got := listing(t, g); got != before {
		t.Errorf("the worktree's git folder changed:\nbefore:\n%s\nafter:\n%s", before, got)
	}
}
