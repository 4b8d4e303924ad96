package permission

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/cmdshell"
	"github.com/loupe-dev/loupe/backend/sandbox"
)

// dialectPairs are texts that bash and sh (dash) read differently, each
// running programs by name so that a tracing PATH sees them.
var dialectPairs = []string{
	// The text of the report: one echo to bash, three commands to dash.
	`echo $'\' ; rm -f victim.txt ; git push origin main ; echo ' #'`,
	`echo $'\'' ; rm -f a1`,
	`echo $"x" ; rm -f a2`,
	`[[ a || rm -f a3 ]]`,
	`[[ -n x ]] && git push`,
	`[[ a < b ]] || rm -f a4`,
	`(( rm -f a5 ))`,
	`((x=1)) && rm -f a6`,
	`{rm,-f,a7}`,
	`echo {a,b} ; rm -f a8`,
	`cat <(rm -f a9)`,
	`rm -f b1 |& cat`,
	`rm -f b2 &> /dev/null ; git status`,
	`case a in a) rm -f b3 ;& b) git fetch ;; esac`,
	`case a in a) touch b4 ;;& *) rm -f b5 ;; esac`,
	`function f { rm -f b6; }; f`,
	`cat <<< x ; rm -f b7`,
	`x=rm; ${x/r/r} -f b8`,
	`x=(rm -f b9); "${x[@]}"`,
	`coproc rm -f c1; wait`,
	`echo $'\x27' ; rm -f c2`,
	`echo "${x:-$'\'}" ; rm -f c3 ; echo '"'`,
	`alias r=rm
r -f c4`,
	`sh -c "echo \$'\\' ; rm -f c5 ; echo ' #'"`,
	`bash -c "echo \$'\\' ; rm -f c6 ; echo ' #'"`,
	`watch -n 1 "echo \$'\\' ; rm -f c7 ; echo ' #'"`,
	`echo ok ; rm -f c8`,
}

var wrapper = map[string]bool{"sh": true, "bash": true, "watch": true}

// tracedPrograms are the programs the texts run; each is a script that
// notes its name and arguments.
var tracedPrograms = []string{"rm", "git", "cat", "touch", "printf", "watch", "sh", "bash", "timeout"}

// TestDialectsSeeWhatTheShellRuns runs each text through the real shell
// commands run in (cmdshell.Commands(), as the sandbox starts it) and, when
// that is bash, through /bin/sh too (what a nested sh -c, or a system
// without bash, runs), with a PATH whose programs note what they were asked
// to run. Every program the shell ran must be seen by the classifier
// reading the text as that shell does: a deny rule for it refuses the text
// in auto mode (or, where the classifier cannot see the command, asks), and
// the approval card names it.
func TestDialectsSeeWhatTheShellRuns(t *testing.T) {
	type shell struct {
		cmdshell.Shell
		run string // the executable
	}
	shells := []shell{{cmdshell.Commands(), cmdshell.Commands().Path}}
	if cmdshell.Commands().Dialect == cmdshell.Bash {
		shells = append(shells, shell{cmdshell.Shell{Path: "/bin/sh", Dialect: cmdshell.POSIX}, "/bin/sh"})
	}
	if len(shells) < 2 {
		t.Logf("no bash here: only %s is compared", shells[0].Path)
	}
	bin := t.TempDir()
	log := filepath.Join(t.TempDir(), "trace")
	for _, p := range tracedPrograms {
		script := fmt.Sprintf("#!/bin/sh\nprintf '%%s\\n' \"${0##*/} $*\" >> %s\n", log)
		// Wrappers run what they are given, as the real ones do.
		switch p {
		case "sh":
			script += "exec /bin/sh \"$@\"\n"
		case "bash":
			script += "exec /bin/bash \"$@\"\n"
		case "watch": // once: watch -n N COMMAND… runs sh -c with the words joined
			script += "shift 2; exec /bin/sh -c \"$*\"\n"
		}
		if err := os.WriteFile(filepath.Join(bin, p), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	dir := t.TempDir()
	ranSomething := map[string]bool{}
	for _, sh := range shells {
		for _, src := range dialectPairs {
			t.Run(fmt.Sprintf("%s/%.40s", sh.Dialect, src), func(t *testing.T) {
				os.Remove(log)
				out, err := sandbox.Local{Shell: sh.run}.Run(context.Background(), sandbox.Command{Dir: dir, Script: src, Timeout: 10 * time.Second})
				if err != nil {
					t.Fatal(err)
				}
				b, _ := os.ReadFile(log)
				ran := strings.Fields(strings.Join(firstWords(string(b)), " "))
				t.Logf("%s ran %q (output %q)", sh.run, ran, out.Text)
				a := analyzeCommandIn(src, sh.Shell)
				for _, prog := range ran {
					ranSomething[src] = true
					p := Policy{Mode: ModeAuto, Rules: []Rule{{Effect: EffectDeny, Command: prog + " *"}}, shell: &sh.Shell}
					d := p.Decide(runCmd(src))
					seen := false
					for _, c := range a.all {
						seen = seen || c.String() != "" && strings.HasPrefix(c.String()+" ", prog+" ")
					}
					switch {
					case seen && d.Verdict != Refuse:
						t.Errorf("%s runs %s, and deny %s * gives %s: %v", sh.run, prog, prog, d.Verdict, d.Reasons)
					case !seen && (!a.opaque || d.Verdict != Ask):
						t.Errorf("%s runs %s, which the classifier does not see (commands %q), and deny %s * gives %s", sh.run, prog, commandTexts(a), prog, d.Verdict)
					}
					// The approval card (the default mode, no rules) says what runs.
					// A wrapper (sh -c, watch) is named by what it runs.
					card := Policy{shell: &sh.Shell}.Decide(runCmd(src))
					if card.Verdict != Ask || !wrapper[prog] && !strings.Contains(strings.Join(card.Reasons, "\n"), prog) && !a.opaque {
						t.Errorf("%s runs %s, and the card says %s: %q", sh.run, prog, card.Verdict, card.Reasons)
					}
				}
			})
		}
	}
	// The pairs are meant to run something in at least one of the shells.
	for _, src := range dialectPairs {
		if !ranSomething[src] && len(shells) > 1 {
			t.Errorf("no shell ran a program for %q: fix the case", src)
		}
	}
}

// firstWords gives the program name of each traced line.
func firstWords(trace string) []string {
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(trace), "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			out = append(out, f[0])
		}
	}
	return out
}

func commandTexts(a *analysis) []string {
	var out []string
	for _, c := range a.all {
		out = append(out, c.String())
	}
	return out
}

// TestReportedDialectTextIsRefused: the report's text, run as bash runs
// it (one echo) and as sh does (rm, git push): deny rm * refuses it in
// auto mode, ask git push * asks, and the refusal names the reading.
func TestReportedDialectTextIsRefused(t *testing.T) {
	src := `echo $'\' ; rm -f victim.txt ; git push origin main ; echo ' #'`
	for _, sh := range []cmdshell.Shell{cmdshell.Commands(), {Path: "/bin/bash", Dialect: cmdshell.Bash, Known: true}, {Path: "/bin/sh", Dialect: cmdshell.POSIX}} {
		d := Policy{Mode: ModeAuto, Rules: []Rule{{Effect: EffectDeny, Command: "rm *"}}, shell: &sh}.Decide(runCmd(src))
		if d.Verdict != Refuse || !strings.Contains(strings.Join(d.Reasons, " "), "rm -f victim.txt") {
			t.Errorf("%s: deny rm * gives %s %q", sh.Path, d.Verdict, d.Reasons)
		}
		d = Policy{Mode: ModeAuto, Rules: []Rule{{Effect: EffectAsk, Command: "git push *"}}, shell: &sh}.Decide(runCmd(src))
		if d.Verdict != Ask {
			t.Errorf("%s: ask git push * gives %s %q", sh.Path, d.Verdict, d.Reasons)
		}
	}
}
