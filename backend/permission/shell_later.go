package permission

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// laterCode notes text that bash runs as a command after it has read the
// command line, where the parser sees only data: a literal holding a
// command substitution, which arithmetic on a variable, an array
// subscript, ${x@P}, PS4 under set -x, test -v, printf -v, read and
// declare -n all evaluate (x='a[$(rm f)]'; echo $((x)) runs rm); a
// function imported through the environment (BASH_FUNC_name%%=); a prompt
// command; a callback (mapfile -C); a program bound to another name
// (hash -p). None of these can be judged by the words the parser gives,
// so each is code Loupe cannot see: it asks where rules could be passed.
func laterCode(a *analysis, f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.SglQuoted:
			if hidesCode(x.Value) || x.Dollar && escapesCode(x.Value) {
				a.laterPart("%s (text bash may run later as a command)", clip(x.Value))
			}
		case *syntax.Lit:
			if hidesCode(x.Value) {
				a.laterPart("%s (text bash may run later as a command)", clip(x.Value))
			}
		case *syntax.Assign:
			if x.Name != nil && laterVar(x.Name.Value) {
				a.laterPart("%s=… (code bash runs later)", x.Name.Value)
			}
		case *syntax.CallExpr:
			laterCall(a, x.Args)
		}
		return true
	})
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

// laterCall notes builtins that bind code to run later: hash -p (a name
// that runs another program), mapfile -C / readarray -C (a callback).
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
