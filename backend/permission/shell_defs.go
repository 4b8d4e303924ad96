package permission

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/loupe-dev/loupe/backend/cmdshell"
)

// This file follows what a command defines for itself and then uses:
// aliases (alias x=rm; x -rf d), functions (f(){ rm -rf "$@"; }; f d)
// with their arguments, and scripts it writes before running them
// (echo 'rm -rf d' > s.sh; sh s.sh). The parser expands none of these;
// the classifier does, so that deny rules see the commands they stand
// for. They count everywhere in the command once defined, which can
// only make deny rules see more.

// alias records alias NAME=VALUE definitions.
func (c *classifier) alias(args []word) {
	for _, w := range args {
		if w.kind == wDyn {
			c.a.reason("it defines an alias only known when it runs (%s)", w.text)
			c.a.opaque = true
			continue
		}
		name, val, ok := strings.Cut(w.text, "=")
		if !ok || name == "" || strings.HasPrefix(name, "-") {
			continue
		}
		c.a.aliases[name] = val
		c.a.reason("it defines an alias (%s), which can stand for any command", name)
	}
}

// aliasOf returns the alias the call's command word names. Like the
// shell, it only looks at an unquoted word without backslashes.
func (c *classifier) aliasOf(x *syntax.CallExpr) (string, string, bool) {
	if len(x.Args) == 0 || len(x.Args[0].Parts) != 1 || len(c.a.aliases) == 0 {
		return "", "", false
	}
	lit, ok := x.Args[0].Parts[0].(*syntax.Lit)
	if !ok || strings.ContainsRune(lit.Value, '\\') {
		return "", "", false
	}
	val, ok := c.a.aliases[lit.Value]
	if !ok || c.a.expanding["alias "+lit.Value] {
		return "", "", false
	}
	return lit.Value, val, true
}

// expandAlias walks the call with its alias expanded, as the commands cmd
// (the call as written) stands for.
func (c *classifier) expandAlias(cmd *command, x *syntax.CallExpr, name, val string) {
	start, first, end := int(x.Pos().Offset()), x.Args[0], int(x.End().Offset())
	fs, fe := int(first.Pos().Offset()), int(first.End().Offset())
	if start < 0 || end > len(c.src) || start > fs || fe > end {
		c.a.reason("it uses an alias Loupe cannot expand (%s)", name)
		c.a.opaque = true
		return
	}
	src := c.src[start:fs] + val + c.src[fe:end]
	key := "alias " + name
	c.a.expanding[key] = true
	cmd.inner = append(cmd.inner, c.nested(src)...)
	delete(c.a.expanding, key)
}

// callFunc walks the body of a function defined in the command when
// words call it, with its arguments in place of $1, $@ ….
func (c *classifier) callFunc(cmd *command, words []word) {
	i := 0
	for i < len(words) && words[i].assign {
		i++
	}
	if i == len(words) || words[i].kind == wDyn {
		return
	}
	name := words[i].text
	fn, ok := c.a.funcs[name]
	key := "func " + name
	if !ok || c.a.expanding[key] {
		return
	}
	if c.depth+1 > maxNesting {
		c.a.reason("it nests functions too deeply to check")
		c.a.opaque = true
		return
	}
	c.a.expanding[key] = true
	sub := &classifier{a: c.a, src: fn.src, depth: c.depth + 1, cwd: c.cwd, args: words[i+1:], hasArgs: true, dialect: c.dialect, known: c.known}
	sub.stmt(fn.body)
	delete(c.a.expanding, key)
	cmd.inner = append(cmd.inner, sub.cmds...)
	c.cwd = sub.cwd
}

// simpleParam reports whether p is a plain $name or ${name}.
func simpleParam(p *syntax.ParamExp) bool {
	return p.Param != nil && p.Flags == nil && !p.Excl && !p.Length && !p.Width && !p.IsSet &&
		p.NestedParam == nil && p.Index == nil && len(p.Modifiers) == 0 && p.Slice == nil &&
		p.Repl == nil && p.Names == 0 && p.Exp == nil
}

// positional is $1 … $9, $@ or $* when the arguments are known (inside
// a function called in the command, an sh -c script given arguments).
func (c *classifier) positional(p *syntax.ParamExp) (word, bool) {
	if !c.hasArgs || !simpleParam(p) {
		return word{}, false
	}
	switch name := p.Param.Value; name {
	case "@", "*":
		return joinWords(c.args), true
	default:
		n, err := strconv.Atoi(name)
		if err != nil || n < 1 {
			return word{}, false
		}
		if n > len(c.args) {
			return word{}, true // unset: empty
		}
		return c.args[n-1], true
	}
}

// allArgs reports whether w is "$@" or $@ (or $*): the arguments, as
// words of their own.
func allArgs(w *syntax.Word) bool {
	if len(w.Parts) != 1 {
		return false
	}
	part := w.Parts[0]
	if dq, ok := part.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 && !dq.Dollar {
		if p, ok := dq.Parts[0].(*syntax.ParamExp); ok && simpleParam(p) && p.Param.Value == "@" {
			return true
		}
		return false
	}
	p, ok := part.(*syntax.ParamExp)
	return ok && simpleParam(p) && (p.Param.Value == "@" || p.Param.Value == "*")
}

// recordWrite remembers what a statement writes to a file when the text
// can be read off the command: echo …, printf …, cat <<EOF.
func (c *classifier) recordWrite(s *syntax.Stmt) {
	x, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(x.Args) == 0 || len(x.Assigns) > 0 {
		return
	}
	var target string
	appendTo := false
	var hdoc *syntax.Word
	for _, r := range s.Redirs {
		switch r.Op {
		case syntax.RdrOut, syntax.RdrClob, syntax.AppOut:
			w := c.word(r.Word)
			if w.kind == wDyn || target != "" {
				return
			}
			p, ok := c.join(w.text)
			if !ok {
				return
			}
			target, appendTo = p, r.Op == syntax.AppOut
		case syntax.Hdoc, syntax.DashHdoc:
			hdoc = r.Hdoc
		}
	}
	if target == "" {
		return
	}
	words := make([]word, len(x.Args))
	for i, a := range x.Args {
		words[i] = c.word(a)
	}
	var text string
	switch words[0].text {
	case "echo":
		args := words[1:]
		for len(args) > 0 && (args[0].text == "-n" || args[0].text == "-e" || args[0].text == "-E") {
			args = args[1:]
		}
		text = joinWords(args).text + "\n"
	case "printf":
		parts := make([]string, 0, len(words)-1)
		for _, w := range words[1:] {
			parts = append(parts, strings.ReplaceAll(w.text, `\n`, "\n"))
		}
		text = strings.Join(parts, "\n")
	case "cat":
		if hdoc == nil || len(words) > 1 {
			return
		}
		s, e := int(hdoc.Pos().Offset()), int(hdoc.End().Offset())
		if s < 0 || e > len(c.src) || s > e {
			return
		}
		text = c.src[s:e]
	default:
		return
	}
	if appendTo {
		text = c.a.files[target] + text
	}
	c.a.files[target] = text
}

// runFile walks a script file the command wrote itself (its text is
// known); sameShell is set for source and ., whose cd counts afterwards.
func (c *classifier) runFile(cmd *command, w word, sameShell bool) {
	if w.kind == wDyn {
		return
	}
	p, ok := c.join(w.text)
	if !ok {
		return
	}
	text, ok := c.a.files[p]
	key := "file " + p
	if !ok || c.a.expanding[key] {
		return
	}
	c.a.expanding[key] = true
	if sameShell {
		cmd.inner = append(cmd.inner, c.nested(text)...)
	} else {
		before := c.cwd
		cmd.inner = append(cmd.inner, c.nestedIn(text, nil, false, cmdshell.POSIX, false)...)
		c.cwd = before
	}
	delete(c.a.expanding, key)
}
