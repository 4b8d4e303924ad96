package permission

import (
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// This file is the command classifier: it parses a run_command command
// with a real shell parser and says which simple commands will run, after
// unwrapping wrappers (timeout, env, xargs, sh -c, find -exec …), and
// what about the command a word-pattern rule cannot vouch for
// (substitutions, writes, pipes into interpreters …). It decides when to
// ask; it enforces nothing. The sandbox does that.

// maxCommandBytes bounds what is parsed; longer commands always ask.
const maxCommandBytes = 64 << 10

// maxNesting bounds sh -c / eval nesting.
const maxNesting = 4

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
}

func (c *command) String() string { return wordsText(c.words) }

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
	// opaque is set when some code cannot be seen at all (a pipe into an
	// interpreter, eval of text built at run time, a command name in a
	// variable): deny rules cannot be checked against it.
	opaque bool
	// writes are redirect targets that are written; mentions are literal
	// words that may be paths. Both are joined with the directory the
	// command will be in (relative to the workspace) when known.
	writes   []string
	mentions []string
	// background is set when something runs with &.
	background bool
}

func (a *analysis) reason(format string, args ...any) {
	r := fmt.Sprintf(format, args...)
	for _, have := range a.reasons {
		if have == r {
			return
		}
	}
	a.reasons = append(a.reasons, r)
}

// analyzeCommand classifies a run_command command.
func analyzeCommand(src string) *analysis {
	a := &analysis{}
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
	cl := &classifier{a: a, cwd: "."}
	a.cmds = cl.script(src, false, 0)
	return a
}

func parseShell(src string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
}

// canonicalCommand is the command as the shell parser prints it: two
// commands with the same canonical form parse to the same tree. A command
// that does not parse is only trimmed.
func canonicalCommand(src string) string {
	f, err := parseShell(src)
	if err != nil {
		return strings.TrimSpace(src)
	}
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, f); err != nil {
		return strings.TrimSpace(src)
	}
	return strings.TrimSpace(b.String())
}

// classifier walks one script (the command line, or an sh -c / eval
// string inside it). Reasons go to the shared analysis.
type classifier struct {
	a     *analysis
	src   string
	depth int
	// cwd is where the script is, relative to the workspace ("." at the
	// start); "" once it is not known.
	cwd  string
	cmds []*command
}

// script parses and walks src; it returns the commands it runs.
func (c *classifier) script(src string, fed bool, depth int) []*command {
	if depth > maxNesting {
		c.a.reason("it nests shells too deeply to check")
		c.a.opaque = true
		return nil
	}
	f, err := parseShell(src)
	if err != nil {
		c.a.reason("Loupe could not parse it as a shell command (%v)", err)
		c.a.opaque = true
		return nil
	}
	sub := &classifier{a: c.a, src: src, depth: depth, cwd: c.cwd}
	substs := sub.scan(f)
	for _, s := range f.Stmts {
		sub.stmt(s, fed)
	}
	// Commands inside substitutions run too: deny rules must see them.
	// They cannot be allowed by word rules (scan gave a reason).
	for _, list := range substs {
		inner := &classifier{a: c.a, src: src, depth: depth, cwd: sub.cwd}
		for _, s := range list {
			inner.stmt(s, false)
		}
	}
	c.cwd = sub.cwd
	return sub.cmds
}

// scan looks through the whole tree for constructs that word rules cannot
// vouch for, wherever they are (words, here-documents, arithmetic …). It
// returns the statement lists of substitutions, which run as well.
func (c *classifier) scan(f *syntax.File) [][]*syntax.Stmt {
	var substs [][]*syntax.Stmt
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst:
			if x.Backquotes {
				c.a.reason("it uses command substitution (backticks %s)", c.snippet(x, 40))
			} else {
				c.a.reason("it uses command substitution (%s)", c.snippet(x, 40))
			}
			substs = append(substs, x.Stmts)
		case *syntax.ProcSubst:
			c.a.reason("it uses process substitution (%s)", c.snippet(x, 40))
			substs = append(substs, x.Stmts)
		case *syntax.FuncDecl:
			name := "function"
			if x.Name != nil {
				name = x.Name.Value
			}
			c.a.reason("it defines a shell function (%s)", name)
		case *syntax.CoprocClause:
			c.a.reason("it starts a coprocess")
		case *syntax.DeclClause:
			c.a.reason("it sets shell variables (%s)", c.snippet(x, 40))
		case *syntax.ArithmCmd, *syntax.LetClause:
			c.a.reason("it uses shell arithmetic (%s)", c.snippet(n, 40))
		}
		return true
	})
	return substs
}

// snippet is a node's source, shortened.
func (c *classifier) snippet(n syntax.Node, max int) string {
	s, e := int(n.Pos().Offset()), int(n.End().Offset())
	if s < 0 || e > len(c.src) || s > e {
		return "…"
	}
	out := c.src[s:e]
	if len(out) > max {
		out = out[:max] + "…"
	}
	return out
}

func (c *classifier) stmts(list []*syntax.Stmt, fed bool) {
	for _, s := range list {
		c.stmt(s, fed)
	}
}

func (c *classifier) stmt(s *syntax.Stmt, fed bool) {
	if s == nil {
		return
	}
	if s.Background {
		c.a.background = true
	}
	if s.Coprocess || s.Disown {
		c.a.reason("it uses %s", c.snippet(s, 40))
	}
	for _, r := range s.Redirs {
		if c.redirect(r) {
			fed = true
		}
	}
	c.command(s.Cmd, fed)
}

// control walks a branch or loop body: a cd inside it leaves the directory
// unknown afterwards.
func (c *classifier) control(walk func()) {
	before := c.cwd
	walk()
	if c.cwd != before {
		c.a.reason("it changes directory inside a condition or loop")
		c.cwd = ""
	}
}

func (c *classifier) command(cmd syntax.Command, fed bool) {
	switch x := cmd.(type) {
	case nil:
		// Only redirections (`> f`): handled by stmt.
	case *syntax.CallExpr:
		c.call(x, fed)
	case *syntax.BinaryCmd:
		switch x.Op {
		case syntax.Pipe, syntax.PipeAll:
			// Each side of a pipe runs in a subshell.
			before := c.cwd
			c.stmt(x.X, fed)
			c.cwd = before
			c.stmt(x.Y, true)
			c.cwd = before
		default: // && and ||: one after the other
			c.stmt(x.X, fed)
			c.stmt(x.Y, fed)
		}
	case *syntax.Subshell:
		before := c.cwd
		c.stmts(x.Stmts, fed)
		c.cwd = before
	case *syntax.Block:
		c.stmts(x.Stmts, fed)
	case *syntax.IfClause:
		c.control(func() {
			for ic := x; ic != nil; ic = ic.Else {
				c.stmts(ic.Cond, fed)
				c.stmts(ic.Then, fed)
			}
		})
	case *syntax.WhileClause:
		c.control(func() { c.stmts(x.Cond, fed); c.stmts(x.Do, fed) })
	case *syntax.ForClause:
		c.control(func() { c.stmts(x.Do, fed) })
	case *syntax.CaseClause:
		c.control(func() {
			for _, it := range x.Items {
				c.stmts(it.Stmts, fed)
			}
		})
	case *syntax.TimeClause:
		c.stmt(x.Stmt, fed)
	case *syntax.FuncDecl:
		// scan gave the reason; the body's commands still count for deny.
		before := c.cwd
		c.stmt(x.Body, false)
		c.cwd = before
	case *syntax.CoprocClause:
		c.stmt(x.Stmt, false)
	case *syntax.TestClause, *syntax.ArithmCmd, *syntax.LetClause, *syntax.DeclClause:
		// No command runs (substitutions inside were found by scan);
		// arithmetic and declarations have their reason from scan.
	default:
		c.a.reason("it uses shell syntax Loupe does not check (%s)", c.snippet(cmd, 40))
		c.a.opaque = true
	}
}

// redirect notes writes; it reports whether the redirection feeds stdin.
func (c *classifier) redirect(r *syntax.Redirect) bool {
	fd := ""
	if r.N != nil {
		fd = r.N.Value
	}
	switch r.Op {
	case syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc, syntax.DplIn:
		return fd == "" || fd == "0"
	case syntax.DplOut:
		w := c.word(r.Word)
		if w.kind == wLit && (w.text == "-" || isDigits(w.text)) {
			return false // 2>&1, >&-: duplicating, not writing a file
		}
		c.write(r, w)
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll,
		syntax.RdrAllClob, syntax.AppAllClob, syntax.RdrInOut:
		c.write(r, c.word(r.Word))
	default:
		c.a.reason("it uses a redirection Loupe does not check (%s)", r.Op)
	}
	return false
}

// harmlessTargets may be written without asking.
var harmlessTargets = map[string]bool{"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true}

func (c *classifier) write(r *syntax.Redirect, w word) {
	switch {
	case w.kind == wLit && harmlessTargets[w.text]:
		return
	case w.kind == wDyn:
		c.a.reason("it writes to a file whose name is only known when it runs (%s %s)", r.Op, w.text)
		return
	}
	c.a.reason("it writes to a file (%s %s)", r.Op, w.text)
	if p, ok := c.join(w.text); ok {
		c.a.writes = append(c.a.writes, p)
	}
}

// join places a path word in the directory the script is in.
func (c *classifier) join(p string) (string, bool) {
	if p == "" {
		return "", false
	}
	if path.IsAbs(p) {
		return path.Clean(p), true
	}
	if c.cwd == "" {
		return "", false
	}
	return path.Join(c.cwd, p), true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func (c *classifier) call(x *syntax.CallExpr, fed bool) {
	var words []word
	for _, as := range x.Assigns {
		words = append(words, c.assign(as))
	}
	if len(x.Args) == 0 {
		names := make([]string, len(words))
		for i, w := range words {
			names[i] = w.text
		}
		c.a.reason("it sets shell variables (%s)", strings.Join(names, " "))
		return
	}
	for _, w := range x.Args {
		words = append(words, c.word(w))
	}
	c.cmds = append(c.cmds, c.build(words, fed))
}

func (c *classifier) assign(as *syntax.Assign) word {
	if as.Name == nil || as.Naked || as.Index != nil || as.Array != nil {
		return word{text: c.snippet(as, 60), kind: wDyn, assign: true}
	}
	op := "="
	if as.Append {
		op = "+="
	}
	w := word{text: as.Name.Value + op, assign: true}
	if as.Value != nil {
		v := c.word(as.Value)
		w.kind = v.kind
		if v.kind == wDyn {
			w.text = c.snippet(as, 60)
		} else {
			w.text += v.text
		}
	}
	return w
}

// word turns a parsed word into what the shell will pass, as far as that
// is known before it runs.
func (c *classifier) word(w *syntax.Word) word {
	if w == nil {
		return word{kind: wDyn}
	}
	var b strings.Builder
	kind := wLit
	for i, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			s, glob := unescapeLit(x.Value, i == 0)
			b.WriteString(s)
			if glob {
				kind = max(kind, wGlob)
			}
		case *syntax.SglQuoted:
			if x.Dollar {
				kind = wDyn
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			if x.Dollar {
				kind = wDyn
			}
			for _, dp := range x.Parts {
				if l, ok := dp.(*syntax.Lit); ok {
					b.WriteString(unescapeDbl(l.Value))
				} else {
					kind = wDyn
				}
			}
		case *syntax.ExtGlob:
			kind = max(kind, wGlob)
			b.WriteString(c.snippet(x, 200))
		default:
			kind = wDyn
		}
	}
	if kind == wDyn {
		return word{text: c.snippet(w, 60), kind: wDyn}
	}
	return word{text: b.String(), kind: kind}
}

// unescapeLit removes the backslashes of an unquoted literal and reports
// whether the shell would expand it (glob, braces, tilde).
func unescapeLit(s string, first bool) (string, bool) {
	var b strings.Builder
	glob := false
	braceOpen := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
			continue
		case ch == '*' || ch == '?' || ch == '[':
			glob = true
		case ch == '{':
			braceOpen = true
		case ch == '}' && braceOpen:
			inner := b.String()
			if j := strings.LastIndexByte(inner, '{'); j >= 0 && (strings.Contains(inner[j:], ",") || strings.Contains(inner[j:], "..")) {
				glob = true
			}
		case ch == '~' && i == 0 && first:
			glob = true
		}
		b.WriteByte(ch)
	}
	return b.String(), glob
}

// unescapeDbl removes the backslashes that are special inside double
// quotes.
func unescapeDbl(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Commands that run another command.
var (
	// shells whose -c script Loupe parses.
	shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true, "rbash": true}
	// otherShells run scripts in languages Loupe does not parse.
	otherShells = map[string]bool{"fish": true, "csh": true, "tcsh": true, "pwsh": true, "powershell": true, "nu": true, "elvish": true, "xonsh": true}
	// asUser run a command as another user.
	asUser = map[string]bool{"sudo": true, "doas": true, "su": true, "pkexec": true, "runuser": true, "sg": true, "newgrp": true}
	// runners run a command in a way Loupe does not unwrap.
	runners = map[string]bool{
		"watch": true, "flock": true, "chroot": true, "chrt": true, "taskset": true, "strace": true,
		"ltrace": true, "script": true, "unbuffer": true, "parallel": true, "ssh": true, "systemd-run": true,
		"fakeroot": true, "proot": true, "busybox": true, "gdb": true, "valgrind": true, "nsenter": true,
		"unshare": true, "firejail": true, "bwrap": true, "at": true, "batch": true, "prlimit": true,
		"cgexec": true, "numactl": true, "catchsegv": true, "rlwrap": true, "expect": true, "dbus-run-session": true,
	}
	// noRule builtins do nothing a rule needs to vouch for.
	noRule = map[string]bool{"true": true, "false": true, ":": true, "pwd": true}
)

// isInterpreter reports whether name runs programs it is given; those
// read their program from stdin when given no script.
func isInterpreter(name string) bool {
	for _, p := range []string{"python", "pypy", "perl", "ruby", "php", "lua", "luajit", "node", "nodejs", "deno", "bun", "Rscript", "tclsh", "wish", "osascript", "irb", "jshell", "guile", "racket", "julia", "ghci", "runghc", "scala", "groovy", "kotlin", "R"} {
		if name == p || strings.HasPrefix(name, p) && strings.Trim(name[len(p):], "0123456789.-") == "" {
			return true
		}
	}
	return false
}

// build makes a command of words and unwraps what it runs.
func (c *classifier) build(words []word, fed bool) *command {
	cmd := &command{words: words, self: words}
	c.a.all = append(c.a.all, cmd)
	c.mention(words)
	i := 0
	for i < len(words) && words[i].assign {
		i++
	}
	if i == len(words) {
		return cmd
	}
	env, name, args := words[:i], words[i], words[i+1:]
	if name.kind != wLit {
		c.a.reason("the command name is only known when it runs (%s)", name.text)
		c.a.opaque = true
		return cmd
	}
	base := path.Base(name.text)
	inner := func(rest []word) {
		if len(rest) == 0 {
			return
		}
		in := append(append([]word{}, env...), rest...)
		cmd.self = nil
		cmd.inner = []*command{c.build(in, fed)}
	}
	opaque := func(format string, args ...any) {
		c.a.reason(format, args...)
		c.a.opaque = true
	}
	switch {
	case base == "cd" || base == "pushd" || base == "popd":
		c.cd(base, args)
		cmd.noRule = len(env) == 0
	case noRule[base]:
		cmd.noRule = len(env) == 0
	case base == "timeout":
		if rest, ok := skipOptions(args, "skv", "sk", []string{"--foreground", "--preserve-status", "--verbose"}, []string{"--signal", "--kill-after"}); !ok {
			opaque("it runs a command through timeout with options Loupe does not know (%s)", wordsText(words))
		} else if len(rest) > 0 {
			inner(rest[1:]) // rest[0] is the duration
		}
	case base == "nice":
		rest, ok := niceArgs(args)
		if !ok {
			opaque("it runs a command through nice with options Loupe does not know (%s)", wordsText(words))
		} else {
			inner(rest)
		}
	case base == "nohup":
		if len(args) > 0 && args[0].kind == wLit && args[0].text == "--" {
			args = args[1:]
		}
		inner(args)
	case base == "setsid":
		if rest, ok := skipOptions(args, "cfw", "", []string{"--ctty", "--fork", "--wait"}, nil); ok {
			inner(rest)
		} else {
			opaque("it runs a command through setsid with options Loupe does not know (%s)", wordsText(words))
		}
	case base == "stdbuf":
		if rest, ok := skipOptions(args, "ioe", "ioe", nil, []string{"--input", "--output", "--error"}); ok {
			inner(rest)
		} else {
			opaque("it runs a command through stdbuf with options Loupe does not know (%s)", wordsText(words))
		}
	case base == "ionice":
		if rest, ok := skipOptions(args, "cnt", "cn", []string{"--ignore"}, []string{"--class", "--classdata"}); ok {
			inner(rest)
		} else {
			// -p/-P/-u change other processes: no command of its own.
			cmd.self = words
		}
	case base == "time":
		rest, ok := skipOptions(args, "pvaqfo", "fo", []string{"--portability", "--verbose", "--append", "--quiet"}, []string{"--format", "--output"})
		if !ok {
			opaque("it runs a command through time with options Loupe does not know (%s)", wordsText(words))
			break
		}
		if hasOption(args[:len(args)-len(rest)], "-o", "--output") {
			c.a.reason("it writes to a file (time -o)")
		}
		inner(rest)
	case base == "exec":
		if rest, ok := skipOptions(args, "cla", "a", nil, nil); ok {
			inner(rest)
		} else {
			opaque("it runs a command through exec with options Loupe does not know (%s)", wordsText(words))
		}
	case base == "command":
		rest, ok := skipOptions(args, "pvV", "", nil, nil)
		switch {
		case !ok:
			opaque("it runs a command through command with options Loupe does not know (%s)", wordsText(words))
		case hasOption(args[:len(args)-len(rest)], "-v", "-V"):
			cmd.noRule = len(env) == 0 // only looks a name up
		default:
			inner(rest)
		}
	case base == "builtin":
		inner(args)
	case base == "env":
		c.env(cmd, env, args, fed)
	case base == "xargs":
		c.xargs(cmd, env, args, fed)
	case base == "find":
		c.find(cmd, words)
	case base == "eval":
		texts := make([]string, len(args))
		for j, w := range args {
			if w.kind == wDyn {
				opaque("it runs text built at run time (eval %s)", w.text)
				return cmd
			}
			texts[j] = w.text
		}
		cmd.self = nil
		cmd.inner = c.nested(strings.Join(texts, " "), fed)
	case shells[base]:
		c.shell(cmd, base, args, fed)
	case otherShells[base]:
		if fed || len(args) > 0 {
			opaque("it runs a %s script, which Loupe cannot check", base)
		}
	case asUser[base]:
		opaque("it runs a command as another user (%s)", base)
	case runners[base]:
		opaque("it runs another command through %s, which Loupe cannot check", base)
	case base == "git":
		c.git(args)
	case isInterpreter(base):
		if fed && readsProgramFromStdin(args) {
			opaque("it pipes into an interpreter (%s)", base)
		}
	}
	return cmd
}

// nested walks an sh -c or eval script.
func (c *classifier) nested(src string, fed bool) []*command {
	sub := &classifier{a: c.a, src: c.src, depth: c.depth, cwd: c.cwd}
	cmds := sub.script(src, fed, c.depth+1)
	c.cwd = sub.cwd
	return cmds
}

// skipOptions skips a wrapper's options before its command. flags are the
// short options it knows; withArg those of them that take a value (the
// next word, or attached). long are long options without a value,
// longArg with one (--x=v or --x v). It stops at "--" or the first
// non-option. ok is false for an unknown option or one whose text is not
// known before running.
func skipOptions(args []word, flags, withArg string, long, longArg []string) (rest []word, ok bool) {
	for i := 0; i < len(args); i++ {
		w := args[i]
		if w.kind != wLit {
			if w.kind == wGlob && !strings.HasPrefix(w.text, "-") {
				return args[i:], true
			}
			return nil, false
		}
		t := w.text
		switch {
		case t == "--":
			return args[i+1:], true
		case !strings.HasPrefix(t, "-") || t == "-":
			return args[i:], true
		case strings.HasPrefix(t, "--"):
			name, _, hasVal := strings.Cut(t, "=")
			switch {
			case contains(long, name) && !hasVal:
			case contains(longArg, name) && hasVal:
			case contains(longArg, name):
				i++
			default:
				return nil, false
			}
		default:
			for j := 1; j < len(t); j++ {
				f := t[j]
				if strings.IndexByte(flags, f) < 0 {
					return nil, false
				}
				if strings.IndexByte(withArg, f) >= 0 {
					if j == len(t)-1 {
						i++ // value is the next word
					}
					break
				}
			}
		}
	}
	return nil, true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func hasOption(args []word, names ...string) bool {
	for _, w := range args {
		for _, n := range names {
			if w.text == n || strings.HasPrefix(w.text, n+"=") || len(n) == 2 && strings.HasPrefix(w.text, n) {
				return true
			}
		}
	}
	return false
}

// niceArgs skips nice's options: -n N, -nN, -N, --adjustment=N.
func niceArgs(args []word) ([]word, bool) {
	for i := 0; i < len(args); i++ {
		w := args[i]
		if w.kind != wLit {
			return nil, false
		}
		t := w.text
		switch {
		case t == "--":
			return args[i+1:], true
		case t == "-n" || t == "--adjustment":
			i++
		case strings.HasPrefix(t, "-n") || strings.HasPrefix(t, "--adjustment="):
		case strings.HasPrefix(t, "-") && isDigits(strings.TrimPrefix(strings.TrimPrefix(t, "-"), "-")):
		case strings.HasPrefix(t, "-") && t != "-":
			return nil, false
		default:
			return args[i:], true
		}
	}
	return nil, true
}

// cd follows the directory the script is in, so that later path words are
// placed right.
func (c *classifier) cd(name string, args []word) {
	for len(args) > 0 && args[0].kind == wLit && (args[0].text == "-P" || args[0].text == "-L" || args[0].text == "-e" || args[0].text == "--") {
		args = args[1:]
	}
	if name == "popd" || len(args) != 1 || args[0].kind != wLit || args[0].text == "-" {
		c.a.reason("it changes to a directory that is not known before it runs (%s)", strings.TrimSpace(name+" "+wordsText(args)))
		c.cwd = ""
		return
	}
	p, ok := c.join(args[0].text)
	if !ok || path.IsAbs(p) || p == ".." || strings.HasPrefix(p, "../") {
		c.a.reason("it changes to a directory outside the workspace (%s %s)", name, args[0].text)
		c.cwd = ""
		return
	}
	c.cwd = p
}

// env unwraps env [-i] [-u NAME] [-C DIR] [-S STRING] [NAME=VALUE]… CMD.
func (c *classifier) env(cmd *command, env, args []word, fed bool) {
options:
	for len(args) > 0 {
		w := args[0]
		if w.kind == wDyn {
			c.a.reason("it runs a command through env with arguments only known when it runs (%s)", w.text)
			c.a.opaque = true
			return
		}
		t := w.text
		switch {
		case t == "--":
			args = args[1:]
			break options
		case t == "-i" || t == "--ignore-environment" || t == "-0" || t == "--null" || t == "-v" || t == "--debug":
			args = args[1:]
		case t == "-u" || t == "--unset":
			if len(args) < 2 {
				return
			}
			args = args[2:]
		case strings.HasPrefix(t, "--unset=") || strings.HasPrefix(t, "-u") && len(t) > 2:
			args = args[1:]
		case t == "-C" || t == "--chdir" || strings.HasPrefix(t, "--chdir=") || strings.HasPrefix(t, "-C"):
			c.a.reason("it changes directory (%s)", wordsText(args[:1]))
			c.a.opaque = true
			return
		case t == "-S" || t == "--split-string" || strings.HasPrefix(t, "--split-string=") || strings.HasPrefix(t, "-S"):
			c.a.reason("it runs a command that env splits from a string (%s)", t)
			c.a.opaque = true
			return
		case strings.HasPrefix(t, "-") && t != "-":
			c.a.reason("it runs a command through env with options Loupe does not know (%s)", t)
			c.a.opaque = true
			return
		default:
			break options
		}
	}
	for len(args) > 0 && isAssignWord(args[0]) {
		a := args[0]
		a.assign = true
		env = append(env, a)
		args = args[1:]
	}
	if len(args) == 0 {
		return // env alone prints the environment: the command itself
	}
	in := append(append([]word{}, env...), args...)
	cmd.self = nil
	cmd.inner = []*command{c.build(in, fed)}
}

func isAssignWord(w word) bool {
	name, _, ok := strings.Cut(w.text, "=")
	if !ok || name == "" {
		return false
	}
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// xargs unwraps xargs [options] [CMD [ARGS]]: CMD runs with arguments
// read from stdin, which are not known before it runs.
func (c *classifier) xargs(cmd *command, env, args []word, fed bool) {
	rest, ok := skipOptions(args, "0aEeIiLlnoprsPtxd", "aEILnsPd",
		[]string{"--null", "--interactive", "--no-run-if-empty", "--open-tty", "--verbose", "--exit", "--show-limits"},
		[]string{"--arg-file", "--delimiter", "--eof", "--replace", "--max-lines", "--max-args", "--max-chars", "--max-procs", "--process-slot-var"})
	if !ok {
		c.a.reason("it runs a command through xargs with options Loupe does not know (%s)", wordsText(args))
		c.a.opaque = true
		return
	}
	if len(rest) == 0 {
		rest = []word{{text: "echo"}}
	}
	in := append(append(append([]word{}, env...), rest...), word{text: "<arguments from input>", kind: wDyn})
	cmd.self = nil
	cmd.inner = []*command{c.build(in, false)}
}

// find checks find's own words and each -exec/-execdir/-ok/-okdir command;
// "{}" (a found path) is not known before it runs.
func (c *classifier) find(cmd *command, words []word) {
	var self []word
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w.kind == wLit && (w.text == "-exec" || w.text == "-execdir" || w.text == "-ok" || w.text == "-okdir") {
			var in []word
			j := i + 1
			for ; j < len(words); j++ {
				t := words[j]
				if t.kind == wLit && (t.text == ";" || t.text == "+") {
					break
				}
				if strings.Contains(t.text, "{}") {
					t = word{text: t.text, kind: wDyn}
				}
				in = append(in, t)
			}
			if j == len(words) || len(in) == 0 {
				c.a.reason("it runs a command through find %s that Loupe cannot read", w.text)
				c.a.opaque = true
				return
			}
			cmd.inner = append(cmd.inner, c.build(in, false))
			i = j
			continue
		}
		self = append(self, w)
	}
	cmd.self = self
}

// shell unwraps sh -c SCRIPT; a shell with no script reads its program
// from its input.
func (c *classifier) shell(cmd *command, name string, args []word, fed bool) {
	script, stdin := false, false
	i := 0
loop:
	for ; i < len(args); i++ {
		w := args[i]
		if w.kind != wLit {
			if w.kind == wDyn && strings.HasPrefix(w.text, "-") || w.kind == wDyn && i == 0 {
				c.a.reason("it runs a %s whose options are only known when it runs", name)
				c.a.opaque = true
				return
			}
			break
		}
		t := w.text
		switch {
		case t == "--" || t == "-":
			i++
			break loop
		case t == "-o" || t == "+o" || t == "-O" || t == "+O" || t == "--rcfile" || t == "--init-file":
			i++
		case strings.HasPrefix(t, "--"):
		case (strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+")) && len(t) > 1:
			if strings.ContainsRune(t[1:], 'c') {
				script = true
			}
			if strings.ContainsRune(t[1:], 's') {
				stdin = true
			}
		default:
			break loop
		}
	}
	switch {
	case script:
		if i >= len(args) {
			return // sh -c with nothing: fails
		}
		if args[i].kind == wDyn {
			c.a.reason("it runs a %s script built at run time (%s -c %s)", name, name, args[i].text)
			c.a.opaque = true
			return
		}
		cmd.self = nil
		cmd.inner = c.nested(args[i].text, fed)
	case i < len(args) && !stdin:
		// A script file: the command itself, as written, needs a rule.
	case fed:
		c.a.reason("it pipes into an interpreter (%s)", name)
		c.a.opaque = true
	}
}

// readsProgramFromStdin reports whether an interpreter given these
// arguments reads its program from stdin: only options, or "-".
func readsProgramFromStdin(args []word) bool {
	for _, w := range args {
		if w.kind == wDyn {
			return true
		}
		if w.text == "-" {
			return true
		}
		if !strings.HasPrefix(w.text, "-") {
			return false
		}
	}
	return true
}

// git flags global options that change what git runs.
func (c *classifier) git(args []word) {
	for i := 0; i < len(args); i++ {
		w := args[i]
		if w.kind == wDyn {
			c.a.reason("it runs git with options only known when it runs (%s)", w.text)
			c.a.opaque = true
			return
		}
		t := w.text
		switch {
		case t == "-c" || strings.HasPrefix(t, "--config-env"):
			c.a.reason("it sets git configuration on the command line (git %s), which can run programs", t)
			c.a.opaque = true
			return
		case strings.HasPrefix(t, "--exec-path="), strings.HasPrefix(t, "--git-dir"), strings.HasPrefix(t, "--work-tree"), strings.HasPrefix(t, "--namespace"):
			c.a.reason("it points git somewhere else (git %s)", t)
			return
		case t == "-C":
			i++
		case strings.HasPrefix(t, "-"):
		case t == "config":
			c.gitConfig(args[i+1:])
			return
		default:
			return // the subcommand
		}
	}
}

// gitConfig: git config that sets something writes .git/config (which is
// protected) or the user's own git configuration.
func (c *classifier) gitConfig(args []word) {
	reading := false
	for _, w := range args {
		switch w.text {
		case "--global", "--system", "--file", "-f", "--blob":
			c.a.reason("it changes git configuration outside the workspace (git config %s)", w.text)
			c.a.opaque = true
			return
		case "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "get", "list", "--show-origin", "--show-scope":
			reading = true
		}
	}
	if !reading && len(args) != 1 { // "git config NAME" reads NAME
		c.a.writes = append(c.a.writes, ".git/config")
		c.a.reason("it changes git configuration (git config)")
	}
}

// mention records the words of a command that may be paths, placed in the
// directory the command runs in, for protected-path and deny checks.
func (c *classifier) mention(words []word) {
	for _, w := range words {
		if w.kind == wDyn || w.text == "" {
			continue
		}
		cands := []string{w.text}
		if _, v, ok := strings.Cut(w.text, "="); ok && v != "" {
			cands = append(cands, v)
		}
		for _, p := range cands {
			if j, ok := c.join(p); ok {
				c.a.mentions = append(c.a.mentions, j)
			}
		}
	}
}
