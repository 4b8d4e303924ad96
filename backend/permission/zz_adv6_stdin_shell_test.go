package permission

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A shell with no script reads its commands from standard input. The
// classifier reads `sh` given no arguments as seen and running nothing,
// but when the shell's standard input is text another program hands it
// (awk's print | "sh", tar --to-command, split --filter) or a file an
// earlier exec set as the shell's own input (or a redirection on find,
// whose -exec sh inherits it, or awk's system, sed's e), a read-write
// redirection (sh <> file), a process substitution >(sh) or a coproc sh,
// the shell runs that text.
// Each runs in auto mode under deny rm *, yet bash running it deletes
// victim.txt (c.txt holds `rm -f victim.txt`).
var adv6StdinShells = []struct{ name, src string }{
	{"awk print | sh", `awk '{print | "sh"}' c.txt`},
	{"awk printf | /bin/sh", `awk 'BEGIN{printf "rm -f victim.txt" | "/bin/sh"}'`},
	{"awk print | bash", `awk '{print | "bash"}' c.txt`},
	{"awk print | sh -s", `awk '{print | "sh -s"}' c.txt`},
	{"awk print | env sh", `awk '{print | "env sh"}' c.txt`},
	{"tar --to-command=sh", `tar cf t.tar c.txt && tar xf t.tar --to-command=sh`},
	{"tar --to-command sh", `tar cf t.tar c.txt && tar xf t.tar --to-command sh`},
	{"split --filter=sh", `split --filter=sh c.txt`},
	{"split -n 1 --filter=sh", `split --filter='sh' -n 1 c.txt`},
	{"exec < file then sh", `exec < c.txt; sh`},
	{"exec 0< file then bash", `exec 0< c.txt; bash`},
	{"exec < file inside bash -c", `bash -c 'exec < c.txt; sh'`},
	{"exec 3< file, exec <&3, sh", `exec 3<c.txt; exec <&3; sh`},
	{"exec 5<&0 < file, sh", `exec 5<&0 < c.txt; sh`},
	{"find -exec sh with find's input a file", `find . -maxdepth 0 -exec sh \; < c.txt`},
	{"find -exec bash with find's input a file", `find . -maxdepth 0 -exec bash \; < c.txt`},
	{"timeout find -exec sh -s, input a file", `timeout 5 find . -name c.txt -exec sh -s \; < c.txt`},
	{"awk system(sh) with awk's input a file", `awk 'BEGIN{system("sh")}' < c.txt`},
	{"sed e sh with sed's input a file", `sed -n '1e sh' c.txt < c.txt`},
	{"sh <> file (read-write)", `sh <>c.txt`},
	{"sh 0<> file", `sh 0<>c.txt`},
	{"tee >(sh)", `tee >(sh) < c.txt >/dev/null; sleep 1`},
	{"cat > >(sh)", `cat c.txt > >(sh); sleep 1`},
	{"tar checkpoint exec=sh, input a file", `tar cf t.tar a.txt; tar --checkpoint=1 --checkpoint-action=exec=sh -xf t.tar < c.txt`},
	{"xargs -a: its children keep its input", `xargs -a a.txt -I{} sh < c.txt`},
	{"find -exec timeout sh, input a file", `find . -maxdepth 0 -exec timeout 5 sh \; < c.txt`},
	{"find -exec env sh, input a file", `find . -maxdepth 0 -exec env sh \; < c.txt`},
	{"split --filter through timeout", `split -n1 --filter='timeout 5 sh' c.txt`},
	{"awk print | exec sh", `awk '{print | "exec sh"}' c.txt`},
	{"tar --to-command=exec sh", `tar cf t.tar c.txt && tar xf t.tar --to-command='exec sh'`},
	{"coproc sh fed by cat", `coproc sh; cat c.txt >&${COPROC[1]}; exec {COPROC[1]}>&-; wait`},
}

// adv6StdinShellsSeen are the same shells where the classifier already
// sees what they read: they must not run (the control).
var adv6StdinShellsSeen = []string{
	`sh < c.txt`,
	`cat c.txt | sh`,
	`{ sh; } < c.txt`,
	`echo c.txt | xargs sh`,
}

func adv6Workspace(t *testing.T) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b"}
	cmd := exec.Command("/bin/bash", "-c", `echo a > a.txt && echo 'rm -f victim.txt' > c.txt && echo keep > victim.txt`)
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return dir, env
}

func adv6Deletes(t *testing.T, src string) {
	t.Helper()
	dir, env := adv6Workspace(t)
	cmd := exec.Command("timeout", "10", "/bin/bash", "-c", src)
	cmd.Dir, cmd.Env = dir, env
	out, _ := cmd.CombinedOutput()
	if _, err := os.Stat(filepath.Join(dir, "victim.txt")); err == nil {
		t.Fatalf("control: bash did not delete victim.txt\n%s", out)
	}
}

func TestZZAdv6ShellReadingAProgramsOutput(t *testing.T) {
	for _, c := range adv6StdinShells {
		t.Run(c.name, func(t *testing.T) {
			adv6Deletes(t, c.src)
			if d := denyRm().Decide(runCmd(c.src)); d.Verdict == Run {
				t.Errorf("%s: runs in auto mode under deny rm * (reasons %q), yet the shell it starts runs rm", c.src, d.Reasons)
			}
		})
	}
}

func TestZZAdv6ShellReadingAProgramsOutputControl(t *testing.T) {
	for _, src := range adv6StdinShellsSeen {
		t.Run(src, func(t *testing.T) {
			adv6Deletes(t, src)
			if d := denyRm().Decide(runCmd(src)); d.Verdict == Run {
				t.Errorf("%s: runs under deny rm *", src)
			}
		})
	}
	// A pipe to a program that only prints stays seen and runs.
	for _, src := range []string{`awk '{print | "cat"}' c.txt`, `split --filter=cat c.txt`} {
		if d := denyRm().Decide(runCmd(src)); d.Verdict != Run {
			t.Errorf("%s: %v (reasons %q), want run", src, d.Verdict, d.Reasons)
		}
	}
}
