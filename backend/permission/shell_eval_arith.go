package permission

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The operands of the places bash evaluates text (see shell_eval.go):
// arithmetic, the words it is given as text, expansions, subscripts.

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
