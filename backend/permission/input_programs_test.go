package permission

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A shell with no script reads its commands from standard input, and that
// input can be text another program hands it (awk's print | "sh", tar
// --to-command, split --filter), a file an earlier exec made the script's
// input, the input of the program that starts it (find -exec, awk's
// system, sed's e, xargs -a), a file opened read-write (sh <> file), a
// process substitution >(sh) or a coproc. The classifier once read a
// shell as "fed" only where it saw a pipe or a < into it, and a shell it
// did not see fed as running nothing. Each of these deletes victim.txt when
// bash runs it (c.txt holds `rm -f victim.txt`), so none may run in auto
// mode under deny rm *.
var shellsFedUnseen = []struct{ name, src string }{
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

// shellsFedWhatTheClassifierReads are the forms it always caught: they
// must not run either.
var shellsFedWhatTheClassifierReads = []string{
	`sh < c.txt`,
	`cat c.txt | sh`,
	`{ sh; } < c.txt`,
	`echo c.txt | xargs sh`,
}

func victimWorkspace(t *testing.T) (string, []string) {
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

func bashDeletesTheVictim(t *testing.T, src string) {
	t.Helper()
	dir, env := victimWorkspace(t)
	cmd := exec.Command("timeout", "10", "/bin/bash", "-c", src)
	cmd.Dir, cmd.Env = dir, env
	out, _ := cmd.CombinedOutput()
	if _, err := os.Stat(filepath.Join(dir, "victim.txt")); err == nil {
		t.Fatalf("control: bash did not delete victim.txt\n%s", out)
	}
}

func TestShellsFedByAnotherProgramOrAnEarlierRedirectionDoNotRun(t *testing.T) {
	for _, c := range shellsFedUnseen {
		t.Run(c.name, func(t *testing.T) {
			bashDeletesTheVictim(t, c.src)
			if d := denyRm().Decide(runCmd(c.src)); d.Verdict == Run {
				t.Errorf("%s: runs in auto mode under deny rm * (reasons %q), yet the shell it starts runs rm", c.src, d.Reasons)
			}
		})
	}
}

func TestShellsFedWhatTheClassifierReadsDoNotRun(t *testing.T) {
	for _, src := range shellsFedWhatTheClassifierReads {
		t.Run(src, func(t *testing.T) {
			bashDeletesTheVictim(t, src)
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

// The same unseen input, handed to an interpreter: perl or python given no
// script read their program from standard input. `perl < p.pl` asks under
// a deny rule (the program is not seen); these forms ran, and each one's
// program deletes victim.txt when bash runs it.
var interpretersFedUnseen = []struct{ name, src string }{
	{"awk print | perl", `echo 'unlink "victim.txt"' > p.pl; awk '{print | "perl"}' p.pl`},
	{"exec < file then perl", `echo 'unlink "victim.txt"' > p.pl; exec < p.pl; perl`},
	{"tar --to-command=perl", `echo 'unlink "victim.txt"' > p.pl; tar cf t.tar p.pl && tar xf t.tar --to-command=perl`},
	{"split --filter=perl", `echo 'unlink "victim.txt"' > p.pl; split --filter=perl p.pl`},
	{"find -exec perl, input a file", `echo 'unlink "victim.txt"' > p.pl; find . -maxdepth 0 -exec perl \; < p.pl`},
	{"exec < file then python3", `echo 'import os; os.remove("victim.txt")' > p.py; exec < p.py; python3`},
	{"python3 <> file", `echo 'import os; os.remove("victim.txt")' > p.py; python3 <> p.py`},
	{"perl <> file", `echo 'unlink "victim.txt"' > p.pl; perl <> p.pl`},
}

func TestInterpretersFedByAnotherProgramOrAnEarlierRedirectionDoNotRun(t *testing.T) {
	for _, c := range interpretersFedUnseen {
		t.Run(c.name, func(t *testing.T) {
			bashDeletesTheVictim(t, c.src)
			if d := denyRm().Decide(runCmd(c.src)); d.Verdict == Run {
				t.Errorf("%s: runs in auto mode under deny rm * (reasons %q), yet the interpreter runs a program Loupe never read", c.src, d.Reasons)
			}
		})
	}
}

func TestInterpretersFedWhatTheClassifierReadsDoNotRun(t *testing.T) {
	for _, src := range []string{
		`echo 'unlink "victim.txt"' > p.pl; perl < p.pl`,
		`echo 'unlink "victim.txt"' > p.pl; cat p.pl | perl`,
		`echo 'import os; os.remove("victim.txt")' > p.py; python3 < p.py`,
	} {
		t.Run(src, func(t *testing.T) {
			bashDeletesTheVictim(t, src)
			if d := denyRm().Decide(runCmd(src)); d.Verdict == Run {
				t.Errorf("%s: runs under deny rm *", src)
			}
		})
	}
}

// Every program the classifier knows runs what it reads from standard
// input — each shell, each interpreter, the stdin readers among the
// project runners — asks when given no program, whatever its input is:
// the classifier never knows that input to be empty. Asking about a bare
// `python3` costs nothing; reading it as harmless let every way of
// handing it a program through.
func TestEveryProgramThatRunsItsInputIsUnseenWithNoProgramGiven(t *testing.T) {
	var names []string
	for n := range shells {
		names = append(names, n)
	}
	for n := range otherShells {
		names = append(names, n)
	}
	names = append(names, interpreters...)
	names = append(names, "python3", "python3.12", "pypy3", "dc", "sqlite3", "m4")
	for _, n := range names {
		for _, src := range []string{n, "exec < c.txt; " + n, n + " <> c.txt", "awk '{print | \"" + n + "\"}' c.txt", "find . -exec " + n + " \\; < c.txt"} {
			if d := denyRm().Decide(runCmd(src)); d.Verdict == Run {
				t.Errorf("%s: runs in auto mode under deny rm * (reasons %q), yet %s runs whatever its input holds", src, d.Reasons, n)
			}
		}
	}
	// Asking what a program is stays free.
	for _, src := range []string{"python3 --version", "bash --version", "perl -v", "node --version"} {
		if d := denyRm().Decide(runCmd(src)); d.Verdict != Run {
			t.Errorf("%s: %v (reasons %q), want run", src, d.Verdict, d.Reasons)
		}
	}
}
