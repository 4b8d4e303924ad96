package permission

import (
	"fmt"
	"testing"
)

// TestAnAllowLineCoversOnlyItsOwnText walks every control character bash
// keeps inside a word (all but tab and newline) through a line the parser
// prints the same way as the granted one: "Approve for this session" of
// `touch built.txt` must never cover `touch built.txt<c># ; rm -f victim`,
// which bash reads as a touch of an odd name and then an rm. Deny and ask
// lines still match such a line, since covering more is their safe side.
func TestAnAllowLineCoversOnlyItsOwnText(t *testing.T) {
	granted := runCmd("touch built.txt")
	for _, scope := range []Scope{ScopeSession, ScopeWorkspace} {
		g, err := GrantFor(granted, true, scope)
		if err != nil {
			t.Fatal(err)
		}
		p := Policy{Mode: ModeAsk, Grants: []Grant{g}}
		if d := p.Decide(granted); d.Verdict != Run {
			t.Fatalf("control: the granted line itself is %v", d.Verdict)
		}
		for _, ends := range []string{" ", "\t", "\n", "  \n"} {
			if d := p.Decide(runCmd(ends + "touch built.txt" + ends)); d.Verdict != Run {
				t.Errorf("the granted line with %q at its ends is %v, want it covered", ends, d.Verdict)
			}
		}
		for ch := rune(1); ch < 0x20 || ch == 0x7f; ch++ {
			if ch == '\t' || ch == '\n' {
				continue
			}
			for _, line := range []string{
				"touch built.txt" + string(ch) + "# ; rm -f victim.txt",
				"touch built.txt" + string(ch),
				"touch" + string(ch) + "built.txt",
			} {
				if d := p.Decide(runCmd(line)); d.Verdict == Run {
					t.Errorf("%s grant of `touch built.txt` covers %q (by %s)", scope, line, d.By)
				}
			}
			if ch == 0x1f {
				ch = 0x7e
			}
		}
	}
	for _, effect := range []Effect{EffectDeny, EffectAsk} {
		p := Policy{Mode: ModeAuto, Rules: []Rule{{Effect: effect, CommandLine: "touch built.txt"}}}
		for _, line := range []string{"touch built.txt", "touch  built.txt", "touch built.txt\r# ; rm -f victim.txt"} {
			if d := p.Decide(runCmd(line)); d.Verdict == Run {
				t.Errorf("%s line `touch built.txt` lets %s run", effect, fmt.Sprintf("%q", line))
			}
		}
	}
}
