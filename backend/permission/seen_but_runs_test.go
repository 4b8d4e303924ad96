package permission

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Commands the classifier judges seen and runs in auto mode under
// deny rm *, although bash run on each deletes victim.txt: programs in the
// "runs nothing else" list that do run a program they are given, and git
// forms that give a repository settings (an alias, core.fsmonitor) inside
// the same command.
var adv5Holes = []struct{ name, src string }{
	{"install --strip-program runs rm", `install -s --strip-program=rm a.txt victim.txt`},
	{"install --strip-program runs a shell on a copy", `install -s --strip-program=sh c.txt /tmp/p`},
	{"diff3 --diff-program", `printf '#!/bin/sh\nrm -f victim.txt\n' > x && chmod +x x && diff3 --diff-program=./x a.txt a.txt a.txt`},
	{"git --git-dir= config then alias", `git init -q e && git --git-dir=e/.git config alias.x '!rm -f ../victim.txt' && git -C e x`},
	{"bare repo via --git-dir", `git init -q --bare e && git --git-dir=e config alias.x '!rm -f victim.txt' && git --git-dir=e x`},
	{"git clone -c core.fsmonitor", `git clone -q -c core.fsmonitor='rm -f ../victim.txt' . dst && git -C dst status`},
	{"git clone --config alias", `git clone -q --config alias.x='!rm -f ../victim.txt' . dst && git -C dst x`},
	{"split --filter abbreviated", `split --fil='rm -f victim.txt' a.txt`},
	{"git init --template with a config", `mkdir -p t && printf '[alias]\n\tx = !rm -f ../victim.txt\n' > t/config && git init -q --template=t e && git -C e x`},
}

func TestProgramsThatRunAProgramTheyAreGivenDoNotRun(t *testing.T) {
	for _, c := range adv5Holes {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			home := t.TempDir()
			env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b"}
			sh := func(s string) {
				cmd := exec.Command("/bin/bash", "-c", s)
				cmd.Dir, cmd.Env = dir, env
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", s, err, out)
				}
			}
			sh(`git init -q . && echo a > a.txt && git add a.txt && git commit -qm a && echo 'rm -f victim.txt' > c.txt && echo keep > victim.txt`)
			cmd := exec.Command("/bin/bash", "-c", c.src)
			cmd.Dir, cmd.Env = dir, env
			out, _ := cmd.CombinedOutput()
			if _, err := os.Stat(filepath.Join(dir, "victim.txt")); err == nil {
				t.Fatalf("control: bash did not delete victim.txt\n%s", out)
			}
			if d := denyRm().Decide(runCmd(c.src)); d.Verdict == Run {
				t.Errorf("%s: runs in auto mode under deny rm * (reasons %q), yet it runs rm", c.src, d.Reasons)
			}
		})
	}
}
