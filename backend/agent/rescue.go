package agent

import (
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

// nameRe finds a call's tool name in text that could not be decoded.
var nameRe = regexp.MustCompile(`["']?(?:name|tool_name)["']?\s*:\s*["']([A-Za-z0-9_.-]+)["']`)

// recoverCalls finds tool calls a model printed as text instead of asking
// for them (see forms.go for the forms). Only names in offered count, and
// text that is not plainly a call is left alone: a fence or a list
// holding anything else recovers nothing. rest is the text with the calls
// taken out.
func recoverCalls(content string, offered []string) (calls []found, rest string) {
	calls, rest, _ = readPrinted(content, offered)
	return calls, rest
}

// readPrinted is recoverCalls that also says, when it recovered nothing
// from text that plainly holds a call (a marker, a fence or JSON shaped
// as one), in which form and why not.
func readPrinted(content string, offered []string) ([]found, string, *miss) {
	// A marker says what it holds: each span is a call or nothing.
	for _, mk := range markers {
		if ms := mk.re.FindAllStringSubmatchIndex(content, -1); len(ms) > 0 {
			return takeMarked(content, mk, ms, offered)
		}
	}
	if fs := findFences(content); len(fs) > 0 {
		calls, rest, m := takeFences(content, fs, offered)
		if calls != nil || m != nil {
			return calls, rest, m
		}
	}
	calls, rest, m := takeBare(content, offered)
	if calls == nil && m == nil {
		if u := unknownRe.FindString(content); u != "" {
			m = &miss{form: formUnknown, why: "a call-shaped JSON object sits in markup or text that Loupe does not read as a call", text: strings.TrimSpace(u)}
		}
	}
	return calls, rest, m
}

// unknownRe is a call-shaped JSON object at the start of a line or right
// after a tag or token (a form none of the readers knows), as opposed to
// one quoted inside a sentence.
var unknownRe = regexp.MustCompile(`(?m)(?:^|>|\])[ \t]*\{\s*["']?(?:name|tool_name)["']?\s*:\s*["'][^"']+["']\s*,\s*["']?(?:arguments|parameters|args)["']?\s*:[^\n]*`)

// takeMarked reads each span of a marker form. A span whose text cannot
// be decoded but plainly names an offered tool is a call all the same,
// marked unparsed: it fails validation, so the model hears what is wrong.
func takeMarked(content string, mk marker, ms [][]int, offered []string) ([]found, string, *miss) {
	var out []found
	var b strings.Builder
	last := 0
	for _, m := range ms {
		span := content[m[0]:m[1]]
		name, inner := "", ""
		for i, g := range mk.re.SubexpNames() {
			if m[2*i] < 0 {
				continue
			}
			switch g {
			case "name", "name2":
				name = content[m[2*i]:m[2*i+1]]
			case "inner":
				inner = content[m[2*i]:m[2*i+1]]
			}
		}
		fs, why := mk.read(name, inner, offered)
		if why != nil {
			switch {
			case why.unreadable && len(fs) == 1 && fs[0].Unparsed:
			case why.unreadable && intended(name, inner, offered) != "":
				fs = []found{{Name: intended(name, inner, offered), Args: json.RawMessage("{}"), Unparsed: true, Bad: strings.TrimSpace(inner)}}
			default:
				return nil, content, why.withForm(mk.form, span)
			}
		}
		for i := range fs {
			fs[i].Form, fs[i].Text = mk.form, span
		}
		out = append(out, fs...)
		b.WriteString(content[last:m[0]])
		last = m[1]
	}
	b.WriteString(content[last:])
	rest := b.String()
	if mk.strip != nil {
		rest = mk.strip.ReplaceAllString(rest, "")
	}
	return out, strings.TrimSpace(rest), nil
}

// intended is the offered tool a marked span plainly calls when its text
// cannot be read: the tag's name, or the first name written in it.
func intended(name, inner string, offered []string) string {
	if slices.Contains(offered, name) {
		return name
	}
	candidates := []string{}
	if m := nameRe.FindStringSubmatch(inner); m != nil {
		candidates = append(candidates, m[1])
	}
	if m := mistralRe.FindStringSubmatch(strings.TrimSpace(inner)); m != nil {
		candidates = append(candidates, m[1])
	}
	if m := pyNameRe.FindStringSubmatch(strings.TrimSpace(inner)); m != nil {
		candidates = append(candidates, pyName(m[1], offered))
	}
	for _, c := range candidates {
		if slices.Contains(offered, c) {
			return c
		}
	}
	return ""
}

var pyNameRe = regexp.MustCompile(`^\[?\s*(?:print\(\s*)?([A-Za-z_][A-Za-z0-9_.]*)\s*\(`)

// fence is a code fence: its span, its info string and what it holds.
type fence struct {
	start, end int
	info       string
	inner      string
}

// findFences finds the code fences of content: from a line that starts
// with ``` to the next ```, or to the end when it does not close.
func findFences(content string) []fence {
	var out []fence
	for i := 0; i < len(content); {
		lineEnd := strings.IndexByte(content[i:], '\n')
		if lineEnd < 0 {
			lineEnd = len(content)
		} else {
			lineEnd += i
		}
		line := strings.TrimLeft(content[i:lineEnd], " \t")
		if !strings.HasPrefix(line, "```") || lineEnd == len(content) {
			i = lineEnd + 1
			continue
		}
		f := fence{start: i, info: strings.ToLower(strings.TrimSpace(strings.Trim(line, "`"))), inner: ""}
		body := lineEnd + 1
		if j := strings.Index(content[body:], "```"); j >= 0 {
			f.inner, f.end = content[body:body+j], body+j+3
		} else {
			f.inner, f.end = content[body:], len(content)
		}
		out = append(out, f)
		i = f.end
	}
	return out
}

// fenceInfos are the fences that may hold a call; the markers among them
// (Gemma's tool_code and the like) hold one or nothing.
var fenceInfos = map[string]bool{"": false, "json": false, "python": false, "py": false,
	"tool_code": true, "tool_call": true, "tool_calls": true, "tool_use": true, "function_call": true}

// takeFences recovers the calls of the fences when every fence that may
// hold one does: a fence of code or data beside them makes them an
// example.
func takeFences(content string, fences []fence, offered []string) ([]found, string, *miss) {
	var out []found
	var firstMiss *miss
	var b strings.Builder
	last, kept := 0, 0
	for _, f := range fences {
		marked, ok := fenceInfos[f.info]
		if !ok {
			continue
		}
		span := content[f.start:f.end]
		fs, why := readJSONOrPython("", f.inner, offered)
		if why != nil {
			if firstMiss == nil && (marked || callish(f.inner)) {
				firstMiss = why.withForm(formFence, span)
			}
			out = nil
			kept = -1
			continue
		}
		if kept < 0 {
			continue
		}
		form := formFence
		if len(fs) > 1 {
			form += " (list)"
		}
		for i := range fs {
			fs[i].Form, fs[i].Text = form, span
		}
		out = append(out, fs...)
		kept++
		b.WriteString(content[last:f.start])
		last = f.end
	}
	if kept < 0 {
		if span := readFence(content, fences, offered); firstMiss == nil && span != "" {
			firstMiss = &miss{form: formFence, why: "a code fence holds a call, but another holds something else, so Loupe read it as an example", text: span}
		}
		return nil, content, firstMiss
	}
	if kept == 0 {
		return nil, content, nil
	}
	b.WriteString(content[last:])
	return out, strings.TrimSpace(b.String()), nil
}

// readFence is the first fence that holds calls, or "".
func readFence(content string, fences []fence, offered []string) string {
	for _, f := range fences {
		if _, ok := fenceInfos[f.info]; !ok {
			continue
		}
		if _, why := readJSONOrPython("", f.inner, offered); why == nil {
			return content[f.start:f.end]
		}
	}
	return ""
}

// takeBare recovers an answer that is wholly calls (JSON, or Python-style
// calls), or ends with a JSON call on lines of its own after the prose
// that leads to it. JSON inside a sentence is an example, not a call.
func takeBare(content string, offered []string) ([]found, string, *miss) {
	t := strings.TrimSpace(content)
	if t == "" {
		return nil, content, nil
	}
	if t[0] == '{' || t[0] == '[' || pyStartRe.MatchString(t) {
		fs, why := readJSONOrPython("", t, offered)
		if why == nil {
			form := formJSON
			if t[0] != '{' && pyStartRe.MatchString(t) {
				form = formPython
			}
			if len(fs) > 1 {
				form += " (list)"
			}
			for i := range fs {
				fs[i].Form, fs[i].Text = form, t
			}
			return fs, "", nil
		}
		if callish(t) {
			form := formJSON
			if t[0] != '{' && pyListRe.MatchString(t) {
				form = formPython
			}
			return nil, content, why.withForm(form, t)
		}
		return nil, content, nil
	}
	// Prose, then a call on lines of its own to the end. A printed call is
	// short: only the answer's last tailWindow bytes are looked at, and
	// only where a line starts like a call, so a long answer of JSON lines
	// costs a few parses, not one per line.
	from := strings.LastIndex(content[:max(0, len(content)-tailWindow)], "\n") + 1
	for i, tries := strings.Index(content[from:], "\n{"), 0; i >= 0 && tries < maxTailTries; {
		at := from + i
		tail := strings.TrimSpace(content[at+1:])
		if callish(tail) {
			tries++
			fs, why := readJSON(tail, offered)
			if why == nil {
				for j := range fs {
					fs[j].Form, fs[j].Text = formJSON, tail
				}
				return fs, strings.TrimSpace(content[:at]), nil
			}
			if !textAfterValue(tail) {
				return nil, content, why.withForm(formJSON, tail)
			}
		}
		next := strings.Index(content[at+2:], "\n{")
		if next < 0 {
			break
		}
		i = at + 2 + next - from
	}
	return nil, content, nil
}

// How far back from the end of an answer a printed call is looked for,
// and at most how many starts are tried.
const (
	tailWindow   = 16 << 10
	maxTailTries = 4
)

// textAfterValue reports whether text is a whole JSON value followed by
// more text: a call among prose, not a call cut off.
func textAfterValue(text string) bool {
	dec := json.NewDecoder(strings.NewReader(text))
	var v any
	return dec.Decode(&v) == nil && strings.TrimSpace(text[dec.InputOffset():]) != ""
}

// callish reports whether text is shaped as a printed call: JSON that
// starts with an object or a list and names a tool with a "name" key, or
// a list of Python-style calls.
func callish(text string) bool {
	t := strings.TrimSpace(text)
	if t == "" {
		return false
	}
	head := t[:min(len(t), 200)]
	switch {
	case t[0] == '{' || t[0] == '[' && strings.Contains(head, "{"):
		return nameRe.MatchString(head)
	case t[0] == '[':
		return pyListRe.MatchString(t)
	}
	return false
}

var pyListRe = regexp.MustCompile(`^\[\s*[A-Za-z_][A-Za-z0-9_.]*\s*\(`)

// parseCalls reads text that is wholly one call, a list of calls, or a
// {"tool_calls": [...]} wrapper. It fails unless every element is a call
// to an offered tool, and says why.
func parseCalls(text string, offered []string) ([]found, *miss) {
	v, fixed, ok := tolerant(text)
	if !ok {
		return nil, unreadable(text)
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
	default:
		return nil, &miss{why: "it is not a JSON object or list"}
	}
	if len(items) == 0 {
		return nil, &miss{why: "it holds no call"}
	}
	var out []found
	for _, it := range items {
		obj, ok := it.(map[string]any)
		if !ok {
			return nil, &miss{why: "it lists something other than calls"}
		}
		f, why := callOf(obj, offered)
		if why != nil {
			return nil, why
		}
		f.Repaired = joinFixes(fixed, f.Repaired)
		out = append(out, f)
	}
	return out, nil
}

// callOf reads one call object: {"name", "arguments"} or its variants
// ("parameters", "args", "input"; Command R's "tool_name"), perhaps
// inside {"function": ...}. A call without arguments has none.
func callOf(obj map[string]any, offered []string) (found, *miss) {
	if fn, ok := obj["function"].(map[string]any); ok {
		for k := range obj {
			if k != "function" && k != "type" && k != "id" {
				return found{}, &miss{why: fmt.Sprintf("it has a key %q beside the function", k)}
			}
		}
		obj = fn
	}
	nameKey := "name"
	if _, ok := obj["name"]; !ok {
		nameKey = "tool_name"
	}
	name, ok := obj[nameKey].(string)
	if !ok {
		return found{}, &miss{why: "it names no tool"}
	}
	if !slices.Contains(offered, name) {
		return found{}, notOffered(name)
	}
	var args any
	n := 0
	for k, v := range obj {
		switch k {
		case nameKey, "type", "id", "tool_call_id":
		case "arguments", "parameters", "args", "input":
			args = v
			n++
		default:
			return found{}, &miss{why: fmt.Sprintf("it has a key %q that a call does not have", k)}
		}
	}
	if n > 1 {
		return found{}, &miss{why: "it gives its arguments twice"}
	}
	var f found
	f.Name = name
	if s, ok := args.(string); ok {
		// A JSON string holding the arguments object.
		v, fixed, ok := tolerant(s)
		if _, isObj := v.(map[string]any); !ok || !isObj {
			return found{}, &miss{why: "its arguments are text, not a JSON object"}
		}
		args = v
		f.Repaired = joinFixes("the arguments were a JSON string holding the object", fixed)
	}
	if args == nil {
		args = map[string]any{}
	}
	if _, ok := args.(map[string]any); !ok {
		return found{}, &miss{why: "its arguments are not a JSON object"}
	}
	b, err := json.Marshal(args)
	if err != nil {
		return found{}, &miss{why: "its arguments could not be written as JSON"}
	}
	f.Args = b
	return f, nil
}

// rescueOf is what the tool_call event says of a recovered or repaired
// call.
func (f found) rescue(callID string) trace.Rescue {
	return trace.Rescue{CallID: callID, Recovered: true, Form: f.Form, Text: f.Text, Repaired: f.Repaired, Unparsed: f.Unparsed}
}

// rescue makes calls of what the model printed as text (when the setting
// is on and the answer asked for none) and repairs arguments that are not
// a JSON object but plainly mean one. Text that plainly holds a call it
// does not make one (the setting off, a tool not offered, JSON cut off)
// is marked Unrecovered, so the run does not end as answered. What it did is kept in the answer,
// with the text as written, so the history the model is shown next holds
// the assistant message with those calls.
func (r *run) rescue(answer *trace.ModelResponse) {
	if len(answer.ToolCalls) == 0 && len(r.names) > 0 {
		calls, rest, why := readPrinted(answer.Content, r.names)
		switch {
		case len(calls) > 0 && !r.cfg.RecoverTextCalls:
			answer.Unrecovered = &trace.Unrecovered{Form: calls[0].Form, Text: calls[0].Text,
				Why: "recovering tool calls printed as text is off (Settings → The loop)"}
		case len(calls) > 0:
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
		case why != nil:
			answer.Unrecovered = &trace.Unrecovered{Form: why.form, Why: why.why, Text: why.text}
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
