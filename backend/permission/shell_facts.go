package permission

import (
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// What a script says about its variables, read before the check of the
// places bash evaluates text (shell_eval.go): which are numbers, which
// values the walk knows, and the words and builtins it reads them from.

// varFacts is what a script says about its variables, read once before
// the check, in no particular order: a variable is known only if every
// assignment to it anywhere in the script is, which holds whatever order
// they run in.
type varFacts struct {
	// anyVar is set when some assignment's target is only known at run
	// time (a name in a variable, eval, source, a nameref, an alias or
	// trap body, a command named by a variable): no variable is known.
	anyVar bool
	// vals are the literal values each name is given (an arithmetic
	// assignment gives a number, written "0").
	vals map[string][]string
	// unknown are names given a value only known at run time.
	unknown map[string]bool
	// ints and assoc are names declared integer (-i) or associative (-A);
	// arrays are names used as arrays anywhere (declare reads a value it
	// is given for them as a compound assignment, which it expands again).
	ints, assoc, arrays map[string]bool
	// refs are names declared namerefs: what they are given is a name.
	refs map[string]bool
	// runSet are the names builtins give a value at run time (read,
	// mapfile, printf -v, getopts, for, select), with the node that does.
	runSet []runSet
	// keysOf are arrays whose indexes a for loop takes as numbers.
	keysOf []string
	memo   map[string]bool
}

type runSet struct {
	name string
	at   syntax.Node
}

// bashInts are variables bash itself keeps as integers.
var bashInts = map[string]bool{
	"RANDOM": true, "SRANDOM": true, "SECONDS": true, "LINENO": true, "BASHPID": true, "PPID": true, "UID": true,
	"EUID": true, "EPOCHSECONDS": true, "OPTIND": true, "BASH_SUBSHELL": true, "HISTCMD": true, "SHLVL": true,
}

// arithAssigned are variables of bash's own that evaluate what they are
// given as arithmetic, as an integer variable does.
var arithAssigned = map[string]bool{"OPTIND": true, "RANDOM": true, "SRANDOM": true, "HISTCMD": true}

// isInt reports whether bash evaluates what name is given as arithmetic.
func (e *evalCheck) isInt(name string) bool { return e.f.ints[name] || arithAssigned[name] }

// numberText matches what arithmetic reads as a number and nothing else:
// 12, -3, 0x1f, 2#101.
var numberText = regexp.MustCompile(`^\s*[-+]?\s*[0-9][0-9A-Za-z_#@]*\s*$`)

var nameText = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func isNumberText(s string) bool { return strings.TrimSpace(s) == "" || numberText.MatchString(s) }

// numeric reports whether name always holds a number. A variable with
// the integer attribute does: bash evaluates what it is given, and that
// is checked where it is given.
func (f *varFacts) numeric(name string) bool {
	if f.ints[name] && !f.anyVar && !f.unknown[name] {
		return true
	}
	return f.known("n"+name, name, isNumberText, bashInts[name])
}

// promptSafe reports whether every value of name is a prompt string
// without expansions (${x@P} expands $, backticks and \NNN).
func (f *varFacts) promptSafe(name string) bool {
	return f.known("p"+name, name, func(v string) bool { return !strings.ContainsAny(v, "$`") && !octalEscape(v) }, false)
}

func octalEscape(v string) bool {
	for i := 0; i+1 < len(v); i++ {
		if v[i] == '\\' && v[i+1] >= '0' && v[i+1] <= '7' {
			return true
		}
	}
	return false
}

// known reports whether every value name is given passes ok (unset says
// what a name no assignment gives counts as); memoized, so that a
// variable used many times is judged once.
func (f *varFacts) known(key, name string, ok func(string) bool, unset bool) bool {
	if r, done := f.memo[key]; done {
		return r
	}
	f.memo[key] = false // a variable given its own value knows nothing
	r := false
	switch vs, has := f.vals[name]; {
	case f.anyVar || f.unknown[name]:
	case !has:
		r = unset
	default:
		r = true
		for _, v := range vs {
			if ref, isRef := strings.CutPrefix(v, refMark); isRef {
				// y=$x: what x holds.
				if !f.known(key[:1]+ref, ref, ok, unset) {
					r = false
					break
				}
				continue
			}
			if !ok(v) {
				r = false
				break
			}
		}
	}
	f.memo[key] = r
	return r
}

func (f *varFacts) set(name, val string) { f.vals[name] = append(f.vals[name], val) }

// refMark starts a value that is another variable's (y=$x).
const refMark = "\x00$"

// valueOf is the value an assignment's word gives, when the walk knows
// it: its literal text; a number when it is made of expansions that give
// one ($((…)), ${#x}, $#, $?, $$, $!, RANDOM, SECONDS …) and digits:
// count=$((count+1)), start=$SECONDS; another variable's value (y=$x).
func valueOf(w *syntax.Word) (string, bool) {
	if t, ok := literalWord(w); ok {
		return t, true
	}
	if p := soleParam(w); p != nil && p.Param != nil && simpleParam(p) && nameText.MatchString(p.Param.Value) && !bashInts[p.Param.Value] {
		return refMark + p.Param.Value, true
	}
	var num func(parts []syntax.WordPart) bool
	num = func(parts []syntax.WordPart) bool {
		for _, p := range parts {
			switch x := p.(type) {
			case *syntax.ArithmExp:
			case *syntax.Lit:
				if !isDigits(x.Value) {
					return false
				}
			case *syntax.DblQuoted:
				if x.Dollar || !num(x.Parts) {
					return false
				}
			case *syntax.ParamExp:
				simple := x.Param != nil && simpleParam(x)
				special := simple && (len(x.Param.Value) == 1 && strings.Contains("#?$!", x.Param.Value) || bashInts[x.Param.Value])
				if !(x.Length && x.Exp == nil && x.Slice == nil && x.Repl == nil) && !special {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	if w != nil && num(w.Parts) {
		return "0", true
	}
	return "", false
}

// literalWord is the text of a word with no expansions in it.
func literalWord(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", true
	}
	var b strings.Builder
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			s, _ := unescapeLit(x.Value, false)
			b.WriteString(s)
		case *syntax.SglQuoted:
			if x.Dollar {
				return "", false
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			if x.Dollar {
				return "", false
			}
			for _, dp := range x.Parts {
				l, ok := dp.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescapeDbl(l.Value))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// soleParam is the expansion a word is made of ($x, "${x}"), or nil.
func soleParam(w *syntax.Word) *syntax.ParamExp {
	if w == nil || len(w.Parts) != 1 {
		return nil
	}
	switch x := w.Parts[0].(type) {
	case *syntax.ParamExp:
		return x
	case *syntax.DblQuoted:
		if len(x.Parts) == 1 {
			p, _ := x.Parts[0].(*syntax.ParamExp)
			return p
		}
	}
	return nil
}

// braceSeq is a brace expansion of numbers ({1..10}), whose words are
// numbers.
var braceSeq = regexp.MustCompile(`^\{-?[0-9]+\.\.-?[0-9]+(\.\.-?[0-9]+)?\}$`)

// builtinName is the builtin a call runs, past command and builtin; ""
// when the name is only known at run time.
func builtinName(args []*syntax.Word) (string, []*syntax.Word) {
	for len(args) > 0 {
		name, ok := literalWord(args[0])
		if !ok {
			return "", args
		}
		if name != "command" && name != "builtin" {
			return name, args
		}
		args = args[1:]
		for len(args) > 0 && strings.HasPrefix(args[0].Lit(), "-") {
			args = args[1:]
		}
	}
	return "", args
}

// scopeChangers run code in the same shell that the tree does not show,
// which may assign any variable.
var scopeChangers = map[string]bool{"eval": true, "source": true, ".": true, "alias": true, "trap": true, "enable": true}

// gatherFacts reads what f says about its variables.
func gatherFacts(f *syntax.File) *varFacts {
	vf := &varFacts{vals: map[string][]string{}, unknown: map[string]bool{}, ints: map[string]bool{}, assoc: map[string]bool{}, arrays: map[string]bool{}, refs: map[string]bool{}, memo: map[string]bool{}}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Assign:
			if x.Name != nil {
				vf.assign(x)
			}
		case *syntax.DeclClause:
			vf.decl(x.Variant.Value, x.Args)
		case *syntax.ForClause:
			if it, ok := x.Loop.(*syntax.WordIter); ok {
				if x.Select {
					vf.runSet = append(vf.runSet, runSet{it.Name.Value, x}, runSet{"REPLY", x})
					break
				}
				num := true
				for _, w := range it.Items {
					t, lit := literalWord(w)
					num = num && (lit && (isNumberText(t) || braceSeq.MatchString(t)) || vf.indexKeys(w))
				}
				if num {
					vf.set(it.Name.Value, "0")
				} else {
					vf.runSet = append(vf.runSet, runSet{it.Name.Value, x})
				}
			}
		case *syntax.BinaryArithm:
			if x.Op >= syntax.Assgn && x.Op <= syntax.PowAssgn {
				vf.arithTarget(x.X)
			}
		case *syntax.UnaryArithm:
			if x.Op == syntax.Inc || x.Op == syntax.Dec {
				vf.arithTarget(x.X)
			}
		case *syntax.CallExpr:
			vf.call(x)
		case *syntax.ParamExp:
			// ${v:=w} and ${v=w} assign w to v.
			if x.Exp != nil && x.Param != nil && (x.Exp.Op == syntax.AssignUnset || x.Exp.Op == syntax.AssignUnsetOrNull) {
				if t, ok := valueOf(x.Exp.Word); ok {
					vf.set(x.Param.Value, t)
				} else {
					vf.unknown[x.Param.Value] = true
				}
			}
		}
		return true
	})
	for _, r := range vf.runSet {
		vf.unknown[r.name] = true
	}
	for _, a := range vf.keysOf {
		if vf.assoc[a] {
			vf.anyVar = true // a loop over an associative array's keys: strings
		}
	}
	return vf
}

// indexKeys reports whether w is "${!a[@]}", the indexes of an array
// (numbers unless it is associative, which is checked where used: the
// loop's values are judged after all declarations are read).
func (f *varFacts) indexKeys(w *syntax.Word) bool {
	p := soleParam(w)
	if p == nil || !p.Excl || !allIndex(p.Index) || p.Param == nil {
		return false
	}
	f.keysOf = append(f.keysOf, p.Param.Value)
	return true
}

func (f *varFacts) assign(x *syntax.Assign) {
	name := x.Name.Value
	if x.Array != nil || x.Index != nil {
		f.arrays[name] = true
	}
	if x.Array != nil {
		for _, e := range x.Array.Elems {
			if t, ok := valueOf(e.Value); ok {
				f.set(name, t)
			} else {
				f.unknown[name] = true
			}
		}
		return
	}
	if x.Naked {
		return // declare x, local x: no value, or an empty one
	}
	if t, ok := valueOf(x.Value); ok {
		f.set(name, t)
	} else {
		f.unknown[name] = true
	}
}

// decl reads declare, local, typeset, export, readonly: their options,
// and the names given as words (quoted or built at run time).
func (f *varFacts) decl(variant string, args []*syntax.Assign) {
	var flags string
	if variant == "nameref" {
		f.anyVar = true
	}
	for _, as := range args {
		if as.Name != nil {
			switch {
			case strings.Contains(flags, "n"):
				f.anyVar = true // assignments through the reference reach any name
				f.refs[as.Name.Value] = true
			case strings.Contains(flags, "i"):
				f.ints[as.Name.Value] = true
			}
			if strings.Contains(flags, "A") {
				f.assoc[as.Name.Value] = true
			}
			if strings.ContainsAny(flags, "aA") {
				f.arrays[as.Name.Value] = true
			}
			continue
		}
		t, ok := literalWord(as.Value)
		switch {
		case !ok:
			f.anyVar = true
		case strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+"):
			if strings.HasPrefix(t, "-") {
				flags += t[1:]
			}
		default:
			name, val, hasVal := strings.Cut(t, "=")
			name, _, _ = strings.Cut(strings.TrimSuffix(name, "+"), "[")
			if !nameText.MatchString(name) {
				f.anyVar = true
				break
			}
			if hasVal {
				f.set(name, val)
			}
		}
	}
}

func (f *varFacts) arithTarget(x syntax.ArithmExpr) {
	w, ok := x.(*syntax.Word)
	if !ok || len(w.Parts) != 1 {
		return
	}
	switch p := w.Parts[0].(type) {
	case *syntax.Lit:
		if nameText.MatchString(p.Value) {
			f.set(p.Value, "0")
		}
	case *syntax.ParamExp:
		if p.Param != nil {
			f.set(p.Param.Value, "0")
		}
	}
}

// call notes the names builtins assign.
func (f *varFacts) call(x *syntax.CallExpr) {
	if len(x.Args) == 0 {
		return
	}
	name, args := builtinName(x.Args)
	if name == "" {
		f.anyVar = true // a command named at run time may be declare, read …
		return
	}
	names := func(ws []*syntax.Word) {
		for _, w := range ws {
			t, ok := literalWord(w)
			if !ok {
				f.anyVar = true
				return
			}
			t, _, _ = strings.Cut(t, "[")
			if nameText.MatchString(t) {
				f.runSet = append(f.runSet, runSet{t, x})
			}
		}
	}
	switch {
	case scopeChangers[name]:
		f.anyVar = true
	case name == "declare" || name == "typeset" || name == "local" || name == "export" || name == "readonly" || name == "nameref":
		var as []*syntax.Assign
		for _, w := range args[1:] {
			as = append(as, &syntax.Assign{Naked: true, Value: w})
		}
		f.decl(name, as)
	case name == "read" || name == "mapfile" || name == "readarray":
		before := len(f.runSet)
		names(args[1:])
		for _, r := range f.runSet[before:] {
			f.arrays[r.name] = true // read -a, mapfile: arrays (read's others too, to be safe)
		}
		f.runSet = append(f.runSet, runSet{"REPLY", x}, runSet{"MAPFILE", x})
	case name == "getopts":
		if len(args) > 2 {
			names(args[2:3])
		}
		f.runSet = append(f.runSet, runSet{"OPTARG", x})
	case name == "printf":
		if len(args) > 1 {
			t, ok := literalWord(args[1])
			switch {
			case !ok:
				f.anyVar = true
			case t == "-v" && len(args) > 2:
				names(args[2:3])
			case strings.HasPrefix(t, "-v") && len(t) > 2:
				f.runSet = append(f.runSet, runSet{t[2:], x})
			}
		}
	}
}
