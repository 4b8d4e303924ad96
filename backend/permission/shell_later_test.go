package permission

import "testing"

// Text bash runs as a command after reading the command line, where the
// parser sees data (each was run through bash 5.2 and its rm ran): with a
// deny rule on rm, none of them runs in auto mode, and an allow rule for
// the outer command does not let it through in the default mode. Plain
// uses of the same builtins still run.
func TestCodeBashRunsLaterIsNotSeenAsData(t *testing.T) {
	hidden := []string{
		`x='a[$(rm -f victim.txt)]'; echo $((x))`,
		`x='a[$(rm -f victim.txt)]'; [[ x -eq 0 ]]`,
		`x='a[$(rm -f victim.txt)]'; z=(1 2); echo ${z[x]}`,
		`test -v 'a[$(rm -f victim.txt)]'`,
		`[[ -v 'a[$(rm -f victim.txt)]' ]]`,
		`printf -v 'a[$(rm -f victim.txt)]' x`,
		`read 'a[$(rm -f victim.txt)]' <<< x`,
		`declare -n r='a[$(rm -f victim.txt)]'; echo $r`,
		`x='$(rm -f victim.txt)'; echo ${x@P}`,
		"x='`rm -f victim.txt`'; echo ${x@P}",
		`PS4='$(rm -f victim.txt)'; set -x; true`,
		`x=$'\x24(rm -f victim.txt)'; echo ${x@P}`,
		`mapfile -C 'rm -f victim.txt #' -c 1 y < f`,
		`readarray -tC 'rm -f victim.txt #' -c 1 y < f`,
		`hash -p /usr/bin/rm foo; foo -f victim.txt`,
		`env 'BASH_FUNC_ls%%=() { rm -f victim.txt; }' bash -c ls`,
		`export PROMPT_COMMAND='rm -f victim.txt'; bash -i -c true`,
		`sh -c 'hash -p /usr/bin/rm foo; foo -f victim.txt'`,
		`x='a[$''(rm -f victim.txt)]'; echo $((x))`,
		`x=a[\$\(rm\ -f\ victim.txt\)]; echo $((x))`,
		`x="a[\$""(rm -f victim.txt)]"; echo $((x))`,
		`env "BASH_""FUNC_ls%%=() { rm -f victim.txt; }" bash -c ls`,
		`enable -f ./x.so foo; foo`,
	}
	deny := Policy{Mode: ModeAuto, Rules: []Rule{{Effect: EffectDeny, Command: "rm *"}}}
	for _, c := range hidden {
		if d := deny.Decide(runCmd(c)); d.Verdict == Run {
			t.Errorf("runs in auto mode despite deny rm *: %s", c)
		}
	}
	allow := Policy{Mode: ModeAsk, Rules: []Rule{
		{Effect: EffectAllow, Command: "printf *"}, {Effect: EffectAllow, Command: "test *"},
		{Effect: EffectAllow, Command: "mapfile *"}, {Effect: EffectAllow, Command: "hash *"},
	}}
	for _, c := range []string{
		`printf -v 'a[$(rm -f victim.txt)]' x`,
		`test -v 'a[$(rm -f victim.txt)]'`,
		`mapfile -C 'rm -f victim.txt #' -c 1 y`,
		`hash -p /usr/bin/rm foo`,
	} {
		if d := allow.Decide(runCmd(c)); d.Verdict == Run {
			t.Errorf("an allow rule for the outer command lets hidden code run: %s", c)
		}
	}
	// Literals bash does not evaluate again are data: commit messages with
	// backticks, patterns with $( in them.
	for _, c := range []string{`x=5; echo $((x + 1))`, `printf '%s\n' hello`, `test -f go.mod`, `hash -r`, `mapfile -t lines < f`, `echo $(date)`,
		"git commit -m 'use `go test` before pushing'", "gh pr create --body 'Run `make test`'", "git log --format='%h `%s`'",
		"echo \"run \\`make\\` first\"", `grep -rn '$(' src`, `sed -n 's/$(\w*)/X/p' Makefile`, `awk '{print $(NF)}' f`, `echo '$(pwd)'`,
		"git commit -F- <<'EOF'\nfix `x`\nEOF", "cat > s.sh <<'EOF'\necho $(date)\nEOF"} {
		if d := deny.Decide(runCmd(c)); d.Verdict != Run {
			t.Errorf("a plain command asks in auto mode: %s (%v %q)", c, d.Verdict, d.Reasons)
		}
	}
}

// When an allow rule does not cover a command because bash runs text in
// it later, the question says why.
func TestLaterCodeQuestionSaysWhy(t *testing.T) {
	p := Policy{Mode: ModeAsk, Rules: []Rule{{Effect: EffectAllow, Command: "printf *"}}}
	d := p.Decide(runCmd(`printf -v 'a[$(rm -f victim.txt)]' x`))
	if d.Verdict == Run || len(d.Reasons) == 0 {
		t.Fatalf("verdict %v with reasons %q: the question must say why", d.Verdict, d.Reasons)
	}
	t.Logf("reasons: %q", d.Reasons)
}
