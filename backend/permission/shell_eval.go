package permission

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// This file finds text bash evaluates as code when it runs, at the places
// it does so: arithmetic ($((…)), ((…)), let, for ((…)), an integer
// variable's assignments, [[ x -eq y ]]), array subscripts (a[i]=,
// ${a[i]}, ${#a[i]}), substring offsets (${x:o:l}), names a builtin parses
// (test -v, [[ -v ]], printf -v, read, unset, declare, a nameref, ${!x})
// and prompt strings (${x@P}). Bash expands a subscript it finds there,
// command substitutions included, and evaluates a variable arithmetic
// names as arithmetic in turn: with n.txt holding a[$(rm f)],
// x=$(cat n.txt); echo $((x)) runs rm. So each operand must be a
// constant the walk knows: a number, a variable every assignment in the
// script gives a number (or an integer bash itself sets: $#, $?, $$, $!,
// ${#x}, RANDOM …), a name without a subscript. Anything else (a value
// read, computed or passed in at run time, a command's output) is code
// Loupe cannot see. Dash evaluates none of these (no arrays; $((x))
// takes x as a number only), but /bin/sh may be bash, so both dialects'
// trees are checked the same way. Bash's test and [ builtins read -eq's
// operands as plain numbers, so they are not places (only [[ ]] is).

// evalCheck checks the places one parsed script evaluates text.
type evalCheck struct {
	a     *analysis
	src   string
	f     *varFacts
	file  *syntax.File
	assoc *assocFacts // where names are associative, found when first asked
}

// evaluatedCode notes each place in f (parsed from src) where bash would
// evaluate text that is not a constant the walk knows.
func evaluatedCode(a *analysis, f *syntax.File, src string) {
	e := &evalCheck{a: a, src: src, f: gatherFacts(f), file: f}
	// A script the command starts (sh -c, eval, a script it wrote) may
	// begin with the values the scripts read before it gave a variable,
	// in the same shell or through the environment, and use one before
	// it assigns it: what they did not know, it does not know.
	if a.taintAll {
		e.f.anyVar = true
	}
	for name := range a.tainted {
		e.f.unknown[name] = true
	}
	defer e.taint()
	for _, r := range e.f.runSet {
		if e.isInt(r.name) {
			e.reportWhy(r.at, r.name+" has the integer attribute, so bash evaluates as code the text it is given when it runs")
		} else if laterVar(r.name) {
			e.reportWhy(r.at, r.name+" is given text only known when it runs, which bash runs")
		}
	}
	syntax.Walk(f, e.visit)
}

// visit checks one node of the tree. A check reads all of an arithmetic
// expression or an expansion's subscript and offsets, so the walk does not
// go into them again: each part is read a bounded number of times.
func (e *evalCheck) visit(n syntax.Node) bool {
	switch x := n.(type) {
	case *syntax.ArithmExp:
		e.check(x, e.arith(x.X, e.src))
		return false
	case *syntax.ArithmCmd:
		e.check(x, e.arith(x.X, e.src))
		return false
	case *syntax.LetClause:
		for _, ex := range x.Exprs {
			if bad := e.arith(ex, e.src); bad != "" {
				return e.check(x, bad)
			}
		}
		return false
	case *syntax.ForClause:
		if cl, ok := x.Loop.(*syntax.CStyleLoop); ok {
			for _, ex := range []syntax.ArithmExpr{cl.Init, cl.Cond, cl.Post} {
				if ex != nil {
					if bad := e.arith(ex, e.src); bad != "" {
						e.report(cl, bad)
						break
					}
				}
			}
		}
	case *syntax.Assign:
		if x.Name == nil {
			break
		}
		if x.Index != nil && !e.assocAt(x.Name.Value, x.Pos()) {
			if bad := e.arith(x.Index, e.src); bad != "" {
				return e.check(x, bad)
			}
		}
		if x.Array != nil && !e.assocAt(x.Name.Value, x.Pos()) {
			for _, el := range x.Array.Elems {
				if el.Index != nil {
					if bad := e.arith(el.Index, e.src); bad != "" {
						return e.check(x, bad)
					}
				}
			}
		}
		if e.f.refs[x.Name.Value] && x.Value != nil {
			// A nameref given a value: it is a name bash parses.
			e.nameWord(x, x.Value)
		}
		if e.isInt(x.Name.Value) {
			if x.Value != nil {
				if bad := e.arithWord(x.Value, e.src); bad != "" {
					return e.check(x, bad)
				}
			}
			if x.Array != nil {
				for _, el := range x.Array.Elems {
					if bad := e.arithWord(el.Value, e.src); bad != "" {
						return e.check(x, bad)
					}
				}
			}
		}
	case *syntax.ParamExp:
		if !e.check(x, e.param(x, e.src, false)) {
			return false
		}
		// An associative array's key, and the words of ${x:-w} and
		// ${x/a/b}, are read on their own.
		if x.Index != nil && x.Param != nil && e.assocAt(x.Param.Value, x.Pos()) {
			syntax.Walk(x.Index, e.visit)
		}
		if x.Exp != nil && x.Exp.Word != nil {
			syntax.Walk(x.Exp.Word, e.visit)
		}
		if x.Repl != nil {
			for _, w := range []*syntax.Word{x.Repl.Orig, x.Repl.With} {
				if w != nil {
					syntax.Walk(w, e.visit)
				}
			}
		}
		return false
	case *syntax.Redirect:
		// {name}>file: bash assigns the new descriptor to name, which may
		// be an array element whose subscript it evaluates.
		if x.N != nil && strings.HasPrefix(x.N.Value, "{") && strings.HasSuffix(x.N.Value, "}") {
			e.nameWord(x, &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{ValuePos: x.N.ValuePos, ValueEnd: x.N.ValueEnd, Value: strings.Trim(x.N.Value, "{}")}}})
		}
	case *syntax.TestClause:
		e.test(x.X)
	case *syntax.DeclClause:
		e.decl(x, x.Variant.Value, x.Args)
	case *syntax.CallExpr:
		e.call(x)
	}
	return true
}

// taint passes on what this script leaves unknown to the scripts read
// after it.
func (e *evalCheck) taint() {
	if e.f.anyVar {
		e.a.taintAll = true
		return
	}
	if e.a.tainted == nil {
		e.a.tainted = map[string]bool{}
	}
	for name := range e.f.unknown {
		e.a.tainted[name] = true
	}
	for name := range e.f.vals {
		if !e.f.numeric(name) {
			e.a.tainted[name] = true
		}
	}
}

// check reports bad at n unless it is empty; it says whether to walk on
// into n (not once reported: the check read all of it).
func (e *evalCheck) check(n syntax.Node, bad string) bool {
	if bad == "" {
		return true
	}
	e.report(n, bad)
	return false
}

// report notes that bash evaluates what, at n, as code when it runs.
func (e *evalCheck) report(n syntax.Node, what string) {
	e.reportWhy(n, "bash evaluates "+clip(what)+" as code when it runs, and Loupe cannot see that value")
}

func (e *evalCheck) reportWhy(n syntax.Node, why string) {
	e.a.laterPart("%s (%s)", clip(snippetOf(n, e.src)), why)
}

func snippetOf(n syntax.Node, src string) string {
	s, end := int(n.Pos().Offset()), int(n.End().Offset())
	if s < 0 || end > len(src) || s > end {
		return "…"
	}
	return src[s:end]
}

// arith checks an arithmetic expression bash evaluates; it returns the
// operand it cannot vouch for, or "".
func (e *evalCheck) arith(x syntax.ArithmExpr, src string) string {
	e.a.evalSteps++
	switch x := x.(type) {
	case nil:
		return ""
	case *syntax.BinaryArithm:
		if x.Op == syntax.Assgn {
			// The target is not evaluated, only its subscript.
			if w, ok := x.X.(*syntax.Word); ok && len(w.Parts) == 1 {
				if p, ok := w.Parts[0].(*syntax.ParamExp); ok && p.Index != nil {
					if bad := e.subscript(p, src, true); bad != "" {
						return bad
					}
				}
				if _, ok := w.Parts[0].(*syntax.Lit); ok {
					return e.arith(x.Y, src)
				}
			}
		}
		if bad := e.arith(x.X, src); bad != "" {
			return bad
		}
		return e.arith(x.Y, src)
	case *syntax.UnaryArithm:
		return e.arith(x.X, src)
	case *syntax.ParenArithm:
		return e.arith(x.X, src)
	case *syntax.Word:
		return e.arithWord(x, src)
	}
	return snippetOf(x, src)
}

// arithWord checks a word whose expansion bash evaluates as arithmetic.
func (e *evalCheck) arithWord(w *syntax.Word, src string) string {
	if w == nil {
		return ""
	}
	if len(w.Parts) == 1 {
		switch p := w.Parts[0].(type) {
		case *syntax.Lit:
			switch {
			case isNumberText(p.Value):
				return ""
			case nameText.MatchString(p.Value):
				if e.f.numeric(p.Value) {
					return ""
				}
				return p.Value
			}
			// Text bash reads as an expression (an integer variable's
			// value, n=n+1): parsed as one.
			return e.arithText(p.Value)
		case *syntax.ParamExp:
			if p.Short && p.Index != nil && !p.Dollar.IsValid() {
				// a[i] in arithmetic: the element's value, and the
				// subscript.
				if !e.f.numeric(p.Param.Value) {
					return snippetOf(p, src)
				}
				return e.subscript(p, src, true)
			}
		}
	}
	t, bad := e.static(w, src)
	if bad != "" {
		return bad
	}
	return e.arithText(t)
}

// static is the text a word expands to, with expansions that give a
// number written as 0; bad names the first part it cannot know.
func (e *evalCheck) static(w *syntax.Word, src string) (string, string) {
	var b strings.Builder
	var walk func(parts []syntax.WordPart) string
	walk = func(parts []syntax.WordPart) string {
		for _, p := range parts {
			e.a.evalSteps++
			switch x := p.(type) {
			case *syntax.Lit:
				b.WriteString(x.Value)
			case *syntax.SglQuoted:
				if x.Dollar {
					return snippetOf(x, src)
				}
				b.WriteString(x.Value)
			case *syntax.DblQuoted:
				if bad := walk(x.Parts); bad != "" {
					return bad
				}
			case *syntax.ParamExp:
				if !e.numericParam(x) {
					return snippetOf(x, src)
				}
				if bad := e.param(x, src, false); bad != "" {
					return bad
				}
				b.WriteString("0")
			case *syntax.ArithmExp:
				if bad := e.arith(x.X, src); bad != "" {
					return bad
				}
				b.WriteString("0")
			default:
				return snippetOf(p, src)
			}
		}
		return ""
	}
	bad := walk(w.Parts)
	return b.String(), bad
}

// arithText checks text bash evaluates as arithmetic after expanding it
// (a subscript in a name a builtin parses, a quoted let argument).
func (e *evalCheck) arithText(s string) string {
	t := strings.TrimSpace(s)
	if t == "" || isNumberText(t) {
		return ""
	}
	if nameText.MatchString(t) {
		if e.f.numeric(t) {
			return ""
		}
		return t
	}
	if !e.a.spend(len(s)) {
		return s
	}
	x, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Arithmetic(strings.NewReader(s))
	if err != nil {
		return s
	}
	if w, ok := x.(*syntax.Word); ok && len(w.Parts) == 1 {
		if _, lit := w.Parts[0].(*syntax.Lit); lit {
			return s // neither a number nor a name, and no quotes to take off
		}
	}
	return e.arith(x, s)
}

// numericParam reports whether an expansion gives a number.
func (e *evalCheck) numericParam(p *syntax.ParamExp) bool {
	if p.Length && p.Slice == nil && p.Repl == nil && p.Exp == nil {
		return true
	}
	if p.Param == nil || p.Excl || p.Slice != nil || p.Repl != nil || p.Names != 0 || p.Flags != nil || p.NestedParam != nil || len(p.Modifiers) > 0 {
		return false
	}
	name := p.Param.Value
	if p.Exp != nil {
		switch p.Exp.Op {
		case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull:
			t, ok := literalWord(p.Exp.Word)
			if !ok || !isNumberText(t) {
				return false
			}
		default:
			return false
		}
	}
	switch name {
	case "#", "?", "$", "!":
		return true
	}
	return e.f.numeric(name)
}

// param checks the places in an expansion bash evaluates: the subscript,
// the substring offset and length, the name ${!x} leads to, the prompt
// ${x@P} expands.
func (e *evalCheck) param(p *syntax.ParamExp, src string, inArith bool) string {
	e.a.evalSteps++
	if p.Index != nil {
		if bad := e.subscript(p, src, inArith); bad != "" {
			return bad
		}
	}
	if p.Slice != nil {
		if bad := e.arith(p.Slice.Offset, src); bad != "" {
			return bad
		}
		if bad := e.arith(p.Slice.Length, src); bad != "" {
			return bad
		}
	}
	if p.Param == nil {
		return ""
	}
	name := p.Param.Value
	if p.Excl && p.Names == 0 && !allIndex(p.Index) {
		// ${!x}: x's value is a name, whose subscript bash evaluates.
		if !e.f.known("r"+name, name, e.nameSafe, false) {
			return "the name in $" + name
		}
	}
	if p.Exp != nil && p.Exp.Op == syntax.OtherParamOps && strings.Contains(p.Exp.Word.Lit(), "P") {
		if !e.f.promptSafe(name) {
			return "the prompt string in $" + name
		}
	}
	return ""
}

func allIndex(x syntax.ArithmExpr) bool {
	w, ok := x.(*syntax.Word)
	if !ok {
		return false
	}
	l := w.Lit()
	return l == "@" || l == "*"
}

// subscript checks an array subscript: arithmetic for an indexed array;
// an associative array's key is expanded once, and is data.
func (e *evalCheck) subscript(p *syntax.ParamExp, src string, inArith bool) string {
	if allIndex(p.Index) || p.Param != nil && e.assocAt(p.Param.Value, p.Pos()) && !inArith {
		return ""
	}
	return e.arith(p.Index, src)
}

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
