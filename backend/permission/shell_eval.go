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
