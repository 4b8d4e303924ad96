package permission

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
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
	sub := &classifier{a: c.a, src: src, depth: depth, cwd: c.cwd, args: c.args, hasArgs: c.hasArgs}
	substs := sub.scan(f)
	for _, s := range f.Stmts {
		sub.stmt(s, fed)
	}
	// Commands inside substitutions run too: deny rules must see them.
	// They cannot be allowed by word rules (scan gave a reason).
	for _, list := range substs {
		inner := &classifier{a: c.a, src: src, depth: depth, cwd: sub.cwd, args: c.args, hasArgs: c.hasArgs}
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
		// scan gave the reason; the body's commands still count for deny,
		// here with unknown arguments and again where it is called
		// (callFunc) with the arguments it is given.
		if x.Name != nil {
			c.a.funcs[x.Name.Value] = funcDef{body: x.Body, src: c.src}
		}
		before, args, has := c.cwd, c.args, c.hasArgs
		c.args, c.hasArgs = nil, false
		c.stmt(x.Body, false)
		c.cwd, c.args, c.hasArgs = before, args, has
	case *syntax.CoprocClause:
		c.stmt(x.Stmt, false)
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
	cmd := c.build(words, fed)
	c.cmds = append(c.cmds, cmd)
	if name, val, ok := c.aliasOf(x); ok {
		c.a.reason("it runs an alias defined in the same command (%s)", name)
		c.expandAlias(cmd, x, name, val, fed)
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
