package agent

// The repair of the JSON a model printed or sent as a call's arguments:
// a tolerant reading of what small models get wrong (trailing commas,
// single quotes, unquoted keys, Python's True, False and None), which says
// what it fixed.

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

func joinFixes(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// tolerant decodes JSON, and when that fails, JSON as small models write
// it: trailing commas, single quotes, unquoted keys, Python's True, False
// and None. fixed names what was repaired. Numbers are kept exactly.
func tolerant(text string) (v any, fixed string, ok bool) {
	if decodeOne(text, &v) {
		return v, "", true
	}
	rep, fixes, ok := repairJSON(text)
	if !ok || !decodeOne(rep, &v) {
		return nil, "", false
	}
	return v, strings.Join(fixes, ", "), true
}

func decodeOne(text string, v *any) bool {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	if dec.Decode(v) != nil {
		return false
	}
	_, err := dec.Token()
	return err != nil && err.Error() == "EOF"
}

// repairJSON rewrites the forms it knows and gives up on anything else
// (a bare word that is not a key, a quote that does not close).
func repairJSON(s string) (string, []string, bool) {
	var b strings.Builder
	var fixes []string
	note := func(f string) {
		if !slices.Contains(fixes, f) {
			fixes = append(fixes, f)
		}
	}
	var stack []byte
	prev := byte(0) // last significant byte written
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(s) {
				return "", nil, false
			}
			b.WriteString(s[i : j+1])
			prev, i = '"', j+1
		case c == '\'':
			var lit strings.Builder
			j := i + 1
			for ; j < len(s) && s[j] != '\''; j++ {
				if s[j] == '\\' && j+1 < len(s) {
					if s[j+1] == '\'' {
						lit.WriteByte('\'')
					} else {
						lit.WriteByte('\\')
						lit.WriteByte(s[j+1])
					}
					j++
					continue
				}
				if s[j] == '"' {
					lit.WriteString(`\"`)
					continue
				}
				lit.WriteByte(s[j])
			}
			if j >= len(s) {
				return "", nil, false
			}
			b.WriteByte('"')
			b.WriteString(lit.String())
			b.WriteByte('"')
			note("single quotes")
			prev, i = '"', j+1
		case c == '{' || c == '[':
			stack = append(stack, c)
			b.WriteByte(c)
			prev, i = c, i+1
		case c == '}' || c == ']':
			if len(stack) == 0 {
				return "", nil, false
			}
			stack = stack[:len(stack)-1]
			if prev == ',' {
				// Drop the trailing comma written before.
				out := strings.TrimRight(b.String(), " \t\r\n")
				out = strings.TrimSuffix(out, ",")
				b.Reset()
				b.WriteString(out)
				note("a trailing comma")
			}
			b.WriteByte(c)
			prev, i = c, i+1
		case isIdentStart(c):
			j := i
			for j < len(s) && isIdent(s[j]) {
				j++
			}
			word := s[i:j]
			k := j
			for k < len(s) && strings.IndexByte(" \t\r\n", s[k]) >= 0 {
				k++
			}
			inObject := len(stack) > 0 && stack[len(stack)-1] == '{'
			switch {
			case inObject && (prev == '{' || prev == ',') && k < len(s) && s[k] == ':':
				b.WriteString(`"` + word + `"`)
				note("unquoted keys")
			case word == "true" || word == "false" || word == "null":
				b.WriteString(word)
			case word == "True" || word == "False" || word == "None":
				b.WriteString(map[string]string{"True": "true", "False": "false", "None": "null"}[word])
				note("Python literals")
			default:
				if c >= '0' && c <= '9' || c == '-' {
					b.WriteString(word)
				} else {
					return "", nil, false
				}
			}
			prev, i = 'w', j
		default:
			b.WriteByte(c)
			if strings.IndexByte(" \t\r\n", c) < 0 {
				prev = c
			}
			i++
		}
	}
	return b.String(), fixes, true
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-'
}

func isIdent(c byte) bool {
	return isIdentStart(c) || c == '.' || c == '+'
}

// repairArgs gives a call's arguments as a JSON object when they arrive
// as something else whose meaning is plain: a JSON string holding the
// object, or JSON with the slips tolerant repairs. ok is false when they
// are fine as they are or cannot be read.
func repairArgs(raw json.RawMessage) (fixed json.RawMessage, what string, ok bool) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] == '{' && json.Valid(t) {
		return nil, "", false
	}
	v, how, ok := tolerant(string(t))
	if !ok {
		return nil, "", false
	}
	if s, isStr := v.(string); isStr {
		var inner any
		inner, how2, ok := tolerant(s)
		if _, isObj := inner.(map[string]any); !ok || !isObj {
			return nil, "", false
		}
		v, how = inner, joinFixes("the arguments were a JSON string holding the object", how2)
	}
	if _, isObj := v.(map[string]any); !isObj {
		return nil, "", false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, "", false
	}
	return b, how, true
}
