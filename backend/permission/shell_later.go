package permission

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// laterCode notes text that bash runs as a command after it has read the
// command line, where the parser sees only data: text it evaluates as
// arithmetic, a subscript, a name or a prompt (evaluatedCode); a function
// imported through the environment (BASH_FUNC_name%%=); a prompt command
// or PS4 under set -x; a callback (mapfile -C); a program bound to
// another name (hash -p); a builtin loaded from a file (enable -f). None of
// these can be judged by the words the parser gives, so each is code
// Loupe cannot see: it asks where rules could be passed. Literals bash
// does not evaluate (a commit message with backticks, grep '$(') are
// data, and are left alone.
func laterCode(a *analysis, f *syntax.File, src string) {
	evaluatedCode(a, f, src)
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Assign:
			if x.Name != nil && laterVar(x.Name.Value) {
				a.laterPart("%s=… (code bash runs later)", x.Name.Value)
			} else if x.Value != nil && strings.Contains(literalOf(x.Value), "BASH_FUNC_") {
				a.laterPart("%s (a function for the environment, which bash runs later)", clip(literalOf(x.Value)))
			}
		case *syntax.CallExpr:
			laterCall(a, x.Args)
		}
		return true
	})
}

// literalOf is the literal text of w's quoted and unquoted parts, joined
// (a name split across quotes joins up).
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

// laterVar names variables whose value bash runs as code later.
func laterVar(name string) bool {
	return name == "PS4" || name == "PROMPT_COMMAND" || strings.HasPrefix(name, "BASH_FUNC_")
}

// laterCall notes builtins that bind code to run later (hash -p,
// mapfile -C, readarray -C, enable -f) and functions given to the
// environment by name (env, export, declare -x 'BASH_FUNC_f%%=…').
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
	case "fc":
		// fc runs commands from the shell's history (set -o history
		// keeps one), which history -s fills with any text.
		for _, w := range args[1:] {
			if t := w.Lit(); strings.HasPrefix(t, "-") && strings.Contains(t, "l") && isLiteral(w) {
				return // fc -l only lists
			}
		}
		a.laterPart("fc (it runs commands from the shell's history)")
		return
	case "jobs":
		flag = 'x' // jobs -x runs its arguments as a command
	case "compgen", "complete":
		// -C runs a command, -F a function, and compgen expands -W's
		// word list, command substitutions included.
		for _, w := range args[1:] {
			if t := w.Lit(); strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.ContainsAny(t[1:], "CF") || t == "" && !isLiteral(w) {
				a.laterPart("%s %s (it runs a command or function it is given)", name, clip(literalOf(w)))
				return
			}
		}
		for _, w := range optionValues(args[1:], 'W') {
			if t, ok := literalWord(w); !ok || strings.ContainsAny(t, "$`") {
				a.laterPart("%s -W %s (bash expands the word list, and runs what it substitutes)", name, clip(literalOf(w)))
				return
			}
		}
		return
	case "set":
		// History expansion rewrites each later line before bash
		// parses it: the words the walk reads are not the ones that run.
		for i, w := range args[1:] {
			t := w.Lit()
			if !isLiteral(w) || strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.Contains(t, "H") ||
				t == "histexpand" && i > 0 && args[i].Lit() == "-o" {
				a.laterPart("set %s (history expansion rewrites the lines after it before bash reads them)", clip(literalOf(w)))
				return
			}
		}
		return
	case "env", "export", "declare", "typeset", "readonly", "local":
		for _, w := range args[1:] {
			if t := literalOf(w); strings.Contains(strings.ReplaceAll(t, `\`, ""), "BASH_FUNC_") {
				a.laterPart("%s %s (a function for the environment, which bash runs later)", name, clip(t))
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
	a.later = appendNew(a.later, fmt.Sprintf(format, args...))
	a.unseenPart(format, args...)
}

// isLiteral reports whether w has no expansions.
func isLiteral(w *syntax.Word) bool {
	_, ok := literalWord(w)
	return ok
}
