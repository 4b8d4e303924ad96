package permission

import (
	"fmt"
	"strings"
)

// This file reads the programs given to sed and awk far enough to find
// what writes files or runs commands: sed -i, w and W, s///w, e and
// s///e; awk's print > file, pipes, system(). A program Loupe cannot
// read to the end counts as one that does both.

// sed: -i edits files in place; the script may write (w, W, s///w) and
// run commands (e, s///e); -f reads a script Loupe does not see.
func (c *classifier) sed(cmd *command, off int, args []word) {
	opts, operands := scanOpts(args, off, optSpec{withArg: "efl", optArg: "i", long: []string{"--expression", "--file", "--line-length"}, optLong: []string{"--in-place"}})
	inPlace, given := false, false
	var scripts []opt
	for _, o := range opts {
		switch {
		case o.is("-i", "--in-place"):
			inPlace = true
			cmd.mark(o.at, o.key, fmt.Sprintf("changes files in place (sed %s)", o.name))
		case o.is("-e", "--expression"):
			given = true
			scripts = append(scripts, o)
		case o.is("-f", "--file"):
			given = true
			cmd.mark(o.at, o.key, fmt.Sprintf("runs a sed script from a file Loupe does not read (sed %s)", o.name))
			c.a.unseenPart("sed %s (a script file)", o.name)
		}
	}
	if !given && len(operands) > 0 {
		w := args[operands[0]-off]
		scripts = append(scripts, opt{at: operands[0], key: w.text, val: w, hasVal: true, valAt: operands[0]})
		operands = operands[1:]
	}
	for _, s := range scripts {
		if !s.hasVal {
			continue
		}
		key := s.val.text
		if s.valAt == s.at {
			key = args[s.at-off].text // attached: -es/a/b/w f
		}
		if s.val.kind == wDyn {
			cmd.mark(s.valAt, key, "runs a sed script only known when it runs")
			c.a.unseenPart("sed %s (a script only known when it runs)", s.val.text)
			continue
		}
		r := scanSed(s.val.text)
		for _, f := range r.writes {
			c.target(word{text: f})
		}
		switch {
		case r.unsure:
			cmd.mark(s.valAt, key, "has a sed script Loupe cannot read to the end (it may write files or run commands)")
			c.a.unseenPart("sed %s (a script Loupe cannot read)", s.val.text)
		case r.runs || len(r.cmds) > 0:
			cmd.mark(s.valAt, key, "runs commands from its sed script (e)")
		case len(r.writes) > 0:
			cmd.mark(s.valAt, key, "writes to a file from its sed script (w)")
		}
		if r.runs {
			c.a.unseenPart("sed %s (it runs text it edits as a command)", s.val.text)
		}
		for _, line := range r.cmds {
			c.runsShell(cmd, word{text: line}, "sed e")
		}
	}
	if inPlace {
		for _, at := range operands {
			c.target(args[at-off])
		}
	}
}

// sedScan is what a sed script does besides editing its output.
type sedScan struct {
	writes []string // files written (w, W, s///w)
	cmds   []string // commands run (e COMMAND)
	runs   bool     // runs text only known when it runs (e alone, s///e)
	unsure bool     // Loupe could not read it to the end
}

// scanSed reads a GNU sed script.
func scanSed(s string) sedScan {
	var r sedScan
	i, n := 0, len(s)
	space := func() {
		for i < n && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
	}
	// toEOL returns the rest of the line (a file name, a command, text).
	toEOL := func() string {
		start := i
		for i < n && s[i] != '\n' {
			i++
		}
		return s[start:i]
	}
	// regex skips a regex or replacement up to the delimiter d; brackets
	// hold the delimiter literally in a regex.
	regex := func(d byte, brackets bool) bool {
		for i < n {
			ch := s[i]
			switch {
			case ch == '\\':
				i += 2
				continue
			case ch == d:
				i++
				return true
			case brackets && ch == '[':
				j := i + 1
				if j < n && s[j] == '^' {
					j++
				}
				if j < n && s[j] == ']' {
					j++
				}
				for j < n && s[j] != ']' {
					if s[j] == '[' && j+1 < n && (s[j+1] == ':' || s[j+1] == '.' || s[j+1] == '=') {
						if k := strings.Index(s[j+2:], string(s[j+1])+"]"); k >= 0 {
							j += k + 4
							continue
						}
					}
					j++
				}
				if j >= n {
					return false
				}
				i = j + 1
				continue
			case ch == '\n' && brackets:
				return false
			}
			i++
		}
		return false
	}
	address := func() bool {
		switch {
		case i < n && s[i] >= '0' && s[i] <= '9':
			for i < n && (s[i] >= '0' && s[i] <= '9' || s[i] == '~') {
				i++
			}
		case i < n && s[i] == '$':
			i++
		case i < n && (s[i] == '/' || s[i] == '\\'):
			d := byte('/')
			if s[i] == '\\' {
				if i+1 >= n || s[i+1] == '\n' || s[i+1] == '\\' {
					return false
				}
				d = s[i+1]
				i++
			}
			i++
			if !regex(d, true) {
				return false
			}
			for i < n && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
		}
		return true
	}
	// end expects the end of a command.
	end := func() bool {
		space()
		return i >= n || s[i] == ';' || s[i] == '\n' || s[i] == '}' || s[i] == '#'
	}
	for {
		for i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == ';' || s[i] == '}') {
			i++
		}
		if i >= n {
			return r
		}
		if s[i] == '#' {
			toEOL()
			continue
		}
		if !address() {
			r.unsure = true
			return r
		}
		space()
		if i < n && s[i] == ',' {
			i++
			space()
			if i < n && (s[i] == '+' || s[i] == '~') {
				i++
			}
			if !address() {
				r.unsure = true
				return r
			}
		}
		space()
		for i < n && s[i] == '!' {
			i++
			space()
		}
		if i >= n {
			r.unsure = true
			return r
		}
		ch := s[i]
		i++
		ok := true
		switch ch {
		case '{':
		case '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
			ok = end()
		case 'l', 'L', 'q', 'Q':
			space()
			for i < n && s[i] >= '0' && s[i] <= '9' {
				i++
			}
			ok = end()
		case ':', 'b', 't', 'T', 'v':
			for i < n && s[i] != ';' && s[i] != '\n' {
				i++
			}
		case 'a', 'i', 'c':
			// Text to the end of the line; a backslash before the newline
			// continues it.
			for i < n && s[i] != '\n' {
				if s[i] == '\\' {
					i++
				}
				i++
			}
		case 'r', 'R':
			toEOL()
		case 'w', 'W':
			space()
			if f := toEOL(); f == "" {
				ok = false
			} else if !harmlessTargets[f] {
				r.writes = append(r.writes, f)
			}
		case 'e':
			space()
			if line := strings.TrimSpace(toEOL()); line == "" {
				r.runs = true
			} else {
				r.cmds = append(r.cmds, line)
			}
		case 's', 'y':
			if i >= n || s[i] == '\n' || s[i] == '\\' {
				ok = false
				break
			}
			d := s[i]
			i++
			if !regex(d, true) || !regex(d, false) {
				ok = false
				break
			}
			if ch == 'y' {
				ok = end()
				break
			}
		flags:
			for i < n {
				switch f := s[i]; {
				case f == 'g' || f == 'p' || f == 'i' || f == 'I' || f == 'm' || f == 'M' || f >= '0' && f <= '9':
					i++
				case f == 'e':
					r.runs = true
					i++
				case f == 'w':
					i++
					space()
					if file := toEOL(); file == "" {
						ok = false
					} else if !harmlessTargets[file] {
						r.writes = append(r.writes, file)
					}
					break flags
				default:
					break flags
				}
			}
			if ok {
				ok = end()
			}
		default:
			ok = false
		}
		if !ok {
			r.unsure = true
			return r
		}
	}
}

// awk: the program may write files (print > f), run commands (system(),
// pipes) and load code (@include, @load); -f, -E, -i and -l read code
// Loupe does not see; --dump-variables, --profile and --pretty-print
// write files.
func (c *classifier) awk(cmd *command, name string, off int, args []word) {
	opts, operands := scanOpts(args, off, optSpec{
		withArg: "fFvEilWe", optArg: "dDopL",
		long:    []string{"--file", "--field-separator", "--assign", "--exec", "--include", "--load", "--source"},
		optLong: []string{"--dump-variables", "--debug", "--pretty-print", "--profile", "--lint"},
	})
	given := false
	var programs []opt
	for _, o := range opts {
		switch {
		case o.is("-f", "--file", "-E", "--exec", "-i", "--include", "-l", "--load"):
			given = true
			cmd.mark(o.at, o.key, fmt.Sprintf("runs awk code from a file Loupe does not read (%s %s)", name, o.name))
			c.a.unseenPart("%s %s (a program file)", name, o.name)
		case o.is("-e", "--source"):
			given = true
			programs = append(programs, o)
		case o.is("-d", "--dump-variables", "-o", "--pretty-print", "-p", "--profile"):
			cmd.mark(o.at, o.key, fmt.Sprintf("writes to a file (%s %s)", name, o.name))
			if o.hasVal {
				c.target(o.val)
			}
		case o.is("-W") && strings.HasPrefix(o.val.text, "e"):
			given = true
			cmd.mark(o.at, o.key, fmt.Sprintf("runs awk code from a file Loupe does not read (%s -W exec)", name))
			c.a.unseenPart("%s -W exec (a program file)", name)
		}
	}
	if !given && len(operands) > 0 {
		w := args[operands[0]-off]
		programs = append(programs, opt{at: operands[0], key: w.text, val: w, hasVal: true, valAt: operands[0]})
	}
	for _, p := range programs {
		if !p.hasVal {
			continue
		}
		key := p.val.text
		if p.valAt == p.at {
			key = args[p.at-off].text
		}
		if p.val.kind == wDyn {
			cmd.mark(p.valAt, key, "runs an awk program only known when it runs")
			c.a.unseenPart("%s %s (a program only known when it runs)", name, p.val.text)
			continue
		}
		r := scanAwk(p.val.text)
		for _, f := range r.writes {
			c.target(word{text: f})
		}
		switch {
		case r.unsure || r.dynCmd || r.loads:
			cmd.mark(p.valAt, key, "runs commands from its awk program (system, pipes)")
			c.a.unseenPart("%s (inline awk code that runs commands)", name)
		case len(r.cmds) > 0:
			cmd.mark(p.valAt, key, "runs commands from its awk program (system, pipes)")
		case len(r.writes) > 0 || r.dynWrite:
			cmd.mark(p.valAt, key, "writes to a file from its awk program (print >)")
		}
		for _, line := range r.cmds {
			c.runsShell(cmd, word{text: line}, name+" system")
		}
	}
}

// awkScan is what an awk program does besides printing.
type awkScan struct {
	writes   []string // files print writes to
	dynWrite bool     // print writes to a file named at run time
	cmds     []string // commands it runs, as written
	dynCmd   bool     // it runs commands built at run time
	loads    bool     // @include, @load, an indirect call
	unsure   bool     // Loupe could not read it to the end
}

type awkTok struct {
	kind byte // 'n' name, '1' number, 's' string, 'r' regex, 'o' operator, ';' newline or ;
	text string
}

// awkKeywordsBeforeExpr are words after which a / starts a regex.
var awkKeywordsBeforeExpr = map[string]bool{"print": true, "printf": true, "return": true, "do": true, "else": true, "case": true, "exit": true}

// lexAwk splits an awk program into tokens; ok is false when it cannot
// (an unterminated string or regex).
func lexAwk(s string) ([]awkTok, bool) {
	var toks []awkTok
	operand := func() bool {
		if len(toks) == 0 {
			return false
		}
		t := toks[len(toks)-1]
		switch t.kind {
		case 'n':
			return !awkKeywordsBeforeExpr[t.text]
		case '1', 's', 'r':
			return true
		case 'o':
			return t.text == ")" || t.text == "]" || t.text == "$" || t.text == "++" || t.text == "--"
		}
		return false
	}
	i, n := 0, len(s)
	for i < n {
		ch := s[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\r':
			i++
		case ch == '\\' && i+1 < n && s[i+1] == '\n':
			i += 2
		case ch == '#':
			for i < n && s[i] != '\n' {
				i++
			}
		case ch == '\n' || ch == ';':
			toks = append(toks, awkTok{';', string(ch)})
			i++
		case ch == '"':
			var b strings.Builder
			j := i + 1
			for ; j < n && s[j] != '"'; j++ {
				if s[j] == '\n' {
					return toks, false
				}
				if s[j] == '\\' && j+1 < n {
					j++
					switch s[j] {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					default:
						b.WriteByte(s[j])
					}
					continue
				}
				b.WriteByte(s[j])
			}
			if j >= n {
				return toks, false
			}
			toks = append(toks, awkTok{'s', b.String()})
			i = j + 1
		case ch == '/' && !operand():
			j := i + 1
			for j < n && s[j] != '/' {
				switch s[j] {
				case '\n':
					return toks, false
				case '\\':
					j += 2
				case '[':
					// A bracket expression may hold a slash: /[/]/.
					j++
					if j < n && s[j] == '^' {
						j++
					}
					if j < n && s[j] == ']' {
						j++
					}
					for j < n && s[j] != ']' && s[j] != '\n' {
						if s[j] == '\\' {
							j++
						}
						j++
					}
					j++
				default:
					j++
				}
			}
			if j >= n {
				return toks, false
			}
			toks = append(toks, awkTok{'r', s[i : j+1]})
			i = j + 1
		case ch >= '0' && ch <= '9' || ch == '.' && i+1 < n && s[i+1] >= '0' && s[i+1] <= '9':
			j := i
			for j < n && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == 'e' || s[j] == 'E' || s[j] == 'x' || s[j] == 'X' || s[j] >= 'a' && s[j] <= 'f' || s[j] >= 'A' && s[j] <= 'F') {
				j++
			}
			toks = append(toks, awkTok{'1', s[i:j]})
			i = j
		case ch == '_' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z':
			j := i
			for j < n && (s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9' || s[j] == ':' && j+1 < n && s[j+1] == ':') {
				if s[j] == ':' {
					j++
				}
				j++
			}
			toks = append(toks, awkTok{'n', s[i:j]})
			i = j
		default:
			op := string(ch)
			if i+1 < n {
				two := s[i : i+2]
				switch two {
				case "||", "&&", ">>", ">=", "<=", "==", "!=", "++", "--", "+=", "-=", "*=", "/=", "%=", "^=", "**", "|&", "!~":
					op = two
				}
			}
			toks = append(toks, awkTok{'o', op})
			i += len(op)
		}
	}
	return toks, true
}

// harmlessAwkFiles are the special files print may write to freely.
var harmlessAwkFiles = map[string]bool{"/dev/stdout": true, "/dev/stderr": true, "-": true, "/dev/fd/1": true, "/dev/fd/2": true, "/dev/null": true}

// scanAwk finds what an awk program writes and runs.
func scanAwk(src string) awkScan {
	var r awkScan
	toks, ok := lexAwk(src)
	if !ok {
		r.unsure = true
		return r
	}
	at := func(i int) awkTok {
		if i < 0 || i >= len(toks) {
			return awkTok{kind: ';'}
		}
		return toks[i]
	}
	terminator := func(t awkTok) bool {
		return t.kind == ';' || t.kind == 'o' && (t.text == "}" || t.text == "{")
	}
	inPrint, depth := false, 0
	for i, t := range toks {
		switch {
		case t.kind == 'n' && (t.text == "print" || t.text == "printf"):
			inPrint, depth = true, 0
		case terminator(t):
			inPrint = false
		case t.kind == 'o' && (t.text == "(" || t.text == "["):
			depth++
		case t.kind == 'o' && (t.text == ")" || t.text == "]"):
			depth--
		case t.kind == 'o' && t.text == "@":
			if next := at(i + 1); next.kind != 'n' || next.text != "namespace" {
				r.loads = true
			}
		case t.kind == 'n' && t.text == "system":
			// system("literal") is seen; anything else is built at run time.
			if at(i+1).text == "(" && at(i+2).kind == 's' && at(i+3).text == ")" {
				r.cmds = append(r.cmds, at(i+2).text)
			} else {
				r.dynCmd = true
			}
		case t.kind == 'o' && (t.text == "|" || t.text == "|&"):
			switch prev, next := at(i-1), at(i+1); {
			case next.kind == 'n' && next.text == "getline":
				// "cmd" | getline: the command is the string before.
				if before := at(i - 2); prev.kind == 's' && (terminator(before) || before.kind == 'o' && before.text == "(" || before.kind == 'n' && awkKeywordsBeforeExpr[before.text]) {
					r.cmds = append(r.cmds, prev.text)
				} else {
					r.dynCmd = true
				}
			default:
				// print … | "cmd"
				if next.kind == 's' && (terminator(at(i+2)) || at(i+2).text == ")") {
					r.cmds = append(r.cmds, next.text)
				} else {
					r.dynCmd = true
				}
			}
		case inPrint && depth <= 0 && t.kind == 'o' && (t.text == ">" || t.text == ">>"):
			next := at(i + 1)
			switch {
			case next.kind == 's' && harmlessAwkFiles[next.text]:
			case next.kind == 's' && (terminator(at(i+2)) || at(i+2).text == ")"):
				r.writes = append(r.writes, next.text)
			default:
				r.dynWrite = true
			}
		}
	}
	return r
}
