package permission

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Bash decides at each use whether an array is associative, whose key is
// data, or indexed, whose subscript it evaluates as arithmetic: the
// attribute holds from the moment declare -A runs, in the shell that ran
// it, until the name is unset. A declare -A later in the script, in a
// subshell or a function, behind && or if, or one that fails (the name is
// already an indexed array, one of bash's own arrays, or a redirection
// fails) leaves the use indexed. So a key is read as data only where the
// walk can see that the attribute holds: a declare -A statement of the
// script's top level (or local -A at a function body's, for uses in that
// body), run unconditionally before the use, and the name
// given no other declaration, unset, or value by a builtin anywhere in
// the script, nor assigned before it.

// assocFacts says where each name is known to be associative.
type assocFacts struct {
	// from and to: where the declare -A ends and where its scope does
	// (the script's end, or the function body's).
	from, to map[string]int
	funcs    [][2]int // function bodies: one inside a function's scope is called from elsewhere
}

// bashArrays are arrays bash keeps itself: declare -A cannot change them.
var bashArrays = map[string]bool{
	"BASH_ARGC": true, "BASH_ARGV": true, "BASH_LINENO": true, "BASH_SOURCE": true, "BASH_REMATCH": true,
	"BASH_VERSINFO": true, "COMP_WORDS": true, "COPROC": true, "DIRSTACK": true, "FUNCNAME": true,
	"GROUPS": true, "PIPESTATUS": true, "BASH_ALIASES": true, "BASH_CMDS": true, "READLINE_ARGUMENT": true,
}

// nameTouchers are builtins that declare, unset or give a value to the
// names they are given.
var nameTouchers = map[string]bool{
	"declare": true, "typeset": true, "local": true, "export": true, "readonly": true, "nameref": true,
	"unset": true, "read": true, "mapfile": true, "readarray": true, "printf": true, "wait": true, "getopts": true,
}

func findAssoc(f *syntax.File) *assocFacts {
	af := &assocFacts{from: map[string]int{}, to: map[string]int{}}
	decl := map[string]*syntax.Stmt{}
	scopeEnd := map[string]int{}
	var funcs [][2]int // where each function's body is
	// A scope is the script's top level or a function body's: there a
	// declare -A statement runs before the statements after it.
	scope := func(stmts []*syntax.Stmt, end int, inFunc bool) {
		for _, s := range stmts {
			d, ok := s.Cmd.(*syntax.DeclClause)
			v := d != nil && (d.Variant.Value == "declare" || d.Variant.Value == "typeset" || inFunc && d.Variant.Value == "local")
			if !ok || !v || s.Background || s.Coprocess || len(s.Redirs) > 0 {
				continue
			}
			flags := ""
			for _, as := range d.Args {
				if as.Name == nil {
					if t, ok := literalWord(as.Value); ok && strings.HasPrefix(t, "-") {
						flags += t[1:]
					}
					continue
				}
				n := as.Name.Value
				switch {
				case !strings.Contains(flags, "A") || bashArrays[n]:
				case decl[n] == nil:
					decl[n], scopeEnd[n] = s, end
				default:
					scopeEnd[n] = -1 // declared in two places: neither counts
				}
			}
		}
	}
	scope(f.Stmts, int(f.End().Offset())+1, false)
	syntax.Walk(f, func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FuncDecl); ok && fd.Body != nil {
			funcs = append(funcs, [2]int{int(fd.Pos().Offset()), int(fd.End().Offset())})
			if b, ok := fd.Body.Cmd.(*syntax.Block); ok {
				scope(b.Stmts, int(fd.End().Offset()), true)
			}
		}
		return true
	})
	af.funcs = funcs
	if len(decl) == 0 {
		return af
	}
	// Every other place a name is declared, unset or given a value by a
	// builtin, and where it is assigned.
	killAll := false
	touched := map[string]bool{}
	assignedBefore := map[string]bool{}
	touch := func(n string, at syntax.Node) {
		n, _, _ = strings.Cut(n, "[")
		if d, ok := decl[n]; ok && at != syntax.Node(d) {
			touched[n] = true
		}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.FuncDecl:
			if nameTouchers[x.Name.Value] {
				killAll = true // declare itself is a function
			}
		case *syntax.Stmt:
			if d, ok := x.Cmd.(*syntax.DeclClause); ok {
				for _, as := range d.Args {
					switch {
					case as.Name != nil:
						touch(as.Name.Value, x)
					default:
						if t, ok := literalWord(as.Value); !ok {
							killAll = true
						} else if !strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "+") {
							name, _, _ := strings.Cut(t, "=")
							touch(name, x)
						}
					}
				}
				// Its assignments are not ones made before.
				return false
			}
		case *syntax.Assign:
			if x.Name != nil {
				if d, ok := decl[x.Name.Value]; ok && x.Pos().Offset() < d.Pos().Offset() {
					assignedBefore[x.Name.Value] = true
				}
			}
		case *syntax.CallExpr:
			name, args := builtinName(x.Args)
			if name == "" {
				if len(x.Args) > 0 {
					killAll = true
				}
				break
			}
			if !nameTouchers[name] {
				break
			}
			ws := args[1:]
			switch name {
			case "printf", "wait":
				ws = optionValues(ws, map[string]byte{"printf": 'v', "wait": 'p'}[name])
			case "getopts":
				ws = ws[min(len(ws), 1):min(len(ws), 2)]
			}
			for _, w := range ws {
				// An element (h[k]) keeps the attribute; a name only
				// known at run time may be any.
				lead, whole := leadText(w)
				switch {
				case strings.Contains(lead, "["):
				case !whole:
					killAll = true
				case !strings.HasPrefix(lead, "-"):
					touch(lead, x)
				}
			}
		}
		return true
	})
	if killAll {
		return af
	}
	for n, d := range decl {
		if !touched[n] && !assignedBefore[n] && scopeEnd[n] > 0 {
			af.from[n], af.to[n] = int(d.End().Offset()), scopeEnd[n]
		}
	}
	return af
}

// assocAt reports whether name is associative at pos (an invalid pos is
// a use the walk cannot place: not).
func (e *evalCheck) assocAt(name string, pos syntax.Pos) bool {
	if e.assoc == nil {
		e.assoc = findAssoc(e.file)
	}
	from, ok := e.assoc.from[name]
	if !ok || e.f.anyVar || !pos.IsValid() {
		return false
	}
	at, to := int(pos.Offset()), e.assoc.to[name]
	if at < from || at >= to {
		return false
	}
	// A local declare holds in its function, not in one defined inside
	// it, which may be called after the function returns.
	if to <= int(e.file.End().Offset()) {
		for _, fn := range e.assoc.funcs {
			if fn[0] > from && fn[0] <= at && at < fn[1] {
				return false
			}
		}
	}
	return true
}

// optionValues are the values given to the option -flag in ws, attached
// (-vNAME, -v"$x") or the next word; a word only known at run time may
// be the option itself, so the word after it counts too.
func optionValues(ws []*syntax.Word, flag byte) []*syntax.Word {
	var out []*syntax.Word
	for i := 0; i < len(ws); i++ {
		t, ok := literalWord(ws[i])
		if t == "--" {
			break
		}
		if !ok {
			if rest, attached := attachedValue(ws[i], flag); attached {
				out = append(out, rest)
				continue
			}
			if lead, isLit := firstLit(ws[i]); !isLit || strings.HasPrefix(lead, "-") {
				if i+1 < len(ws) {
					out = append(out, ws[i+1])
				}
			}
			continue
		}
		if !strings.HasPrefix(t, "-") || len(t) < 2 {
			break
		}
		if j := strings.IndexByte(t[1:], flag); j >= 0 && !strings.HasPrefix(t, "--") {
			if rest := t[2+j:]; rest != "" {
				out = append(out, &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: rest}}})
			} else if i+1 < len(ws) {
				out = append(out, ws[i+1])
				i++
			}
		}
	}
	return out
}

// firstLit is the literal text a word starts with, if it starts with one.
func firstLit(w *syntax.Word) (string, bool) {
	if w == nil || len(w.Parts) == 0 {
		return "", false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok {
		return "", false
	}
	return l.Value, true
}

// attachedValue is the rest of a word that starts with an option cluster
// holding flag, the value attached to it: -v"$x" gives "$x".
func attachedValue(w *syntax.Word, flag byte) (*syntax.Word, bool) {
	lead, ok := firstLit(w)
	if !ok || !strings.HasPrefix(lead, "-") || strings.HasPrefix(lead, "--") {
		return nil, false
	}
	j := strings.IndexByte(lead[1:], flag)
	if j < 0 {
		return nil, false
	}
	rest := lead[2+j:]
	parts := append([]syntax.WordPart{}, w.Parts[1:]...)
	if rest != "" {
		parts = append([]syntax.WordPart{&syntax.Lit{ValuePos: w.Parts[0].End(), ValueEnd: w.Parts[0].End(), Value: rest}}, parts...)
	}
	return &syntax.Word{Parts: parts}, true
}

// leadText is the literal text a word starts with, up to its first
// expansion; whole says the word has none.
func leadText(w *syntax.Word) (string, bool) {
	var b strings.Builder
	var walk func(parts []syntax.WordPart) bool
	walk = func(parts []syntax.WordPart) bool {
		for _, p := range parts {
			switch x := p.(type) {
			case *syntax.Lit:
				b.WriteString(x.Value)
			case *syntax.SglQuoted:
				if x.Dollar {
					return false
				}
				b.WriteString(x.Value)
			case *syntax.DblQuoted:
				if x.Dollar || !walk(x.Parts) {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	whole := walk(w.Parts)
	return b.String(), whole
}
