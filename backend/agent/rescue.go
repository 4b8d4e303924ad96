package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/trace"
)

// found is a tool call recovered from an answer's text.
type found struct {
	Name string
	Args json.RawMessage
	// Form is how the model wrote it; Text the span of the answer it was
	// read from.
	Form string
	Text string
	// Repaired says what a tolerant parse fixed ("" when nothing).
	Repaired string
	// Unparsed is set for a call whose intent is plain (a tag around an
	// offered tool's name) but whose JSON could not be read even
	// tolerantly: it is checked with Bad and fails with the schema.
	Unparsed bool
	Bad      string
}

var (
	tagRe   = regexp.MustCompile(`(?s)<(tool_call|function_call)>\s*(.*?)\s*(?:</(?:tool_call|function_call)>|\z)`)
	fenceRe = regexp.MustCompile("(?s)```[ \t]*(json|tool_call|tool_code)?[ \t]*\r?\n(.*?)\r?\n?```")
	nameRe  = regexp.MustCompile(`["']?name["']?\s*:\s*["']([A-Za-z0-9_.-]+)["']`)
)

// takeSpans recovers the calls of each matched span (a tag or a fence,
// its inner text in group 2) and returns them with the text around the
// spans. One span that holds no call recovers nothing at all.
func takeSpans(content string, ms [][]int, parse func(inner string) ([]found, bool)) ([]found, string) {
	var out []found
	var b strings.Builder
	last := 0
	for _, m := range ms {
		span, inner := content[m[0]:m[1]], content[m[4]:m[5]]
		fs, ok := parse(inner)
		if !ok {
			return nil, content
		}
		for i := range fs {
			fs[i].Text = span
		}
		out = append(out, fs...)
		b.WriteString(content[last:m[0]])
		last = m[1]
	}
	b.WriteString(content[last:])
	return out, strings.TrimSpace(b.String())
}

// recoverCalls finds tool calls a model printed as text instead of asking
// for them: JSON objects with a name and arguments between <tool_call>
// tags, in a code fence, or as the whole answer (alone or as a list).
// Only names in offered count, and text that is not plainly a call is left
// alone: a fence or a list holding anything else recovers nothing. rest is
// the text with the calls taken out.
func recoverCalls(content string, offered []string) (calls []found, rest string) {
	if !strings.Contains(content, "{") {
		return nil, content
	}
	// Tags say what they hold: each one is a call or nothing.
	if ms := tagRe.FindAllStringSubmatchIndex(content, -1); len(ms) > 0 {
		return takeSpans(content, ms, func(inner string) ([]found, bool) {
			if fs, ok := parseCalls(inner, offered, "tool_call tag"); ok {
				return fs, true
			}
			if f, ok := unparsed(inner, offered); ok {
				return []found{f}, true
			}
			return nil, false
		})
	}
	if ms := fenceRe.FindAllStringSubmatchIndex(content, -1); len(ms) > 0 {
		// A fence with anything else in it (code, an example with a tool
		// that is not offered) is not a call.
		return takeSpans(content, ms, func(inner string) ([]found, bool) {
			return parseCalls(inner, offered, "code fence")
		})
	}
	t := strings.TrimSpace(content)
	if t == "" || (t[0] != '{' && t[0] != '[') {
		// JSON inside prose is ambiguous: it may be an example.
		return nil, content
	}
	fs, ok := parseCalls(t, offered, "json")
	if !ok {
		return nil, content
	}
	for i := range fs {
		fs[i].Text = t
	}
	return fs, ""
}

// unparsed reads a tag's call whose JSON is beyond repair: an offered
// tool's name, plainly meant as a call.
func unparsed(inner string, offered []string) (found, bool) {
	m := nameRe.FindStringSubmatch(inner)
	if m == nil || !slices.Contains(offered, m[1]) {
		return found{}, false
	}
	return found{Name: m[1], Args: json.RawMessage("{}"), Form: "tool_call tag", Unparsed: true, Bad: inner}, true
}

// parseCalls reads text that is wholly one call, a list of calls, or a
// {"tool_calls": [...]} wrapper. ok is false unless every element is a
// call to an offered tool.
func parseCalls(text string, offered []string, form string) ([]found, bool) {
	v, fixed, ok := tolerant(text)
	if !ok {
		return nil, false
	}
	var items []any
	switch x := v.(type) {
	case map[string]any:
		if tc, ok := x["tool_calls"].([]any); ok && len(x) == 1 {
			items = tc
		} else {
			items = []any{x}
		}
	case []any:
		items = x
		if len(items) > 1 {
			form += " (list)"
		}
	default:
		return nil, false
	}
	if len(items) == 0 {
		return nil, false
	}
	var out []found
	for _, it := range items {
		obj, ok := it.(map[string]any)
		if !ok {
			return nil, false
		}
		f, ok := callOf(obj, offered)
		if !ok {
			return nil, false
		}
		f.Form = form
		f.Repaired = joinFixes(fixed, f.Repaired)
		out = append(out, f)
	}
	return out, true
}

// callOf reads one call object: {"name", "arguments"} or its variants
// ("parameters", "args", "input"), perhaps inside {"function": ...}.
func callOf(obj map[string]any, offered []string) (found, bool) {
	if fn, ok := obj["function"].(map[string]any); ok {
		for k := range obj {
			if k != "function" && k != "type" && k != "id" {
				return found{}, false
			}
		}
		obj = fn
	}
	name, ok := obj["name"].(string)
	if !ok || !slices.Contains(offered, name) {
		return found{}, false
	}
	var args any
	n := 0
	for k, v := range obj {
		switch k {
		case "name", "type", "id":
		case "arguments", "parameters", "args", "input":
			args = v
			n++
		default:
			return found{}, false
		}
	}
	if n != 1 {
		return found{}, false
	}
	var f found
	f.Name = name
	if s, ok := args.(string); ok {
		// A JSON string holding the arguments object.
		v, fixed, ok := tolerant(s)
		if _, isObj := v.(map[string]any); !ok || !isObj {
			return found{}, false
		}
		args = v
		f.Repaired = joinFixes("the arguments were a JSON string holding the object", fixed)
	}
	if args == nil {
		args = map[string]any{}
	}
	if _, ok := args.(map[string]any); !ok {
		return found{}, false
	}
	b, err := json.Marshal(args)
	if err != nil {
		return found{}, false
	}
	f.Args = b
	return f, true
}

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

// rescueOf is what the tool_call event says of a recovered or repaired
// call.
func (f found) rescue(callID string) trace.Rescue {
	return trace.Rescue{CallID: callID, Recovered: true, Form: f.Form, Text: f.Text, Repaired: f.Repaired, Unparsed: f.Unparsed}
}

// rescue makes calls of what the model printed as text (when the setting
// is on and the answer asked for none) and repairs arguments that are not
// a JSON object but plainly mean one. What it did is kept in the answer,
// with the text as written, so the history the model is shown next holds
// the assistant message with those calls.
func (r *run) rescue(answer *trace.ModelResponse) {
	if len(answer.ToolCalls) == 0 && r.cfg.RecoverTextCalls && len(r.names) > 0 {
		calls, rest := recoverCalls(answer.Content, r.names)
		if len(calls) > 0 {
			answer.Printed = answer.Content
			answer.Content = rest
			for i, f := range calls {
				id := fmt.Sprintf("call_%d_%d_%d", r.num, r.round, i)
				answer.ToolCalls = append(answer.ToolCalls, llm.ToolCall{ID: id, Index: i, Name: f.Name, Args: f.Args})
				rs := f.rescue(id)
				if f.Unparsed {
					rs.Original = f.Bad
				} else if f.Repaired != "" {
					rs.Original = f.Text
				}
				answer.Rescued = append(answer.Rescued, rs)
			}
		}
	}
	for i, c := range answer.ToolCalls {
		fixed, how, ok := repairArgs(c.Args)
		if !ok {
			continue
		}
		answer.ToolCalls[i].Args = fixed
		answer.Rescued = append(answer.Rescued, trace.Rescue{CallID: c.ID, Repaired: how, Original: string(c.Args)})
	}
	for _, rs := range answer.Rescued {
		r.rescues[rs.CallID] = rs
		if rs.Unparsed {
			r.bad[rs.CallID] = rs.Original
		}
	}
}
