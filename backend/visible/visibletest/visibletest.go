// Package visibletest holds the hostile text the tests of every output
// feed Loupe (terminal control sequences, overwrites, bidi controls), and
// a check, written apart from package visible's own rules, that none of it
// reached an output raw.
package visibletest

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Sequence is one hostile piece of text: Raw is what the model, a command
// or a server sends, Shown what Loupe must show instead (as package
// visible's Text writes it).
type Sequence struct {
	Name, Raw, Shown string
}

// Sequences are what a terminal would obey: each fakes or hides something
// on the screen of someone reading Loupe's output.
var Sequences = []Sequence{
	{"clear screen", "\x1b[2J\x1b[H", `\x1b[2J\x1b[H`},
	{"erase line", "FAILED\x1b[2K\x1b[1Gok", `FAILED\x1b[2K\x1b[1Gok`},
	{"cursor up", "\x1b[1A\x1b[32mpassed", `\x1b[1A\x1b[32mpassed`},
	{"window title (OSC 0)", "\x1b]0;pwned\x07", `\x1b]0;pwned\x07`},
	{"window title (OSC 2)", "\x1b]2;pwned\x1b\\", `\x1b]2;pwned\x1b\`},
	{"clipboard (OSC 52)", "\x1b]52;c;cm0gLXJmIH4K\x07", `\x1b]52;c;cm0gLXJmIH4K\x07`},
	{"hyperlink (OSC 8)", "\x1b]8;;https://evil.example/\x1b\\docs\x1b]8;;\x1b\\", `\x1b]8;;https://evil.example/\x1b\docs\x1b]8;;\x1b\`},
	{"carriage return", "3 FAILED\rAll tests passed", `3 FAILED\rAll tests passed`},
	{"backspace", "denied\b\b\b\b\b\ballowed", `denied\b\b\b\b\b\ballowed`},
	{"bell", "ding\x07", `ding\x07`},
	{"DEL", "rm\x7f", `rm\u007f`},
	{"C1 CSI", "\u009b2J", `\u009b2J`},
	{"C1 OSC", "\u009d0;pwned\u009c", `\u009d0;pwned\u009c`},
	{"C1 NEL", "one\u0085two", `one\u0085two`},
	{"bidi override (RLO)", "\u202edeined\u202c", `\u202edeined\u202c`},
	{"bidi embedding (LRE, RLE)", "\u202aa\u202bb\u202c", `\u202aa\u202bb\u202c`},
	{"bidi override (LRO)", "\u202dok\u202c", `\u202dok\u202c`},
	{"bidi isolates", "\u2066a\u2069\u2067b\u2069\u2068c\u2069", `\u2066a\u2069\u2067b\u2069\u2068c\u2069`},
}

// All is every sequence, each after its number, in one string.
func All() string {
	var b strings.Builder
	for i, s := range Sequences {
		fmt.Fprintf(&b, "<%d>%s</%d> ", i, s.Raw, i)
	}
	return b.String()
}

// RawControls lists the characters in out that a terminal would obey, each
// with where it is: ESC and the other C0 controls but newline and tab, a
// carriage return that does not end a line, DEL, the C1 controls (as
// UTF-8 or as the lone bytes 0x80 to 0x9f) and the bidi controls. It is
// written apart from package visible on purpose: a rule forgotten there is
// not forgotten here.
func RawControls(out string) []string {
	var found []string
	for i := 0; i < len(out); {
		r, n := utf8.DecodeRuneInString(out[i:])
		bad := ""
		switch {
		case r == utf8.RuneError && n == 1 && out[i] >= 0x80 && out[i] <= 0x9f:
			bad = fmt.Sprintf("byte %#x", out[i])
		case r == '\r':
			if !strings.HasPrefix(out[i+1:], "\n") {
				bad = "CR"
			}
		case r == '\n' || r == '\t':
		case r < 0x20:
			bad = fmt.Sprintf("C0 %#x", r)
		case r == 0x7f:
			bad = "DEL"
		case r >= 0x80 && r <= 0x9f:
			bad = fmt.Sprintf("C1 %U", r)
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
			bad = fmt.Sprintf("bidi %U", r)
		}
		if bad != "" {
			lo, hi := max(0, i-20), min(len(out), i+20)
			found = append(found, fmt.Sprintf("%s at %d in %q", bad, i, out[lo:hi]))
		}
		i += n
	}
	return found
}
