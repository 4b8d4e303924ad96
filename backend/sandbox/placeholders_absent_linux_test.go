package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A placeholder another Loupe process made and holds (an empty
// .git/hooks) is, to this process's command, what it is: Loupe's, not the
// repository's. Its view takes it up (so it stays while the command runs)
// and counts the hooks folder as absent, so the check after the round
// renames it if it was filled, and leaves it (to be removed) if not.
func TestPlaceholderOfAnotherProcessCountsAsAbsent(t *testing.T) {
	for _, filled := range []bool{false, true} {
		name := "left empty"
		if filled {
			name = "filled"
		}
		t.Run(name, func(t *testing.T) {
			t.Setenv("XDG_STATE_HOME", t.TempDir())
			ws := t.TempDir()
			if out, err := exec.Command("git", "init", "-q", "--template=", ws).CombinedOutput(); err != nil {
				t.Fatalf("git init: %v %s", err, out)
			}
			hooks := filepath.Join(ws, ".git", "hooks")
			os.RemoveAll(hooks)
			// The other process: an empty hooks folder, noted and held
			// through a lock of its own.
			notes, unlock, err := holdsLock()
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(hooks, 0o755); err != nil {
				t.Fatal(err)
			}
			fi, _ := os.Lstat(hooks)
			dev, ino := fileID(fi)
			other, err := noteHold(notes, ws, ".git/hooks", dev, ino, true)
			unlock()
			if err != nil {
				t.Fatal(err)
			}

			plan, err := planWorkspace(ws, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			adopted, err := adoptHolds([]string{ws}, plan.placeholders)
			if err != nil {
				t.Fatal(err)
			}
			plan.placeholders = append(plan.placeholders, adopted...)
			plan.withoutPlaceholders()
			if len(plan.placeholders) != 1 {
				t.Fatalf("the command's view took up %d placeholders, want the other process's hooks folder", len(plan.placeholders))
			}
			if plan.repos[filepath.Join(ws, ".git")].present["hooks"] {
				t.Errorf("the other process's empty hooks folder counts as the repository's own")
			}
			// The other process's command ends: it is not the last to
			// hold the folder, so it leaves it.
			notes, unlock, _ = holdsLock()
			if lastHold(notes, other, dev, ino) {
				t.Errorf("the other process could remove the hooks folder while this one's command has it")
			}
			unlock()
			if filled {
				if err := os.WriteFile(filepath.Join(hooks, "pre-commit"), []byte("#!/bin/sh\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			notes2 := disarmNewRepos(ws, plan.folder, plan.repos, plan.absent, plan.unreadable, plan.folders)
			t.Logf("check after the round: %q", notes2)
			renamed := len(notes2) == 1 && strings.Contains(notes2[0], ".git/hooks.loupe-disarmed")
			if filled != renamed {
				t.Errorf("filled=%v, and the check after the round said %q", filled, notes2)
			}
			releasePlaceholders(ws, plan.placeholders)
			if _, err := os.Lstat(hooks); err == nil {
				t.Errorf(".git/hooks is left in the tree once no process holds it")
			}
			if left := notedHolds(notes); len(left) != 0 {
				t.Errorf("notes left once no process holds anything: %v", left)
			}
		})
	}
}
