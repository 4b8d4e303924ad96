package place

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Every second spelling of a folder that this machine can make: a link
// to it or through a parent, a tail that does not exist yet, a ".." that
// leaves it, a name that only starts like it, and "..then", which is a
// name in it. On this disk, which tells case apart, ~/library is a folder
// of its own: a project there is not in ~/Library.
func TestHoldsJudgesThePlaceNotTheSpelling(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	ssh := filepath.Join(home, ".ssh")
	for _, d := range []string{ssh, filepath.Join(root, "elsewhere"), filepath.Join(home, "Library"), filepath.Join(home, "library")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.Symlink(ssh, filepath.Join(root, "keys"))
	os.Symlink(home, filepath.Join(root, "h"))
	for _, tc := range []struct {
		dir, p string
		holds  bool
	}{
		{ssh, ssh, true},
		{ssh, filepath.Join(ssh, "proj"), true},
		{ssh, filepath.Join(root, "keys", "proj"), true},
		{ssh, filepath.Join(root, "h", ".ssh", "a", "b"), true},
		{filepath.Join(home, "Library"), filepath.Join(home, "library", "proj"), false},
		{ssh, filepath.Join(home, ".sshx"), false},
		{ssh, filepath.Join(ssh, "..", "x"), false},
		{ssh, filepath.Join(ssh, "..then"), true},
		{ssh, home, false},
		{home, filepath.Join(root, "elsewhere"), false},
	} {
		if got := Holds(tc.dir, tc.p); got != tc.holds {
			t.Errorf("Holds(%s, %s) = %v, want %v", tc.dir, tc.p, got, tc.holds)
		}
	}
	if !Same(filepath.Join(root, "keys"), ssh) || Same(filepath.Join(home, "Library"), filepath.Join(home, "library")) || Same(home, ssh) {
		t.Error("Same judged a link, a case or a parent wrongly")
	}
}

// A bind mount gives a folder a second path that no link resolves: only
// its identity says where it is. The test runs itself again in a user and
// mount namespace of its own, where it can bind one.
func TestHoldsSeesThroughABindMount(t *testing.T) {
	if spec := os.Getenv("PLACE_TEST_BIND"); spec != "" {
		dir, alias, _ := strings.Cut(spec, "\n")
		if !Holds(dir, filepath.Join(alias, "proj")) || !Same(dir, alias) {
			t.Fatalf("a folder bound at %s was not seen as %s", alias, dir)
		}
		return
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Fatalf("unshare (util-linux) is needed to make a bind mount: %v", err)
	}
	root := t.TempDir()
	dir, alias := filepath.Join(root, "real"), filepath.Join(root, "alias")
	os.Mkdir(dir, 0o755)
	os.Mkdir(alias, 0o755)
	if Holds(dir, alias) {
		t.Fatal("two folders judged one before the mount")
	}
	cmd := exec.Command(unshare, "-rm", "sh", "-c", `mount --bind "$1" "$2" && exec "$3" -test.run '^TestHoldsSeesThroughABindMount$' -test.count=1`, "sh", dir, alias, os.Args[0])
	cmd.Env = append(os.Environ(), "PLACE_TEST_BIND="+dir+"\n"+alias)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("in a mount namespace of its own: %v\n%s", err, out)
	} else if !strings.Contains(string(out), "PASS") {
		t.Fatalf("the test did not run in the namespace:\n%s", out)
	}
}
