package permission

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/cmdshell"
)

// The places bash evaluates text as code when it runs. N stands for a
// variable's name, E for an expansion of it; sh marks the ones the POSIX
// reading parses too (bash as /bin/sh runs them the same).
var evalPositions = []struct {
	tmpl string
	sh   bool
}{
	{`echo $((N))`, true},
	{`echo $(( E + 1 ))`, true},
	{`echo $[N]`, false},
	{`((N))`, false},
	{`(( E ))`, false},
	{`let "y=N"`, true},
	{`let "y=E"`, true},
	{`for ((i=N; i<0; i++)); do :; done`, false},
	{`echo $(( N ? 1 : 0 ))`, true},
	{`: $(( y = N ))`, true},
	{`case $((N)) in *) ;; esac`, true},
	{`case 1 in $((E))) ;; esac`, true},
	{`select q in $((N)); do break; done < /dev/null`, false},
	{`declare -i z=N`, false},
	{`declare -i z; z=E`, false},
	{`declare -i z; z+=E`, false},
	{`f() { local -i z=E; }; f "$@"`, false},
	{`arr=(1); arr[N]=2`, false},
	{`arr=(1); arr[E]=2`, false},
	{`arr=([N]=1)`, false},
	{`arr=([E]=1)`, false},
	{`arr=(1); echo ${arr[N]}`, false},
	{`arr=(1); echo "${arr[E]}"`, false},
	{`arr=(1); echo ${#arr[E]}`, false},
	{`arr=(1); echo "${arr[E]:-d}"`, false},
	{`arr=(1); echo $(( arr[N] ))`, false},
	{`s=abc; echo ${s:N}`, false},
	{`s=abc; echo "${s:E}"`, false},
	{`s=abc; echo ${s:0:N}`, false},
	{`arr=(1 2); echo ${arr[@]:N}`, false},
	{`[[ N -eq 1 ]]`, false},
	{`[[ E -lt 1 ]]`, false},
	{`[[ 1 -ne "E" ]]`, false},
	{`test -v "E"`, true},
	{`[ -v "E" ]`, true},
	{`[[ -v E ]]`, false},
	{`printf -v "E" x`, true},
	{`builtin printf -v "E" x`, true},
	{`read "E" <<< x`, false},
	{`arr=(1); unset "arr[E]"`, false},
	{`f() { local "E=1"; }; f "$@"`, false},
	{`declare "E=1"`, false},
	{`declare -n r=E; echo $r`, false},
	{`echo ${!N}`, false},
	{`echo ${N@P}`, false},
}

// What an operand can be that the walk cannot know; the payload makes the
// text bash evaluates a[$(rm -f victim.txt)].
var evalOperands = []struct {
	what, setup, n, e string
}{
	{"a command's output", `v=$(cat n.txt); `, "v", "$v"},
	{"read from a file", `read -r v < n.txt; `, "v", "$v"},
	{"a literal that is not a number", `v='a[$(rm -f victim.txt)]'; `, "v", "$v"},
	{"a copy of a value read at run time", `w=$(cat n.txt); v=$w; `, "v", "$v"},
	{"a copy of itself", `v=$v; `, "v", "$v"},
	{"a key of an associative array", `declare -A h; h[$(cat n.txt)]=1; for v in "${!h[@]}"; do :; done; `, "v", "$v"},
	{"the environment", ``, "v", "$v"},
	{"a number, then a read", `v=1; read -r v < n.txt; `, "v", "$v"},
	{"printf -v", `printf -v v %s "$(cat n.txt)"; `, "v", "$v"},
	{"mapfile", `mapfile -t v < n.txt; `, "v", "$v"},
	{"a command substitution", ``, "", "$(cat n.txt)"},
	{"an argument", `set -- "$(cat n.txt)"; `, "", "$1"},
}

const evalPayload = `a[$(rm -f victim.txt)]`

// evalCase is one command of the table, and whether the POSIX reading
// parses it.
type evalCase struct {
	src, what string
	sh        bool
	// first is set for the first operand of each place: bash as sh runs
	// those (the others differ only in where the value comes from).
	first bool
}

func evalCases() []evalCase {
	var out []evalCase
	for _, p := range evalPositions {
		first := true
		for _, o := range evalOperands {
			if strings.Contains(p.tmpl, "N") && o.n == "" || !strings.Contains(p.tmpl, "N") && !strings.Contains(p.tmpl, "E") {
				continue
			}
			body := strings.ReplaceAll(strings.ReplaceAll(p.tmpl, "N", o.n), "E", o.e)
			sh := p.sh && !strings.Contains(o.setup, "mapfile") && !strings.Contains(o.setup, "declare -A")
			out = append(out, evalCase{o.setup + body, p.tmpl + " with " + o.what, sh, first})
			first = false
		}
	}
	// Text a builtin gives an integer variable, and a prompt or name
	// bash evaluates read whole.
	for _, s := range []string{
		`declare -i z; read -r z < n.txt`,
		`declare -i z; printf -v z %s "$(cat n.txt)"`,
		`declare -i z; for z in "$(cat n.txt)"; do :; done`,
		`echo $(( $(cat n.txt) ))`,
		`x='a[$(rm -f victim.txt)]'; echo $((x))`,
		`test -v 'a[$(rm -f victim.txt)]'`,
		`printf -v 'a[$(rm -f victim.txt)]' x`,
		`read 'a[$(rm -f victim.txt)]' <<< x`,
		`declare -n r='a[$(rm -f victim.txt)]'; echo $r`,
		`x='$(rm -f victim.txt)'; echo ${x@P}`,
		`x=$'\x24(rm -f victim.txt)'; echo ${x@P}`,
		`x=a[\$\(rm\ -f\ victim.txt\)]; echo $((x))`,
		`x="a[\$""(rm -f victim.txt)]"; echo $((x))`,
		`d='$'; x="a[${d}(rm -f victim.txt)]"; echo $((x))`,
		// A value given before a script the command starts uses it and
		// only then assigns it.
		`v=$(cat n.txt); export v; bash -c 'echo $((v)); v=1'`,
		`v=$(cat n.txt); eval 'echo $((v)); v=1'`,
		`v=$(cat n.txt); v=$v bash -c 'echo $((v)); v=1'`,
		`v=1; unset v; : ${v:=$(cat n.txt)}; echo $((v))`,
		`v=1; declare -i v; unset v; read -r v < n.txt; echo $((v))`,
		// declare gives an array a word: it reads it as ( … ) again.
		`v="([$(cat n.txt)]=1)"; declare -a arr=$v`,
		`v="($(cat n.txt))"; declare -a arr="$v"`,
		`v="([$(cat n.txt)]=1)"; arr=(); declare arr=$v`,
		`v=$(cat n.txt); declare -a "arr=([$v]=1)"`,
		`declare -a arr='($(rm -f victim.txt))'`,
		`v="([$(cat n.txt)]=1)"; readonly -a x=$v`,
	} {
		out = append(out, evalCase{s, s, false, true})
	}
	return out
}

// TestEvaluatedTextIsCodeLoupeCannotSee walks every place bash evaluates
// text with every kind of operand the walk cannot know: with deny rm * it
// asks in auto mode (the reason names the place), an allow rule for every
// command does not cover it, and the question says what bash evaluates.
// The same holds when the command runs in /bin/sh, which may be bash.
func TestEvaluatedTextIsCodeLoupeCannotSee(t *testing.T) {
	bash := cmdshell.Shell{Path: "/bin/bash", Dialect: cmdshell.Bash, Known: true}
	sh := cmdshell.Shell{Path: "/bin/sh", Dialect: cmdshell.POSIX}
	for _, c := range evalCases() {
		shells := []cmdshell.Shell{bash}
		if c.sh {
			shells = append(shells, sh)
		}
		for _, s := range shells {
			if a := analyzeCommandIn(c.src, s); len(a.later) == 0 || !a.opaque {
				t.Errorf("%s (%s, %s): not seen as code bash evaluates (%q)", c.src, c.what, s.Path, a.unseen)
			}
			deny := Policy{Mode: ModeAuto, Rules: []Rule{{Effect: EffectDeny, Command: "rm *"}}, shell: &s}
			if d := deny.Decide(runCmd(c.src)); d.Verdict == Run {
				t.Errorf("%s (%s, %s): deny rm * in auto mode lets it run", c.src, c.what, s.Path)
			}
			allow := Policy{Mode: ModeAsk, Rules: []Rule{{Effect: EffectAllow, Command: "*"}}, shell: &s}
			d := allow.Decide(runCmd(c.src))
			if d.Verdict == Run {
				t.Errorf("%s (%s, %s): an allow rule for every command lets it run", c.src, c.what, s.Path)
			} else if !strings.Contains(strings.Join(d.Reasons, " "), "bash runs text in it as code") {
				t.Errorf("%s (%s, %s): the question does not say what bash evaluates: %q", c.src, c.what, s.Path, d.Reasons)
			}
		}
	}
}

// TestEvaluatedTextRunsInBash grounds the table: each case, run by bash
// (and, where sh parses it, by bash as sh) in a folder where n.txt holds
// a[$(rm -f victim.txt)] and the environment's v does too, removes
// victim.txt (one process per case, so it takes a while). Dash, run on
// the same texts, removes nothing: it evaluates none of them, and the
// POSIX reading is checked only because /bin/sh may be bash. Each of
// bashOwnCode, run by bash with a home of its own, removes it too.
func TestEvaluatedTextRunsInBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed, so what it runs cannot be shown")
	}
	dash, _ := exec.LookPath("dash")
	for _, c := range evalCases() {
		modes := [][]string{{"-c"}}
		if c.sh && c.first {
			modes = append(modes, []string{"--posix", "-c"})
			if dash != "" {
				modes = append(modes, []string{"dash", "-c"})
			}
		}
		for _, m := range modes {
			shell := bash
			if m[0] == "dash" {
				shell, m = dash, m[1:]
			}
			dir := t.TempDir()
			victim := filepath.Join(dir, "victim.txt")
			if err := os.WriteFile(victim, []byte("keep\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "n.txt"), []byte(evalPayload+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(shell, append(m, c.src)...)
			cmd.Dir = dir
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "v=" + evalPayload}
			out, _ := cmd.CombinedOutput()
			_, err := os.Stat(victim)
			switch {
			case shell == dash && err != nil:
				t.Errorf("dash -c %q ran the inner rm: dash evaluates it too, which SECURITY.md says it does not\n%s", c.src, out)
			case shell == bash && err == nil:
				t.Errorf("bash %s %q did not run the inner rm: the case is not real\n%s", strings.Join(m, " "), c.src, out)
			}
		}
	}
	// The places of bash's own that take names, code or startup files,
	// and the programs that run a command they are given.
	for _, c := range bashOwnCode {
		if err := bashDeletesVictim(t, c.src); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// Common forms whose operands are constants the walk knows stay quiet:
// they run in auto mode with deny rules and are not code Loupe cannot
// see. $#, $?, $$, $!, ${#x} and RANDOM are integers bash sets itself.
func TestEvaluatedConstantsStayQuiet(t *testing.T) {
	deny := Policy{Mode: ModeAuto, Rules: []Rule{{Effect: EffectDeny, Command: "rm *"}}}
	for _, c := range []string{
		`echo $((1+2))`,
		`for ((i=0;i<3;i++)); do echo $i; done`,
		`i=0; echo $((i+1))`,
		`x=5; echo $((x + 1))`,
		`n=5; for ((i=0; i<n; i++)); do echo $i; done`,
		`count=0; for f in *.go; do count=$((count+1)); done; echo $count`,
		`i=0; while (( i < 3 )); do i=$((i+1)); done`,
		`for i in 1 2 3; do echo $((i*2)); done`,
		`for i in {1..5}; do echo $((i)); done`,
		`arr=(a b); echo ${#arr[@]} "${arr[0]}" "${arr[@]}" "${arr[-1]}"`,
		`s=abcdef; echo ${s:1:2} ${s: -1}`,
		`echo "${@:2}"`,
		`[[ $# -eq 0 ]] && echo none`,
		`[[ $? -ne 0 ]] || echo ok`,
		`echo $(( $# + 1 )) $$ $((RANDOM % 6))`,
		`arr=(a b); [[ ${#arr[@]} -gt 1 ]]`,
		`echo $((0x1f + 2#101))`,
		`let i=1+2`,
		`declare -i n=3; n=n+1`,
		`test -v HOME`,
		`[[ -v HOME ]]`,
		`printf -v out '%s' hi`,
		`read -r line < go.mod`,
		`read -r -a parts <<< "a b"`,
		`while read -r line; do echo "$line"; done < go.mod`,
		`unset x`,
		`declare -A h; k=$(cat go.mod); h[$k]=1; echo "${h[$k]}"`,
		`echo ${x:-default}`,
		`test "$x" -eq 1`,
		`test "$(wc -l < go.mod)" -gt 3`,
		`printf '%d\n' "$n"`,
		`echo $(( ${#s} * 2 ))`,
		`f() { local x=$1; declare "y=$1"; export z="$1"; echo "$x$y$z"; }; f a`,
		`arr=(a b c); for i in "${!arr[@]}"; do echo "$i ${arr[$i]}"; done`,
		`local_t() { local out=$(cat go.mod); declare -a parts=(a b); echo "$out ${parts[0]}"; }; local_t`,
		`start=$SECONDS; sleep 1; echo $((SECONDS - start))`,
		`n=3; m=$n; echo $((m * 2))`,
		// An associative array declared first at the top level keeps its
		// keys data everywhere after, functions included.
		`declare -A h; f() { echo "${h[$1]}"; }; k=$(cat go.mod); h[$k]=1; f "$k"`,
		`declare -A h=(); k=$(cat go.mod); printf -v "h[key]" %s 1; unset "h[key]"; echo "${h[$k]}"`,
		`f() { local -A seen; for w in "$@"; do seen[$w]=1; done; echo "${!seen[@]}"; }; f "$(cat go.mod)"`,
		`printf -vout %s hi; echo "$out"`,
		`bash -euo pipefail -c 'echo hi'`,
		`sleep 0 & wait -n -p pid; echo "$pid"`,
		`exec {fd}>/dev/null; echo hi >&$fd`,
		`compgen -W 'alpha beta' -- al`,
		`set -euo pipefail; echo ok`,
		`bash -e -c 'echo hi'`,
		`bash -o pipefail -O extglob -c 'echo hi'`,
		`bash --noprofile --norc -c 'echo hi'`,
		`zip -q z.zip go.mod`,
		`split -l 10 go.mod part.`,
		`gcc -O2 -c x.c -o x.o`,
	} {
		for _, s := range []cmdshell.Shell{cmdshell.Commands(), {Path: "/bin/sh", Dialect: cmdshell.POSIX}} {
			if a := analyzeCommandIn(c, s); len(a.later) > 0 {
				t.Errorf("%s (%s): seen as code bash evaluates: %q", c, s.Path, a.later)
			}
		}
		if d := deny.Decide(runCmd(c)); d.Verdict != Run {
			t.Errorf("%s: asks in auto mode with deny rm *: %s %q", c, d.Verdict, d.Reasons)
		}
	}
}
