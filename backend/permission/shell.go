package permission

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/loupe-dev/loupe/backend/cmdshell"
)

// The shell*.go files make up the command classifier. It parses a
// run_command command with a real shell parser and says which simple
// commands will run, after unwrapping wrappers (timeout, env, xargs,
// sh -c, find -exec …), and what about the command a word-pattern rule
// cannot vouch for (substitutions, writes, pipes into interpreters …). It
// decides when to ask; it enforces nothing. The sandbox does that.
//
// This file holds what the classifier finds (words, commands, the
// analysis) and its entry points; shell_walk.go walks the parsed script,
// shell_words.go reads words, shell_build.go and shell_wrappers.go unwrap
// wrappers.

// maxCommandBytes bounds what is parsed; longer commands always ask.
const maxCommandBytes = 64 << 10

// maxNesting bounds sh -c / eval nesting.
const maxNesting = 4

// maxCommands bounds how many commands one analysis builds (wrappers of
// wrappers, runners' candidates, expansions); beyond it the command asks.
const maxCommands = 2000

// wordKind says how much of a word is known before the shell runs.
type wordKind uint8

const (
	// wLit is fully literal: the shell passes exactly text.
	wLit wordKind = iota
	// wGlob is literal text the shell may expand into other words:
	// unquoted *, ?, [ ], {a,b}, a leading ~.
	wGlob
	// wDyn depends on variables or substitutions: unknown until it runs.
	// text holds its source.
	wDyn
)

type word struct {
	text   string
	kind   wordKind
	assign bool // NAME=value before the command name
}

// command is one simple command the shell will run.
type command struct {
	// words as written (for wrappers' inner commands: the inner words,
	// with the wrapper's environment assignments in front).
	words []word
	// self is what an allow rule must match for this command itself; nil
	// for a wrapper whose only effect is to run inner.
	self []word
	// inner are the commands it runs (a wrapper's command, an sh -c
	// script, find -exec).
	inner []*command
	// noRule marks builtins that need no rule: cd into the workspace,
	// true, false, :, pwd, command -v.
	noRule bool
	// reading names the other dialect when the command is found only in
	// its reading of the text (sh's, when bash runs it): "" for the
	// reading of the shell that runs it.
	reading string
	// writers are words of self that make a command which otherwise only
	// reads write a file or run another program (sort -o, sed -i,
	// git log --output, rg --pre …). An allow rule allows the command
	// only if its word at that place spells the option out.
	writers []writer
}

// writer is one word that makes a command write or run something.
type writer struct {
	at int // index in command.self
	// key is what the allow rule's word must contain, apart from its
	// stars: the option ("-o", "--output"), or the whole word (a sed
	// script, the file tee writes).
	key string
	// what says it for the approval card: "writes to a file (sort -o)".
	what string
}

func (c *command) String() string { return wordsText(c.words) }

// ran says it runs c, naming the reading it is in when that is not the
// running shell's.
func (c *command) ran() string {
	if c.reading != "" {
		return fmt.Sprintf("it runs %s (as %s reads the command)", c, c.reading)
	}
	return fmt.Sprintf("it runs %s", c)
}

func wordsText(ws []word) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = w.text
		if w.kind == wLit && w.text != "" && needsQuote(w.text) {
			if q, err := syntax.Quote(w.text, syntax.LangBash); err == nil {
				parts[i] = q
			}
		} else if w.kind == wLit && w.text == "" {
			parts[i] = "''"
		}
	}
	return strings.Join(parts, " ")
}

func needsQuote(s string) bool {
	return strings.ContainsAny(s, " \t\n'\"\\$`;&|<>(){}*?[]~#")
}

// analysis is what the classifier found in one command.
type analysis struct {
	// cmds are the commands of the command line itself, in order
	// (wrappers' inner commands hang below them).
	cmds []*command
	// all is every command found anywhere, inner and substituted ones
	// included: what deny and ask rules are checked against.
	all []*command
	// reasons are what no word rule can vouch for; only a rule for the
	// exact command line clears them.
	reasons []string
	// later is set when bash would run, after reading the line, text the
	// parser saw as data (laterCode): an allow rule for the words seen
	// does not vouch for it, only a rule for the exact line. It holds
	// what, for the question.
	later []string
	// opaque is set when some code cannot be seen at all (a pipe into an
	// interpreter, eval of text built at run time, a command name in a
	// variable, inline interpreter code, a script file, make): deny rules
	// cannot be checked against it.
	opaque bool
	// unseen names what Loupe cannot see into, for the reason given when
	// deny rules cannot be checked: "python3 -c (inline code)", "make (the
	// Makefile's commands)". Unlike reasons, these do not stop allow rules
	// by themselves.
	unseen []string
	// aliases and funcs are defined in the command itself; files are
	// what the command writes to a file before it may run it as a script
	// (path → text). They let deny rules see through them.
	aliases   map[string]string
	funcs     map[string]funcDef
	files     map[string]string
	expanding map[string]bool // aliases and functions being expanded
	// writes are redirect targets that are written; mentions are literal
	// words that may be paths. Both are joined with the directory the
	// command will be in (relative to the workspace) when known.
	writes   []string
	mentions []string
	// background is set when something runs with &.
	background bool
	// parsed counts the bytes parsed so far (nested scripts, the other
	// dialect's reading); budget bounds it, in proportion to the
	// command's length, so that the cost stays linear in it.
	parsed, budget int
	// evalSteps counts the parts of expressions evaluatedCode read, which
	// stays in proportion to the command's length too.
	evalSteps int
	// tainted are the variables a script read so far may leave holding
	// a value the walk does not know (all of them with taintAll): a
	// script it then starts may begin with them.
	tainted  map[string]bool
	taintAll bool
	// plain caches plainTail, by the last word of a slice.
	plain map[*word]int
}

// parseBudget is how many bytes an analysis of src may parse in all: a
// few readings of each part of it, however it nests.
func parseBudget(src string) int { return 16*len(src) + 4096 }

func (a *analysis) reason(format string, args ...any) {
	r := fmt.Sprintf(format, args...)
	for _, have := range a.reasons {
		if have == r {
			return
		}
	}
	a.reasons = append(a.reasons, r)
}

// unseenPart notes something whose commands Loupe cannot see.
func (a *analysis) unseenPart(format string, args ...any) {
	a.opaque = true
	u := fmt.Sprintf(format, args...)
	for _, have := range a.unseen {
		if have == u {
			return
		}
	}
	a.unseen = append(a.unseen, u)
}

// funcDef is a shell function defined in the command, with the source
// its body was parsed from (for snippets).
type funcDef struct {
	body *syntax.Stmt
	src  string
}

// analyzeCommand classifies a run_command command, read in the language
// of the shell commands run in.
func analyzeCommand(src string) *analysis { return analyzeCommandIn(src, cmdshell.Commands()) }

// newAnalysis is an empty analysis.
func newAnalysis() *analysis {
	return &analysis{aliases: map[string]string{}, funcs: map[string]funcDef{}, files: map[string]string{}, expanding: map[string]bool{}}
}

// analyzeCommandIn classifies src as sh runs it.
func analyzeCommandIn(src string, sh cmdshell.Shell) *analysis {
	a := newAnalysis()
	a.budget = parseBudget(src)
	if len(src) > maxCommandBytes {
		a.reason("it is too long to check (%d bytes)", len(src))
		a.opaque = true
		return a
	}
	if strings.TrimSpace(src) == "" {
		return a
	}
	if i := strings.IndexFunc(src, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f }); i >= 0 {
		// Parsers and shells may disagree about control characters (the
		// parser splits words at \r; sh does not), so never trust it.
		a.reason("it contains control characters (%q)", src[i:i+1])
		a.opaque = true
	}
	cl := &classifier{a: a, cwd: ".", dialect: sh.Dialect, known: sh.Known}
	a.cmds = cl.script(src, 0)
	return a
}

// parseShell parses src in dialect d.
func parseShell(src string, d cmdshell.Dialect) (*syntax.File, error) {
	lang := syntax.LangBash
	if d == cmdshell.POSIX {
		lang = syntax.LangPOSIX
	}
	return syntax.NewParser(syntax.Variant(lang)).Parse(strings.NewReader(src), "")
}

// parseRule parses a rule's command pattern or line. Rules are written in
// bash, a superset of what the other dialect accepts.
func parseRule(src string) (*syntax.File, error) { return parseShell(src, cmdshell.Bash) }

// exactLine is a command line as an allow line compares it: the text
// itself, with only spaces, tabs and newlines at either end dropped (the
// characters a card or a settings file adds or loses without changing
// what bash reads). A carriage return, vertical tab or form feed is kept:
// bash reads each as part of a word.
func exactLine(src string) string { return strings.Trim(src, " \t\n") }

// canonicalCommand is the command as the shell parser prints it: two
// commands with the same canonical form parse to the same tree. A command
// that does not parse is only trimmed.
func canonicalCommand(src string) string {
	f, err := parseRule(src)
	if err != nil {
		return strings.TrimSpace(src)
	}
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, f); err != nil {
		return strings.TrimSpace(src)
	}
	return strings.TrimSpace(b.String())
}
