package permission

import (
	"path"
	"reflect"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/loupe-dev/loupe/backend/cmdshell"
)

// This file walks a parsed script: statements, control flow, pipes,
// redirections and the directory the script is in.

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
	// args are $1 … when hasArgs is set (in a function called in the
	// command, an sh -c script given arguments); otherwise unknown.
	args    []word
	hasArgs bool
	// mentioned tells the next build that its words' paths are noted
	// already (buildInner).
	mentioned bool
	// dialect is the language of the shell that runs the script; known
	// says that shell is sure to read it (bash named as bash), so what
	// the other dialect reads differently does not run.
	dialect cmdshell.Dialect
	known   bool
}

// shellDialect is the language a shell of this name reads. Only bash is
// sure to be bash: sh is whichever shell the system links there, and the
// others (dash, ash, ksh, zsh …) read sh's language with extensions of
// their own, so both readings count for them.
func shellDialect(name string) (cmdshell.Dialect, bool) {
	if name == "bash" || name == "rbash" {
		return cmdshell.Bash, true
	}
	return cmdshell.POSIX, false
}

// script parses and walks src; it returns the commands it runs.
func (c *classifier) script(src string, depth int) []*command {
	if depth > maxNesting {
		c.a.reason("it nests shells too deeply to check")
		c.a.opaque = true
		return nil
	}
	if !c.a.spend(len(src)) {
		return nil
	}
	f, err := parseShell(src, c.dialect)
	if err != nil {
		c.a.reason("Loupe could not parse it as a %s command (%v)", c.dialect, err)
		c.a.opaque = true
		c.otherReading(src, nil, depth)
		return nil
	}
	laterCode(c.a, f, src)
	before := c.cwd
	cmds := c.walk(f, src, depth)
	after := c.cwd
	c.cwd = before
	c.otherReading(src, f, depth)
	c.cwd = after
	return cmds
}

// walk walks the parsed script f (of source src) into the analysis.
func (c *classifier) walk(f *syntax.File, src string, depth int) []*command {
	sub := &classifier{a: c.a, src: src, depth: depth, cwd: c.cwd, args: c.args, hasArgs: c.hasArgs, dialect: c.dialect, known: c.known}
	substs := sub.scan(f)
	for _, s := range f.Stmts {
		sub.stmt(s)
	}
	// Commands inside substitutions run too: deny rules must see them.
	// They cannot be allowed by word rules (scan gave a reason).
	for _, list := range substs {
		inner := &classifier{a: c.a, src: src, depth: depth, cwd: sub.cwd, args: c.args, hasArgs: c.hasArgs, dialect: c.dialect, known: c.known}
		for _, s := range list {
			inner.stmt(s)
		}
	}
	c.cwd = sub.cwd
	return sub.cmds
}

// otherReading reads src in the other dialect too (f is this dialect's
// tree; nil when it did not parse). Where the two read it differently,
// the commands only the other reading finds count for deny and ask rules,
// marked with its name: a text that is one echo to bash and three commands
// to sh is refused by a deny rule on any of them. Where the shell that
// runs src is not known to read this dialect, the difference itself is
// code Loupe cannot see, and asks.
func (c *classifier) otherReading(src string, f *syntax.File, depth int) {
	alt := c.dialect.Other()
	if !c.a.spend(len(src)) {
		return
	}
	g, err := parseShell(src, alt)
	if err != nil || f != nil && sameShape(f, g) {
		return // the other shell would refuse it, or reads it the same
	}
	// The other reading is walked apart, so that its reasons do not stand
	// for what runs; its parsing counts against the same budget.
	scratch := newAnalysis()
	scratch.plain = c.a.plain
	scratch.parsed, scratch.budget = c.a.parsed, c.a.budget
	for k, v := range c.a.aliases {
		scratch.aliases[k] = v
	}
	for k, v := range c.a.funcs {
		scratch.funcs[k] = v
	}
	for k, v := range c.a.files {
		scratch.files[k] = v
	}
	for k, v := range c.a.expanding {
		scratch.expanding[k] = v
	}
	other := &classifier{a: scratch, src: src, depth: depth, cwd: c.cwd, args: c.args, hasArgs: c.hasArgs, dialect: alt, known: c.known}
	other.walk(g, src, depth)
	c.a.parsed = scratch.parsed
	if scratch.budget > 0 && scratch.parsed > scratch.budget {
		c.a.reason("it is too long to check (it nests commands too often)")
		c.a.opaque = true
	}
	var names []string
	for _, cmd := range scratch.all {
		if len(c.a.all) >= maxCommands {
			c.a.reason("it has too many commands to check")
			c.a.opaque = true
			break
		}
		if cmd.reading == "" {
			cmd.reading = alt.String()
		}
		c.a.all = append(c.a.all, cmd)
		if len(names) < 4 {
			names = append(names, cmd.String())
		}
	}
	c.a.opaque = c.a.opaque || scratch.opaque && !c.known
	if c.known {
		return
	}
	c.a.writes = append(c.a.writes, scratch.writes...)
	c.a.mentions = append(c.a.mentions, scratch.mentions...)
	what := "no command"
	if len(names) > 0 {
		what = strings.Join(names, "; ")
		if len(scratch.all) > len(names) {
			what += " …"
		}
	}
	c.a.unseenPart("text %s and %s read differently (as %s reads it, it runs: %s)", c.dialect, alt, alt, what)
	c.a.reason("%s and %s read it differently; as %s reads it, it runs: %s", c.dialect, alt, alt, what)
}

// spend counts n more bytes parsed; past the budget the command is too
// long to check, and spend says false.
func (a *analysis) spend(n int) bool {
	a.parsed += n
	if a.budget > 0 && a.parsed > a.budget {
		a.reason("it is too long to check (it nests commands too often)")
		a.opaque = true
		return false
	}
	return true
}

// sameShape reports whether two parses of one text are the same tree:
// the same kinds of node over the same spans of the text.
func sameShape(f, g *syntax.File) bool {
	a, b := shape(f), shape(g)
	return slices.Equal(a, b)
}

type nodeSpan struct {
	kind       reflect.Type
	start, end uint
}

func shape(f *syntax.File) []nodeSpan {
	var out []nodeSpan
	syntax.Walk(f, func(n syntax.Node) bool {
		if n != nil {
			s, e := span(n)
			out = append(out, nodeSpan{reflect.TypeOf(n), s, e})
		}
		return true
	})
	return out
}

// span is where a node is in the text. A binary node is placed by its
// operator: the parser finds its start and end through its operands,
// which for a chain (x+x+…, a && b && …) costs the chain's length at
// every node, and the operands' own spans are listed anyway.
func span(n syntax.Node) (uint, uint) {
	switch x := n.(type) {
	case *syntax.BinaryArithm:
		return x.OpPos.Offset(), x.OpPos.Offset()
	case *syntax.BinaryCmd:
		return x.OpPos.Offset(), x.OpPos.Offset()
	case *syntax.BinaryTest:
		return x.OpPos.Offset(), x.OpPos.Offset()
	case *syntax.Stmt:
		return x.Position.Offset(), x.Position.Offset()
	}
	return n.Pos().Offset(), n.End().Offset()
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

func (c *classifier) stmts(list []*syntax.Stmt) {
	for _, s := range list {
		c.stmt(s)
	}
}

func (c *classifier) stmt(s *syntax.Stmt) {
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
		c.redirect(r)
	}
	c.command(s.Cmd)
	c.recordWrite(s)
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

func (c *classifier) command(cmd syntax.Command) {
	switch x := cmd.(type) {
	case nil:
		// Only redirections (`> f`): handled by stmt.
	case *syntax.CallExpr:
		c.call(x)
	case *syntax.BinaryCmd:
		switch x.Op {
		case syntax.Pipe, syntax.PipeAll:
			// Each side of a pipe runs in a subshell.
			before := c.cwd
			c.stmt(x.X)
			c.cwd = before
			c.stmt(x.Y)
			c.cwd = before
		default: // && and ||: one after the other
			c.stmt(x.X)
			c.stmt(x.Y)
		}
	case *syntax.Subshell:
		before := c.cwd
		c.stmts(x.Stmts)
		c.cwd = before
	case *syntax.Block:
		c.stmts(x.Stmts)
	case *syntax.IfClause:
		c.control(func() {
			for ic := x; ic != nil; ic = ic.Else {
				c.stmts(ic.Cond)
				c.stmts(ic.Then)
			}
		})
	case *syntax.WhileClause:
		c.control(func() { c.stmts(x.Cond); c.stmts(x.Do) })
	case *syntax.ForClause:
		c.control(func() { c.stmts(x.Do) })
	case *syntax.CaseClause:
		c.control(func() {
			for _, it := range x.Items {
				c.stmts(it.Stmts)
			}
		})
	case *syntax.TimeClause:
		c.stmt(x.Stmt)
	case *syntax.FuncDecl:
		// scan gave the reason; the body's commands still count for deny,
		// here with unknown arguments and again where it is called
		// (callFunc) with the arguments it is given.
		if x.Name != nil {
			c.a.funcs[x.Name.Value] = funcDef{body: x.Body, src: c.src}
		}
		before, args, has := c.cwd, c.args, c.hasArgs
		c.args, c.hasArgs = nil, false
		c.stmt(x.Body)
		c.cwd, c.args, c.hasArgs = before, args, has
	case *syntax.CoprocClause:
		c.stmt(x.Stmt)
	case *syntax.DeclClause:
		// No command runs now (scan gave the reason), but a variable
		// exported here may name a command or load code later.
		var words []word
		for _, as := range x.Args {
			if as.Name != nil {
				words = append(words, c.assign(as))
			}
		}
		c.envWords(&command{}, words)
	case *syntax.TestClause, *syntax.ArithmCmd, *syntax.LetClause:
		// No command runs (substitutions inside were found by scan);
		// arithmetic has its reason from scan.
	default:
		c.a.reason("it uses shell syntax Loupe does not check (%s)", c.snippet(cmd, 40))
		c.a.opaque = true
	}
}

// redirect notes writes. What a redirection feeds a program's input
// matters nowhere: a program that runs what its input holds is judged
// as running unseen code whatever it reads (its input can come from an
// exec redirection, a program that starts it, a file opened read-write).
func (c *classifier) redirect(r *syntax.Redirect) {
	switch r.Op {
	case syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc, syntax.DplIn:
		// Reads only.
	case syntax.DplOut:
		w := c.word(r.Word)
		if w.kind == wLit && (w.text == "-" || isDigits(w.text)) {
			return // 2>&1, >&-: duplicating, not writing a file
		}
		c.write(r, w)
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll,
		syntax.RdrAllClob, syntax.AppAllClob, syntax.RdrInOut:
		c.write(r, c.word(r.Word))
	default:
		c.a.reason("it uses a redirection Loupe does not check (%s)", r.Op)
	}
}

// harmlessTargets may be written without asking.
var harmlessTargets = map[string]bool{"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true}

func (c *classifier) write(r *syntax.Redirect, w word) {
	c.settingsWrite(w)
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

// settingsWrite notes a write to a file that programs the script may
// run next read as settings that can run commands: anything in the
// command's home (git's ~/.gitconfig and ~/.config/git/config, a shell's
// startup files, every tool's dotfiles), and files of those names
// wherever they are, since HOME=. or XDG_CONFIG_HOME=. makes them the
// ones read. Deny rules cannot be checked against what they will hold.
func (c *classifier) settingsWrite(w word) {
	t := w.text
	inHome := strings.HasPrefix(t, "~") || strings.Contains(t, "$HOME") || strings.Contains(t, "${HOME") ||
		strings.Contains(t, "XDG_CONFIG_HOME")
	base := path.Base(t)
	named := base == ".gitconfig" || strings.HasSuffix(t, "git/config") && !strings.HasSuffix(t, ".git/config") ||
		shellStartupFiles[base]
	if inHome || named {
		c.a.unseenPart("it writes %s, where programs it runs read settings that can run commands", clip(t))
	}
}

// shellStartupFiles are the files a shell reads from its home before its
// script (as a login or interactive shell, or zsh always).
var shellStartupFiles = map[string]bool{
	".bashrc": true, ".bash_profile": true, ".bash_login": true, ".profile": true, ".zshenv": true, ".zshrc": true, ".zprofile": true,
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

func (c *classifier) call(x *syntax.CallExpr) {
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
		c.envWords(&command{}, words) // PAGER=…, PATH=… count for what runs later
		return
	}
	for _, w := range x.Args {
		if c.hasArgs && allArgs(w) {
			for _, a := range c.args {
				a.assign = false
				words = append(words, a)
			}
			continue
		}
		words = append(words, c.word(w))
	}
	cmd := c.build(words)
	c.cmds = append(c.cmds, cmd)
	if name, val, ok := c.aliasOf(x); ok {
		c.a.reason("it runs an alias defined in the same command (%s)", name)
		c.expandAlias(cmd, x, name, val)
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
