package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The files Loupe finds included are the files git reads: every origin
// `git config --includes --show-origin --list` names for a settings file
// is among them, through symlinked folders, a symlinked included file
// (whose own relative includes start from the link's folder, as git opens
// it), "..", "~/" and quoting; and those not there yet are found too, with
// the folders a command would have to make on the way.
func TestIncludedFilesAreTheOnesGitReads(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the includes are checked against git itself")
	}
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", ws)
	put := func(rel, s string) {
		t.Helper()
		f := filepath.Join(ws, rel)
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, rel string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(ws, rel)); err != nil {
			t.Fatal(err)
		}
	}
	put("repo/config", "[a]\n\tk = 0\n[Include]\n\tPATH = \"../shared/one.inc\" # shared\n[includeIf \"onbranch:x\"]\n\tpath = ~/home.inc\n")
	link(filepath.Join(ws, "real"), "shared") // absolute link to a folder
	put("real/one.inc", "[a]\n\tk = 1\n[include]\n\tpath = ../real/sub/../two.inc\n\tpath = file-link.inc\n")
	put("real/two.inc", "[a]\n\tk = 2\n")
	put("elsewhere/target.inc", "[a]\n\tk = 3\n[include]\n\tpath = beside-the-link.inc\n\tpath = ../missing/dir/../new.inc\n")
	put("real/sub/keep", "")
	link("../elsewhere/target.inc", "real/file-link.inc")
	put("real/beside-the-link.inc", "[a]\n\tk = 4\n")
	put("home.inc", "[a]\n\tk = 5\n[include]\n\tpath = loop.inc\n")
	put("loop.inc", "[include]\n\tpath = home.inc\n")

	var in includes
	in.follow(filepath.Join(ws, "repo", "config"))
	found := map[string]includeTarget{}
	for p, tgt := range in.targets {
		found[p] = tgt
	}

	// What git reads (onbranch is false here, so home.inc is not; it is
	// found all the same).
	out, err := exec.Command("git", "config", "--file", filepath.Join(ws, "repo", "config"), "--includes", "--show-origin", "--list").CombinedOutput()
	if err != nil {
		t.Fatalf("git config: %v %s", err, out)
	}
	origins := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		origin, _, _ := strings.Cut(line, "\t")
		f := strings.TrimPrefix(origin, "file:")
		if f == filepath.Join(ws, "repo", "config") {
			continue
		}
		real, err := filepath.EvalSymlinks(f)
		if err != nil {
			t.Fatalf("git names %s: %v", f, err)
		}
		origins++
		if _, ok := found[real]; !ok {
			t.Errorf("git reads %s (%s) as settings; Loupe does not find it among %v", f, real, keys(found))
		}
	}
	if origins < 4 {
		t.Fatalf("git read only %d included files: the case is wrong\n%s", origins, out)
	}
	for _, want := range []string{"home.inc", "loop.inc", "missing/new.inc", "real/two.inc", "elsewhere/target.inc"} {
		if _, ok := found[filepath.Join(ws, want)]; !ok {
			t.Errorf("%s is not found as included; found %v", want, keys(found))
		}
	}
	n := found[filepath.Join(ws, "missing", "new.inc")]
	if len(n.missingDirs) < 2 || n.missingDirs[0] != filepath.Join(ws, "missing") || n.missingDirs[1] != filepath.Join(ws, "missing", "dir") {
		t.Errorf("missing/new.inc needs missing/ and missing/dir/ to exist before git can open it; found %v", n.missingDirs)
	}
}

func keys(m map[string]includeTarget) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
