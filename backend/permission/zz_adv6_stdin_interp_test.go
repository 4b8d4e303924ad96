package permission

import "testing"

// The same unseen input, handed to an interpreter: perl or python given no
// script read their program from standard input. `perl < p.pl` asks under
// a deny rule (the program is not seen); these forms run, and each one's
// program deletes victim.txt when bash runs it.
var adv6StdinInterpreters = []struct{ name, src string }{
	{"awk print | perl", `echo 'unlink "victim.txt"' > p.pl; awk '{print | "perl"}' p.pl`},
	{"exec < file then perl", `echo 'unlink "victim.txt"' > p.pl; exec < p.pl; perl`},
	{"tar --to-command=perl", `echo 'unlink "victim.txt"' > p.pl; tar cf t.tar p.pl && tar xf t.tar --to-command=perl`},
	{"split --filter=perl", `echo 'unlink "victim.txt"' > p.pl; split --filter=perl p.pl`},
	{"find -exec perl, input a file", `echo 'unlink "victim.txt"' > p.pl; find . -maxdepth 0 -exec perl \; < p.pl`},
	{"exec < file then python3", `echo 'import os; os.remove("victim.txt")' > p.py; exec < p.py; python3`},
	{"python3 <> file", `echo 'import os; os.remove("victim.txt")' > p.py; python3 <> p.py`},
	{"perl <> file", `echo 'unlink "victim.txt"' > p.pl; perl <> p.pl`},
}

func TestZZAdv6InterpreterReadingAProgramsOutput(t *testing.T) {
	for _, c := range adv6StdinInterpreters {
		t.Run(c.name, func(t *testing.T) {
			adv6Deletes(t, c.src)
			if d := denyRm().Decide(runCmd(c.src)); d.Verdict == Run {
				t.Errorf("%s: runs in auto mode under deny rm * (reasons %q), yet the interpreter runs a program Loupe never read", c.src, d.Reasons)
			}
		})
	}
}

func TestZZAdv6InterpreterReadingAProgramsOutputControl(t *testing.T) {
	for _, src := range []string{
		`echo 'unlink "victim.txt"' > p.pl; perl < p.pl`,
		`echo 'unlink "victim.txt"' > p.pl; cat p.pl | perl`,
		`echo 'import os; os.remove("victim.txt")' > p.py; python3 < p.py`,
	} {
		t.Run(src, func(t *testing.T) {
			adv6Deletes(t, src)
			if d := denyRm().Decide(runCmd(src)); d.Verdict == Run {
				t.Errorf("%s: runs under deny rm *", src)
			}
		})
	}
}
