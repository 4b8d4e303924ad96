package permission

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// This file turns parsed words into what the shell will pass, as far as
// that is known before it runs.

func (c *classifier) assign(as *syntax.Assign) word {
	if as.Name == nil || as.Naked || as.Index != nil || as.Array != nil {
		return word{text: c.snippet(as, 60), kind: wDyn, assign: true}
	}
	op := "="
	if as.Append {
		op = "+="
	}
	w := word{text: as.Name.Value + op, assign: true}
	if as.Value != nil {
		v := c.word(as.Value)
		w.kind = v.kind
		if v.kind == wDyn {
			w.text = c.snippet(as, 60)
		} else {
			w.text += v.text
		}
	}
	return w
}

// word turns a parsed word into what the shell will pass, as far as that
// is known before it runs.
func (c *classifier) word(w *syntax.Word) word {
	if w == nil {
		return word{kind: wDyn}
	}
	var b strings.Builder
	kind := wLit
	for i, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			s, glob := unescapeLit(x.Value, i == 0)
			b.WriteString(s)
			if glob {
				kind = max(kind, wGlob)
			}
		case *syntax.SglQuoted:
			if x.Dollar {
				kind = wDyn
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			if x.Dollar {
				kind = wDyn
			}
			for _, dp := range x.Parts {
				switch y := dp.(type) {
				case *syntax.Lit:
					b.WriteString(unescapeDbl(y.Value))
				case *syntax.ParamExp:
					if p, ok := c.positional(y); ok && p.kind != wDyn {
						b.WriteString(p.text)
					} else {
						kind = wDyn
					}
				default:
					kind = wDyn
				}
			}
		case *syntax.ExtGlob:
			kind = max(kind, wGlob)
			b.WriteString(c.snippet(x, 200))
		case *syntax.ParamExp:
			// $1 … of a function called in the command: its argument,
			// split and expanded by the shell, so only glob-known.
			p, ok := c.positional(x)
			if !ok || p.kind == wDyn {
				kind = wDyn
				break
			}
			b.WriteString(p.text)
			if p.kind == wGlob || strings.ContainsAny(p.text, " \t\n*?[") {
				kind = max(kind, wGlob)
			}
		default:
			kind = wDyn
		}
	}
	if kind == wDyn {
		return word{text: c.snippet(w, 60), kind: wDyn}
	}
	return word{text: b.String(), kind: kind}
}

// unescapeLit removes the backslashes of an unquoted literal and reports
// whether the shell would expand it (glob, braces, tilde).
func unescapeLit(s string, first bool) (string, bool) {
	var b strings.Builder
	glob := false
	braceOpen := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
			continue
		case ch == '*' || ch == '?' || ch == '[':
			glob = true
		case ch == '{':
			braceOpen = true
		case ch == '}' && braceOpen:
			inner := b.String()
			if j := strings.LastIndexByte(inner, '{'); j >= 0 && (strings.Contains(inner[j:], ",") || strings.Contains(inner[j:], "..")) {
				glob = true
			}
		case ch == '~' && i == 0 && first:
			glob = true
		}
		b.WriteByte(ch)
	}
	return b.String(), glob
}

// unescapeDbl removes the backslashes that are special inside double
// quotes.
func unescapeDbl(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
