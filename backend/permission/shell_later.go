package permission

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// laterCode notes text that bash runs as a command after it has read the
// command line, where the parser sees only data: a variable given a
// literal holding a command substitution, which arithmetic on the
// variable, an array subscript, ${x@P} or PS4 under set -x evaluate
// (x='a[$(rm f)]'; echo $((x)) runs rm); the same literal given to a
// builtin that evaluates a name or subscript (test -v, [[ -v ]], printf -v,
// read, declare -n, let); a function imported through the environment
// (BASH_FUNC_name%%=); a prompt command; a callback (mapfile -C); a
// program bound to another name (hash -p); a builtin loaded from a file
// (enable -f). None of these can be judged by the words the parser gives,
// so each is code Loupe cannot see: it asks where rules could be passed.
// Literals elsewhere (a commit message with backticks, grep '$(') are
// data bash does not evaluate, and are left alone.
func laterCode(a *analysis, f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Assign:
			if x.Name != nil && laterVar(x.Name.Value) {
				a.laterPart("%s=… (code bash runs later)", x.Name.Value)
			} else if x.Value != nil && wordHidesCode(x.Value) {
				a.laterPart("%s=%s (text bash may run later as a command)", nameOf(x), clip(literalOf(x.Value)))
			}
		case *syntax.TestClause:
			syntax.Walk(x.X, func(n syntax.Node) bool {
				if u, ok := n.(*syntax.UnaryTest); ok && u.Op == syntax.TsVarSet {
					if w, ok := u.X.(*syntax.Word); ok && wordHidesCode(w) {
						a.laterPart("[[ -v %s ]] (text bash may run later as a command)", clip(literalOf(w)))
					}
				}
				return true
			})
		case *syntax.CallExpr:
			laterCall(a, x.Args)
		}
		return true
	})
}

// nameOf is an assignment's variable name, for messages.
func nameOf(x *syntax.Assign) string {
	if x.Name == nil {
		return "…"
	}
	return x.Name.Value
}

// literalOf is the literal text of w's quoted and unquoted parts (what
// hidesCode looks at).
func literalOf(w *syntax.Word) string {
	var b strings.Builder
	syntax.Walk(w, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.SglQuoted:
			b.WriteString(x.Value)
		case *syntax.Lit:
			b.WriteString(x.Value)
		}
		return true
	})
	return b.String()
}

// wordHidesCode says whether w's literal text would run a command were bash
// to evaluate it again: its parts joined (a '$”(' split across quotes
// joins up) with escapes dropped (\$\( is $( once read), or characters
// written by code in $'…'.
func wordHidesCode(w *syntax.Word) bool {
	escaped := false
	syntax.Walk(w, func(n syntax.Node) bool {
		if x, ok := n.(*syntax.SglQuoted); ok && x.Dollar && escapesCode(x.Value) {
			escaped = true
		}
		return true
	})
	return escaped || hidesCode(strings.ReplaceAll(literalOf(w), `\`, ""))
}

// hidesCode says whether literal text holds what bash would run were it
// evaluated again: a command substitution, or a function definition for
// the environment.
func hidesCode(s string) bool {
	return strings.Contains(s, "$(") || strings.Contains(s, "`") || strings.Contains(s, "BASH_FUNC_")
}

// escapesCode says whether the body of a $'…' string writes a character by
// its code, which could spell $( or ` without showing it.
func escapesCode(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '\\' {
			switch s[i+1] {
			case 'x', 'u', 'U', 'c', '0', '1', '2', '3', '4', '5', '6', '7':
				return true
			}
			i++
		}
	}
	return false
}

// laterVar names variables whose value bash runs as code later.
func laterVar(name string) bool {
	return name == "PS4" || name == "PROMPT_COMMAND" || strings.HasPrefix(name, "BASH_FUNC_")
}

// laterCall notes builtins that bind code to run later (hash -p,
// mapfile -C, readarray -C, enable -f) and builtins that evaluate a name
// or subscript they are given (test -v, printf -v, read, declare -n, let,
// env with a BASH_FUNC_ variable) when what they are given hides code.
func laterCall(a *analysis, args []*syntax.Word) {
	if len(args) == 0 {
		return
	}
	name := args[0].Lit()
	var flag byte
	switch name {
	case "hash":
		flag = 'p'
	case "mapfile", "readarray":
		flag = 'C'
	case "enable":
		flag = 'f'
	case "test", "[", "printf", "read", "declare", "typeset", "local", "let", "export", "readonly", "env", "eval":
		for _, w := range args[1:] {
			if wordHidesCode(w) {
				a.laterPart("%s %s (text bash may run later as a command)", name, clip(literalOf(w)))
				return
			}
		}
		return
	default:
		return
	}
	for _, w := range args[1:] {
		t := w.Lit()
		if strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.IndexByte(t[1:], flag) >= 0 || t == "" {
			a.laterPart("%s -%c (it binds code to run later)", name, flag)
			return
		}
	}
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// laterPart notes code bash runs later (see laterCode).
func (a *analysis) laterPart(format string, args ...any) {
	a.later = true
	a.unseenPart(format, args...)
}
