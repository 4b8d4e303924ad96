package permission

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The names builtins parse and the values declare reads again (see
// shell_eval.go): test -v, printf -v, read, unset, declare, let.

// nameSafe reports whether text bash parses as a variable name evaluates
// nothing: a plain name, or a subscript that is a known constant.
func (e *evalCheck) nameSafe(t string) bool { return e.nameSafeAt(t, syntax.Pos{}) }

// nameSafeAt is nameSafe for a name bash parses at pos.
func (e *evalCheck) nameSafeAt(t string, pos syntax.Pos) bool {
	i := strings.IndexByte(t, '[')
	if i < 0 {
		return true
	}
	sub := t[i+1:]
	if j := strings.LastIndexByte(sub, ']'); j >= 0 {
		sub = sub[:j]
	}
	if sub == "@" || sub == "*" {
		return true
	}
	if e.assocAt(t[:i], pos) && !strings.ContainsAny(sub, "$`") {
		return true
	}
	return e.arithText(sub) == ""
}

// nameWord checks a word a builtin takes as a variable name.
func (e *evalCheck) nameWord(at syntax.Node, w *syntax.Word) {
	t, bad := e.static(w, e.src)
	if bad == "" && !e.nameSafeAt(t, at.Pos()) {
		bad = t
	}
	if bad != "" {
		e.report(at, bad)
	}
}

func (e *evalCheck) test(x syntax.TestExpr) {
	switch x := x.(type) {
	case *syntax.BinaryTest:
		if x.Op >= syntax.TsEql && x.Op <= syntax.TsGtr {
			for _, side := range []syntax.TestExpr{x.X, x.Y} {
				if w, ok := side.(*syntax.Word); ok {
					if bad := e.arithWord(w, e.src); bad != "" {
						e.report(x, bad)
						return
					}
				}
			}
			return
		}
		e.test(x.X)
		e.test(x.Y)
	case *syntax.UnaryTest:
		if w, ok := x.X.(*syntax.Word); ok && x.Op == syntax.TsVarSet {
			e.nameWord(x, w)
			return
		}
		e.test(x.X)
	case *syntax.ParenTest:
		e.test(x.X)
	}
}

// decl checks declare's names, namerefs' targets and integer values
// given as words.
func (e *evalCheck) decl(at syntax.Node, variant string, args []*syntax.Assign) {
	var flags string
	for _, as := range args {
		if as.Name != nil {
			if as.Value != nil && (strings.Contains(flags, "n") || variant == "nameref") {
				e.nameWord(as, as.Value)
			}
			if as.Value != nil && (strings.ContainsAny(flags, "aA") || e.f.arrays[as.Name.Value]) {
				if bad := e.compound(as.Value); bad != "" {
					e.reportWhy(as, "declare reads "+clip(bad)+" as an array's elements and expands them again when it runs, and Loupe cannot see that value")
				}
			}
			continue
		}
		t, ok := literalWord(as.Value)
		if ok && (strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+")) {
			if strings.HasPrefix(t, "-") {
				flags += t[1:]
			}
			continue
		}
		// A name written as a word ("a[$i]=1", "$n=v"): bash parses
		// the part before the =; the value only for -i and -n.
		name, bad := e.namePart(as.Value)
		if bad == "" && !e.nameSafeAt(strings.TrimSuffix(name, "+"), at.Pos()) {
			bad = name
		}
		array := strings.ContainsAny(flags, "aA") || e.f.arrays[strings.TrimSuffix(name, "+")]
		if arithAssigned[strings.TrimSuffix(name, "+")] {
			flags += "i"
		}
		if bad == "" && (strings.ContainsAny(flags, "in") || array) {
			t, vbad := e.static(as.Value, e.src)
			_, val, _ := strings.Cut(t, "=")
			switch {
			case vbad != "":
				bad = vbad
			case array && strings.ContainsAny(val, "$`"):
				bad = val
			case strings.Contains(flags, "i") && e.arithText(val) != "":
				bad = val
			case strings.Contains(flags, "n") && !e.nameSafe(val):
				bad = val
			}
		}
		if bad != "" {
			e.report(as, bad)
		}
	}
}

// compound checks the value declare gives an array as a word: it reads
// it as ( … ) and expands the elements again, so it must be literal and
// expand nothing.
func (e *evalCheck) compound(w *syntax.Word) string {
	t, ok := literalWord(w)
	switch {
	case !ok:
		return snippetOf(w, e.src)
	case strings.ContainsAny(t, "$`"):
		return t
	}
	return ""
}

// namePart is the text of a word up to its first =, the name declare
// parses; bad names what in it is only known when it runs.
func (e *evalCheck) namePart(w *syntax.Word) (string, string) {
	var b strings.Builder
	bad := ""
	var walk func(parts []syntax.WordPart) bool
	walk = func(parts []syntax.WordPart) bool {
		for _, p := range parts {
			e.a.evalSteps++
			text := ""
			switch x := p.(type) {
			case *syntax.Lit:
				text = x.Value
			case *syntax.SglQuoted:
				if x.Dollar {
					bad = snippetOf(x, e.src)
					return true
				}
				text = x.Value
			case *syntax.DblQuoted:
				if walk(x.Parts) {
					return true
				}
				continue
			case *syntax.ParamExp:
				if e.numericParam(x) {
					b.WriteString("0")
					continue
				}
				bad = snippetOf(x, e.src)
				return true
			default:
				bad = snippetOf(p, e.src)
				return true
			}
			if i := strings.IndexByte(text, '='); i >= 0 {
				b.WriteString(text[:i])
				return true
			}
			b.WriteString(text)
		}
		return false
	}
	walk(w.Parts)
	return b.String(), bad
}

// call checks the builtins that parse a name or evaluate arithmetic they
// are given as a word.
func (e *evalCheck) call(x *syntax.CallExpr) {
	name, args := builtinName(x.Args)
	if name == "" || len(args) < 2 {
		return
	}
	rest := args[1:]
	switch name {
	case "test", "[":
		// test -v NAME; a word only known at run time may be -v too.
		for i := 0; i+1 < len(rest); i++ {
			t, ok := literalWord(rest[i])
			if t == "-v" || !ok {
				e.nameWord(x, rest[i+1])
			}
		}
	case "printf", "wait":
		// printf -v NAME, wait -p NAME; attached (-vNAME, -v"$x") too.
		for _, w := range optionValues(rest, map[string]byte{"printf": 'v', "wait": 'p'}[name]) {
			e.nameWord(x, w)
		}
	case "read":
		for i := 0; i < len(rest); i++ {
			t, ok := literalWord(rest[i])
			if ok && strings.HasPrefix(t, "-") && len(t) > 1 {
				if last := t[len(t)-1]; strings.IndexByte("dinNptu", last) >= 0 {
					i++ // the option's value
				}
				continue
			}
			e.nameWord(x, rest[i])
		}
	case "unset":
		for _, w := range rest {
			if t, ok := literalWord(w); ok && strings.HasPrefix(t, "-") {
				if strings.Contains(t, "f") {
					return // functions' names
				}
				continue
			}
			e.nameWord(x, w)
		}
	case "let":
		for _, w := range rest {
			if bad := e.arithWord(w, e.src); bad != "" {
				e.report(x, bad)
				return
			}
		}
	case "declare", "typeset", "local", "export", "readonly", "nameref":
		var as []*syntax.Assign
		for _, w := range rest {
			as = append(as, &syntax.Assign{Naked: true, Value: w})
		}
		e.decl(x, name, as)
	}
}
