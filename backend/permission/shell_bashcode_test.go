package permission

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/loupe-dev/loupe/backend/cmdshell"
)

// bashOwnCode are commands in which bash itself runs code the words do
// not show: each deletes victim.txt when bash runs it in a folder where
// n.txt holds a[$(rm -f victim.txt)] and c.txt holds rm -f victim.txt,
// with a home of its own (TestEvaluatedTextRunsInBash shows it).
var bashOwnCode = []struct{ name, src string }{
	// Bash decides at each use whether an array is associative (its key
	// is data) or indexed (its subscript is arithmetic): declared later,
	// in a subshell, local to a function, not reached, unset again, made
	// indexed first, failing, or one of bash's own arrays, A is indexed at
	// the use.
	{"AssocDeclaredAfterUse", `x=$(cat n.txt); echo "${A[$x]}"; declare -A A`},
	{"AssocDeclaredInSubshell", `x=$(cat n.txt); (declare -A A); echo "${A[$x]}"`},
	{"AssocDeclaredInBackground", `x=$(cat n.txt); declare -A A & wait; echo "${A[$x]}"`},
	{"AssocLocalToFunction", `f() { local -A A; }; f; x=$(cat n.txt); echo "${A[$x]}"`},
	{"AssocNotReached", `false && declare -A A; x=$(cat n.txt); echo "${A[$x]}"`},
	{"AssocInAnIf", `if false; then declare -A A; fi; x=$(cat n.txt); echo "${A[$x]}"`},
	{"AssocUnsetAgain", `x=$(cat n.txt); declare -A A; unset A; echo "${A[$x]}"`},
	{"AssocUnsetAgainAssign", `x=$(cat n.txt); declare -A A; A=(); unset -v A; A[$x]=1`},
	{"AssocLocalToAnotherFunction", `x=$(cat n.txt); f() { local -A A; echo "${A[$x]}"; }; g() { echo "${A[$x]}"; }; g`},
	{"AssocDeclaredAfterUseAsArray", `x=$(cat n.txt); declare -ga A; echo ${A[$x]}; declare -A A 2>/dev/null`},
	{"AssocDeclaredAfterUnset", `x=$(cat n.txt); unset A; echo ${A[$x]}; declare -A A=()`},
	{"AssocAfterIndexed", `x=$(cat n.txt); A[1]=foo; declare -A A 2>/dev/null; echo ${A[$x]}`},
	{"AssocBashsOwnArray", `x=$(cat n.txt); declare -A PIPESTATUS 2>/dev/null; echo ${PIPESTATUS[$x]}`},
	{"AssocRedirectionFails", `x=$(cat n.txt); declare -A A 2>/dev/null >/nonexistent/f; echo ${A[$x]}`},
	{"AssocUnsetInFunctionCalledLater", `x=$(cat n.txt); declare -A A; f() { echo "${A[$x]}"; }; unset A; f`},
	{"AssocLocalInOuterFunction", `f() { local -A A; g() { echo "${A[$x]}"; }; }; f; x=$(cat n.txt); g`},
	{"AssocLocalUsedAfterFunction", `f() { local -A A; A[k]=1; }; f; x=$(cat n.txt); A[$x]=1`},
	{"AssocDeclareIsAFunction", `declare() { :; }; x=$(cat n.txt); declare -A A; echo "${A[$x]}"`},
	{"AssocNameInPrintfV", `x=$(cat n.txt); printf -v "A[$x]" %s 1; declare -A A`},
	// A name attached to its option.
	{"PrintfVAttached", `x=$(cat n.txt); printf -v"$x" %s 1`},
	{"PrintfVAttachedLiteral", `printf -v'a[$(rm -f victim.txt)]' %s 1`},
	{"WaitP", `x=$(cat n.txt); sleep 0 & wait -n -p "$x"`},
	{"WaitPAttached", `x=$(cat n.txt); sleep 0 & wait -n -p"$x"`},
	{"DeclaredNamerefAssigned", `x=$(cat n.txt); declare -n r; r=$x; echo $r`},
	// {name}> redirections take an array element too; its subscript is
	// arithmetic.
	{"RedirVarSubscript", `x=$(cat n.txt); exec {a[x]}>/dev/null`},
	{"RedirVarSubscriptNoExec", `x=$(cat n.txt); : {a[x]}>/dev/null`},
	// Builtins that run code they are given: compgen expands its word
	// list (a command substitution in it runs) and runs -C's command and
	// -F's function; jobs -x runs its arguments; mapfile -C its callback.
	{"CompgenWordlistLiteral", `compgen -W '$(rm -f victim.txt)' x`},
	{"CompgenWordlistReadAtRunTime", `x=$(cat c.txt); compgen -W "\$($x)" x`},
	{"CompgenWordlistAttached", `compgen -W'$(rm -f victim.txt)' x`},
	{"CompgenCommand", `compgen -C 'rm -f victim.txt' x`},
	{"CompgenFunction", `f() { rm -f victim.txt; }; compgen -F f x`},
	{"JobsX", `jobs -x rm -f victim.txt`},
	{"MapfileCallbackReadAtRunTime", `x=$(cat c.txt); mapfile -t -C "$x" -c 1 arr <<< a`},
	// Variables of bash's own that evaluate what they are given.
	{"OptindAssigned", `x=$(cat n.txt); OPTIND=$x; getopts a v -a`},
	{"RandomAssigned", `x=$(cat n.txt); RANDOM=$x`},
	{"SrandomAssigned", `x=$(cat n.txt); SRANDOM=$x`},
	{"HistcmdAssigned", `x=$(cat n.txt); HISTCMD=$x`},
	{"RandomRead", `read -r RANDOM < n.txt`},
	{"RandomDeclared", `x=$(cat n.txt); declare "RANDOM=$x"`},
	// fc runs commands from the history, which history -s fills.
	{"FcReplay", "set -o history\nhistory -s 'rm -f victim.txt'\nfc -s"},
	{"FcReplayMatching", "set -o history\nhistory -s 'rm -f victim.txt'\nfc -s rm"},
	{"FcEditor", "set -o history\nhistory -s 'rm -f victim.txt'\nfc -e true -1"},
	// History expansion (set -H with history on) rewrites later lines
	// before they are parsed.
	{"HistoryExpansion", "set -o history -H\nhistory -s 'rm -f victim.txt'\n!!"},
	{"HistoryExpansionLong", "set -o history; set -o histexpand\nhistory -s 'rm -f victim.txt'\n!!"},
	// Startup files in the command's own (writable) home: an interactive
	// bash reads ~/.bashrc, a login shell ~/.bash_profile or ~/.profile.
	{"InteractiveBashrc", `echo 'rm -f victim.txt' > ~/.bashrc; bash -i -c true`},
	{"LoginBashProfile", `echo 'rm -f victim.txt' > ~/.bash_profile; bash -l -c true`},
	{"LoginProfile", `echo 'rm -f victim.txt' > ~/.profile; bash --login -c true`},
	{"LoginBashLoginCombined", `echo 'rm -f victim.txt' > ~/.bash_login; bash -lc true`},
	{"InteractiveCombined", `echo 'rm -f victim.txt' > ~/.bashrc; bash -ic true </dev/null`},
	{"ShLogin", `echo 'rm -f victim.txt' > ~/.profile; sh -l -c true`},
	{"ExecLogin", `echo 'rm -f victim.txt' > ~/.profile; (exec -l bash -c true)`},
	{"ExecDashLogin", `echo 'rm -f victim.txt' > ~/.profile; (exec -a -bash bash -c true)`},
	{"InitFile", `echo 'rm -f victim.txt' > rc; bash --init-file rc -i -c true </dev/null`},
	{"ShoptOption", `echo 'rm -f victim.txt' > ~/.bashrc; bash -O extglob -i -c true </dev/null`},
	{"StdinInteractive", `echo 'rm -f victim.txt' > ~/.bashrc; bash -i < /dev/null`},
	// Programs that run a command an argument or their input names.
	{"SplitFilter", `split --filter='rm -f victim.txt' n.txt`},
	{"GccWrapper", `gcc -wrapper sh,-c,'rm -f victim.txt' -x c -c /dev/null -o /dev/null; true`},
	{"RunParts", `mkdir -p rp; printf '#!/bin/sh\nrm -f victim.txt\n' > rp/a; chmod +x rp/a; run-parts rp`},
	{"EdFromAPipe", `printf '!rm -f victim.txt\nq\n' | ed -s`},
	{"EdFromAHeredoc", "ed -s <<E\n!rm -f victim.txt\nq\nE"},
	{"ZipTT", `zip -q z.zip n.txt -T -TT 'rm -f victim.txt'; true`},
	{"ZipUnzipCommand", `zip -q z.zip n.txt -T --unzip-command 'rm -f victim.txt'; true`},
}

// TestBashOwnCodeAsks: with deny rm * each asks in auto mode rather
// than run.
func TestBashOwnCodeAsks(t *testing.T) {
	bash := cmdshell.Shell{Path: "/bin/bash", Dialect: cmdshell.Bash, Known: true}
	for _, c := range bashOwnCode {
		t.Run(c.name, func(t *testing.T) {
			deny := Policy{Mode: ModeAuto, Rules: []Rule{{Effect: EffectDeny, Command: "rm *"}}, shell: &bash}
			if d := deny.Decide(runCmd(c.src)); d.Verdict == Run {
				t.Errorf("%s: deny rm * in auto mode lets it run, and bash deletes victim.txt", c.src)
			}
		})
	}
	// zsh reads ~/.zshenv before any script, interactive or not (its
	// manual, STARTUP/SHUTDOWN FILES); zsh is not installed where these
	// tests run, so this one is not run for real.
	for _, src := range []string{`echo 'rm -f victim.txt' > ~/.zshenv; zsh -c true`, `zsh -c 'echo hi'`} {
		deny := Policy{Mode: ModeAuto, Rules: []Rule{{Effect: EffectDeny, Command: "rm *"}}, shell: &bash}
		if d := deny.Decide(runCmd(src)); d.Verdict == Run {
			t.Errorf("%s: deny rm * in auto mode lets it run, and zsh runs ~/.zshenv", src)
		}
	}
}

// bashDeletesVictim runs src with bash -c in a folder of its own and
// says what went wrong when victim.txt is still there.
func bashDeletesVictim(t *testing.T, src string) error {
	t.Helper()
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim.txt")
	for name, text := range map[string]string{"victim.txt": "keep\n", "n.txt": evalPayload + "\n", "c.txt": "rm -f victim.txt\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("bash", "-c", src)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	out, _ := cmd.CombinedOutput()
	if _, err := os.Stat(victim); err == nil {
		return fmt.Errorf("bash -c %q did not delete victim.txt: the case is not real\n%s", src, out)
	}
	return nil
}
