package permission

import (
	"strings"
	"testing"
)

// Programs that run a command they are given, or their settings' or the
// workspace's: under deny rm * in auto mode each asks, since the rule
// cannot be checked against what they run. None is in a list of the
// classifier's; what decides is that it is not in the list of programs
// known to run nothing else.
func TestProgramsLoupeDoesNotKnowAskUnderDenyRules(t *testing.T) {
	for _, src := range []string{
		`rsync -e 'rm -f victim.txt' a b:`,
		`rsync --rsync-path='rm -f v' a b:`,
		`scp -S rm a b:`,
		`socat - EXEC:'rm v'`,
		`nc -e 'rm v' x 1`,
		`tmux new 'rm v'`,
		`screen rm v`,
		`direnv exec . rm v`,
		`uv run rm v`,
		`poetry run rm v`,
		`bundle exec rm v`,
		`nix-shell --run 'rm v'`,
		`xvfb-run rm v`,
		`chronic rm v`,
		`entr rm v`,
		`hyperfine 'rm v'`,
		`perf record rm v`,
		`psql -c '\! rm v'`,
		`mysql -e 'system rm v'`,
		`emacs --batch --eval '(shell-command "rm v")'`,
		`gnuplot -e 'system "rm v"'`,
		`octave --eval 'system("rm v")'`,
		`patch -p1 < x.diff`, // an ed-style patch runs ed, and ed runs ! lines
		`less +'!rm -f v' x`,
		`cargo xtask`,
		`cargo my-alias`,
		`gh my-alias`,
		`go tool mytool`,
		`some-new-tool --run 'rm v'`,
	} {
		d := denyRm().Decide(runCmd(src))
		if d.Verdict == Run {
			t.Errorf("%s: runs in auto mode under deny rm *", src)
			continue
		}
		if !strings.Contains(strings.Join(d.Reasons, " "), "cannot check your rules") {
			t.Errorf("%s: %q, want it to say the rules cannot be checked", src, d.Reasons)
		}
	}
}

// Programs known to run nothing else, the shell's own commands, a
// program's own subcommands and functions and aliases the command
// defines stay quiet under the same rules; and without deny or ask rules
// an unknown program runs in auto mode as before.
func TestKnownProgramsStayQuietUnderDenyRules(t *testing.T) {
	for _, src := range []string{
		`ls -la`, `grep -rn TODO .`, `jq .name package.json`, `wc -l *.go`, `diff a b`, `mkdir -p out && cp a out/`,
		`tar czf a.tgz src`, `unzip -l a.zip`, `gh pr create --title x --body y`,
		`cargo version`, `cargo +nightly version`, `go version`, `read -r x < f; echo "$x"`,
		`f() { ls; }; f`, "alias ll='ls -l'\nll",
	} {
		if d := denyRm().Decide(runCmd(src)); d.Verdict != Run {
			t.Errorf("%s: %v %q, want it to run", src, d.Verdict, d.Reasons)
		}
	}
	auto := Policy{Mode: ModeAuto}
	for _, src := range []string{`some-new-tool --run x`, `rsync -a src/ dst/`} {
		if d := auto.Decide(runCmd(src)); d.Verdict != Run {
			t.Errorf("%s with no rules: %v %q, want it to run", src, d.Verdict, d.Reasons)
		}
	}
}

func denyRm() Policy {
	return Policy{Mode: ModeAuto, Rules: []Rule{{Effect: EffectDeny, Command: "rm *"}}}
}
