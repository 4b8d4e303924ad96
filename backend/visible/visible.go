// Package visible shows text Loupe did not write (the model's answer and
// thinking, tool arguments, a command's output, a file's content, a
// server's error) on a terminal or in a file someone will print, without
// letting it steer what they see. A terminal obeys the control characters
// in what it is given: an escape sequence clears the screen, moves the
// cursor, sets the window's title, writes the clipboard (OSC 52) or makes
// a link (OSC 8); a carriage return or a backspace overwrites what was
// printed; a bidi override reorders the characters after it. Any of them
// could fake "All tests passed" or hide a denial. Here each such
// character is written out as an escape that reads as what it is.
//
// The escapes are chosen so that Text of a JSON document is still JSON,
// with the same value: JSON encoders already write the C0 controls as
// \uXXXX, and everything else this package escapes (DEL, the C1 controls,
// the bidi controls) is written as a \uXXXX escape, which JSON reads back
// as the same character. Only bytes that are not UTF-8, which no JSON
// encoder writes, become \xHH.
//
// Each character is escaped on its own, so text escaped in pieces (a
// stream, one write at a time) is as safe as text escaped whole: an escape
// sequence cut in two still has its ESC escaped, and a character cut in two
// shows as its bytes.
//
// A backslash is left as it is: text that spells out "\x1b" looks like an
// escaped ESC, which is harmless, while doubling every backslash would make
// every path and regular expression harder to read.
package visible

import (
	"io"
	"strings"
	"unicode/utf8"
)

// Text returns s with every character that can control a terminal or
// reorder text escaped: the C0 controls (ESC as \x1b, CR as \r, backspace
// as \b), DEL, the C1 controls (U+0080 to U+009F, CSI among them) and the
// bidi controls (U+202A to U+202E, U+2066 to U+2069, U+200E, U+200F,
// U+061C) as \uXXXX, and bytes that are not UTF-8 as \xHH. Newlines and
// tabs are kept, and so is a carriage return just before a newline (a
// line ending, which overwrites nothing).
func Text(s string) string { return escape(s, false) }

// Line is Text for output of one line per item: newlines and tabs, and
// carriage returns before a newline, are escaped too (\n, \t, \r), so that
// text cannot start a line that looks like another item.
func Line(s string) string { return escape(s, true) }

// Safe reports whether Text would leave s as it is.
func Safe(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 || unsafe(r, s[i+n:], false) {
			return false
		}
		i += n
	}
	return true
}

func escape(s string, line bool) string {
	var b strings.Builder
	start := 0 // s[start:i] is safe and not yet written
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		bad := r == utf8.RuneError && n <= 1
		if !bad && !unsafe(r, s[i+n:], line) {
			i += n
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(s) + 8)
		}
		b.WriteString(s[start:i])
		if bad {
			writeHex(&b, `\x`, uint32(s[i]), 2)
		} else {
			writeRune(&b, r)
		}
		i += n
		start = i
	}
	if start == 0 {
		return s
	}
	b.WriteString(s[start:])
	return b.String()
}

// unsafe reports whether r, followed by rest, must be escaped.
func unsafe(r rune, rest string, line bool) bool {
	switch {
	case r == '\n' || r == '\t':
		return line
	case r == '\r':
		return line || !strings.HasPrefix(rest, "\n")
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	}
	return bidi(r)
}

// bidi reports whether r is a bidirectional formatting character: the
// embeddings and overrides (LRE, RLE, PDF, LRO, RLO), the isolates (LRI,
// RLI, FSI, PDI) and the marks (LRM, RLM, ALM). Unicode's UAX #9 lists
// them; "Trojan Source" (CVE-2021-42574) is what they do to code review.
func bidi(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
}

func writeRune(b *strings.Builder, r rune) {
	switch r {
	case '\n':
		b.WriteString(`\n`)
	case '\t':
		b.WriteString(`\t`)
	case '\r':
		b.WriteString(`\r`)
	case '\b':
		b.WriteString(`\b`)
	case '\f':
		b.WriteString(`\f`)
	default:
		if r < 0x20 {
			writeHex(b, `\x`, uint32(r), 2)
		} else {
			writeHex(b, `\u`, uint32(r), 4)
		}
	}
}

func writeHex(b *strings.Builder, prefix string, v uint32, digits int) {
	const hex = "0123456789abcdef"
	b.WriteString(prefix)
	for d := digits - 1; d >= 0; d-- {
		b.WriteByte(hex[v>>(4*d)&0xf])
	}
}

// Writer returns a writer that writes to w what it is given as Text shows
// it. Every write is escaped on its own (see the package comment): a
// character split between two writes shows as its bytes. Loupe's command
// line writes everything through one, so that nothing it prints, whatever
// it quotes, reaches the terminal raw.
func Writer(w io.Writer) io.Writer {
	if v, ok := w.(writer); ok {
		return v
	}
	return writer{w}
}

type writer struct{ w io.Writer }

func (v writer) Write(p []byte) (int, error) {
	s := string(p)
	if Safe(s) {
		return v.w.Write(p)
	}
	if _, err := io.WriteString(v.w, Text(s)); err != nil {
		return 0, err
	}
	return len(p), nil
}
