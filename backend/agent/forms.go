package agent

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// The forms small models print a tool call in when they do not make a
// native one, read from their chat templates and from the parsers that
// read them (Ollama's tools/ and model/parsers/, llama.cpp's
// common/chat.cpp). Each marker form is a token or a tag the model was
// trained to write around its calls; what it holds is a call or nothing.
// The forms without a marker (a code fence, the whole answer as JSON or
// as Python calls) count only when nothing else is in them.
const (
	formTag       = "tool_call tag"                         // Qwen 2.5/3, Hermes, Granite 4, Nemotron: <tool_call>{…}</tool_call>
	formMistral   = "[TOOL_CALLS] (Mistral)"                // [TOOL_CALLS][{…}], [TOOL_CALLS]name[ARGS]{…}
	formPythonTag = "<|python_tag|> (Llama)"                // Llama 3.x: <|python_tag|>{"name": …, "parameters": …}
	formGranite   = "<|tool_call|> (Granite, Phi)"          // Granite 3.x, Phi-4-mini: <|tool_call|>[{…}]
	formFunction  = "<function=…> (Llama 3.1, Functionary)" // <function=name>{…}</function>
	formDeepSeek  = "DeepSeek tool-call tokens"             // <｜tool▁call▁begin｜>name<｜tool▁sep｜>{…}<｜tool▁call▁end｜>
	formAction    = "<|START_ACTION|> (Command R)"          // <|START_ACTION|>[{"tool_name": …, "parameters": …}]<|END_ACTION|>
	formPyTokens  = "<|tool_call_start|> (LFM2)"            // <|tool_call_start|>[name(a=1)]<|tool_call_end|>
	formPyCalls   = "<function_calls> (OLMo)"               // <function_calls>name(a=1)</function_calls>
	formFence     = "code fence"                            // ```json / ```tool_code (Gemma) / ```tool_call …
	formJSON      = "json"                                  // the whole answer: Llama 3.2's bare {"name": …, "parameters": …}
	formPython    = "python call"                           // the whole answer: [name(a=1)] (Llama 3.2 pythonic, Gemma 3)
	formHarmony   = "harmony (gpt-oss)"                     // <|channel|>commentary to=functions.name <|constrain|>json<|message|>{…}<|call|>
	formUnknown   = "unknown form"                          // a call-shaped object in markup none of these reads
)

// DeepSeek's tokens use a full-width bar and a lower block for spaces;
// distilled models write them with ASCII too.
const dsBar, dsSp = `[｜|]`, `[▁_ ]`

func ds(words ...string) string { return `<` + dsBar + strings.Join(words, dsSp) + dsBar + `>` }

// marker is a form with a token or tag around its calls. re matches one
// span: group "inner" holds the call, group "name" the tool's name when
// the tag carries it. strip removes the wrapper tokens that hold no call.
type marker struct {
	form  string
	re    *regexp.Regexp
	strip *regexp.Regexp
	read  func(name, inner string, offered []string) ([]found, *miss)
}

var markers = []marker{
	{form: formDeepSeek,
		re:    regexp.MustCompile(`(?s)` + ds("tool", "call", "begin") + `(?P<inner>.*?)(?:` + ds("tool", "call", "end") + `|\z)`),
		strip: regexp.MustCompile(ds("tool", "calls", "begin") + `|` + ds("tool", "calls", "end") + `|` + ds("end", "of", "sentence")),
		read:  readDeepSeek},
	{form: formMistral,
		re:    regexp.MustCompile(`(?s)\[TOOL_CALLS\](?P<inner>.*?)(?:</s>|\z)`),
		strip: regexp.MustCompile(`</s>`),
		read:  readMistral},
	{form: formPythonTag,
		re:   regexp.MustCompile(`(?s)<\|python_tag\|>(?P<inner>.*?)(?:<\|eom_id\|>|<\|eot_id\|>|\z)`),
		read: readJSONOrPython},
	{form: formGranite,
		re:   regexp.MustCompile(`(?s)<\|tool_call\|>(?P<inner>.*?)(?:<\|/tool_call\|>|<\|end_of_text\|>|\z)`),
		read: readJSONOrPython},
	{form: formAction,
		re:   regexp.MustCompile(`(?s)<\|START_ACTION\|>(?P<inner>.*?)(?:<\|END_ACTION\|>|\z)`),
		read: readJSONOrPython},
	{form: formPyTokens,
		re:   regexp.MustCompile(`(?s)<\|tool_call_start\|>(?P<inner>.*?)(?:<\|tool_call_end\|>|\z)`),
		read: readJSONOrPython},
	{form: formPyCalls,
		re:   regexp.MustCompile(`(?s)<function_calls>(?P<inner>.*?)(?:</function_calls>|\z)`),
		read: readJSONOrPython},
	{form: formHarmony,
		re:    regexp.MustCompile(`(?s)to=functions\.(?P<name>[A-Za-z0-9_.-]+)[^<]*(?:<\|constrain\|>[^<]*)?<\|message\|>(?P<inner>.*?)(?:<\|call\|>|<\|end\|>|\z)`),
		strip: regexp.MustCompile(`<\|start\|>assistant|<\|channel\|>[a-z]*\s*`),
		read:  readFunction},
	{form: formTag,
		re:   regexp.MustCompile(`(?s)<(?:tool_call|function_call)>\s*(?P<inner>.*?)\s*(?:</(?:tool_call|function_call)>|\z)`),
		read: readTag},
	{form: formFunction,
		re:   regexp.MustCompile(`(?s)<function(?:=(?P<name>[^>\s]+)|\s+name="(?P<name2>[^"]+)")>(?P<inner>.*?)(?:</function>|\z)`),
		read: readFunction},
}

// miss says why text that plainly holds a call in some form was not read
// as one. unreadable is set when its text could not be decoded at all
// (broken or cut JSON), as opposed to a call of the wrong shape or of a
// tool that was not offered.
type miss struct {
	form, why, text string
	unreadable      bool
}

func notOffered(name string) *miss {
	return &miss{why: fmt.Sprintf("it calls %q, which is not one of the tools offered", name)}
}

// withForm completes a miss with the form and the span it was read from.
func (m *miss) withForm(form, text string) *miss {
	if m.form == "" {
		m.form = form
	}
	if m.text == "" {
		m.text = text
	}
	return m
}

// unreadable is the miss of a text whose JSON could not be decoded.
func unreadable(text string) *miss {
	why := "its JSON could not be read"
	if cut(text) {
		why = "its JSON is cut off before the end"
	}
	return &miss{why: why, unreadable: true}
}

// cut reports whether text opens more brackets than it closes (outside
// strings): JSON that stopped before its end.
func cut(text string) bool {
	depth, in, esc := 0, byte(0), false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case esc:
			esc = false
		case in != 0 && c == '\\':
			esc = true
		case in != 0:
			if c == in {
				in = 0
			}
		case c == '"' || c == '\'':
			in = c
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		}
	}
	return depth > 0 || in != 0
}

// readTag reads what a <tool_call> tag holds: JSON (one call or a list),
// Qwen3-Coder's <function=name><parameter=k>v</parameter></function>, or
// GLM's name<arg_key>k</arg_key><arg_value>v</arg_value>.
func readTag(_, inner string, offered []string) ([]found, *miss) {
	t := strings.TrimSpace(inner)
	if m := fnTagRe.FindStringSubmatch(t); m != nil {
		return readFunction(m[1]+m[2], m[3], offered)
	}
	if m := glmRe.FindStringSubmatch(t); m != nil {
		return readGLM(m[1], m[2], offered)
	}
	return readJSONOrPython("", t, offered)
}

var (
	fnTagRe  = regexp.MustCompile(`(?s)^<function(?:=([^>\s]+)|\s+name="([^"]+)")>(.*?)(?:</function>\s*)?$`)
	paramRe  = regexp.MustCompile(`(?s)<parameter=([^>\s]+)>\n?(.*?)\n?</parameter>`)
	glmRe    = regexp.MustCompile(`(?s)^([A-Za-z0-9_.-]+)\s*(<arg_key>.*)$`)
	glmArgRe = regexp.MustCompile(`(?s)<arg_key>(.*?)</arg_key>\s*<arg_value>(.*?)</arg_value>`)
)

// readFunction reads a call whose tag names the tool: its arguments are a
// JSON object, or <parameter=k>v</parameter> elements (Qwen3-Coder).
func readFunction(name, inner string, offered []string) ([]found, *miss) {
	name = strings.Trim(name, `"`)
	if !slices.Contains(offered, name) {
		return nil, notOffered(name)
	}
	t := strings.TrimSpace(inner)
	if strings.HasPrefix(t, "<parameter=") || t == "" {
		args := map[string]any{}
		for _, p := range paramRe.FindAllStringSubmatch(t, -1) {
			args[p[1]] = paramValue(p[2])
		}
		return oneCall(name, args, "")
	}
	return argsCall(name, t)
}

// readGLM reads GLM's name<arg_key>k</arg_key><arg_value>v</arg_value>.
func readGLM(name, rest string, offered []string) ([]found, *miss) {
	if !slices.Contains(offered, name) {
		return nil, notOffered(name)
	}
	args := map[string]any{}
	for _, p := range glmArgRe.FindAllStringSubmatch(rest, -1) {
		args[strings.TrimSpace(p[1])] = paramValue(p[2])
	}
	return oneCall(name, args, "")
}

// paramValue reads a value written as text between tags: JSON when it is
// a number, a boolean, an object or a list, the text itself otherwise.
func paramValue(s string) any {
	t := strings.TrimSpace(s)
	var v any
	if t != "" && strings.ContainsAny(t[:1], "{[-0123456789tfn") && decodeOne(t, &v) {
		if _, isStr := v.(string); !isStr {
			return v
		}
	}
	return s
}

// argsCall is a call of name whose arguments are the JSON text args.
func argsCall(name, args string) ([]found, *miss) {
	v, fixed, ok := tolerant(args)
	if !ok {
		m := unreadable(args)
		return []found{{Name: name, Args: json.RawMessage("{}"), Unparsed: true, Bad: args}}, m
	}
	obj, isObj := v.(map[string]any)
	if !isObj {
		return nil, &miss{why: "its arguments are not a JSON object"}
	}
	return oneCall(name, obj, fixed)
}

func oneCall(name string, args map[string]any, fixed string) ([]found, *miss) {
	b, err := json.Marshal(args)
	if err != nil {
		return nil, &miss{why: "its arguments could not be written as JSON"}
	}
	return []found{{Name: name, Args: b, Repaired: fixed}}, nil
}

var mistralRe = regexp.MustCompile(`(?s)^([A-Za-z0-9_.-]+)(?:\[CALL_ID\][A-Za-z0-9_-]*)?\[ARGS\](.*)$`)

// readMistral reads what follows [TOOL_CALLS]: a JSON list of calls
// (Mistral 7B v0.3, Nemo, Small) or name[ARGS]{…} (the newer templates:
// Ministral 3, Magistral, Devstral), perhaps with a [CALL_ID].
func readMistral(_, inner string, offered []string) ([]found, *miss) {
	var out []found
	// Calls one after the other repeat the token.
	for _, piece := range strings.Split(inner, "[TOOL_CALLS]") {
		t := strings.TrimSpace(piece)
		var fs []found
		var m *miss
		if mm := mistralRe.FindStringSubmatch(t); mm != nil {
			if !slices.Contains(offered, mm[1]) {
				return nil, notOffered(mm[1])
			}
			fs, m = argsCall(mm[1], strings.TrimSpace(mm[2]))
		} else {
			fs, m = readJSONOrPython("", t, offered)
		}
		if m != nil {
			return fs, m
		}
		out = append(out, fs...)
	}
	return out, nil
}

// readDeepSeek reads one call between DeepSeek's call tokens: V3.1's
// name<｜tool▁sep｜>{…}, or R1's and V3's
// function<｜tool▁sep｜>name\n```json\n{…}\n```.
func readDeepSeek(_, inner string, offered []string) ([]found, *miss) {
	parts := dsSepRe.Split(inner, 2)
	if len(parts) != 2 {
		return nil, &miss{why: "the call has no tool separator between name and arguments", unreadable: true}
	}
	name, args := strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1])
	if name == "function" {
		name, args, _ = strings.Cut(args, "\n")
		name = strings.TrimSpace(name)
		args = strings.TrimSpace(args)
		args = strings.TrimPrefix(args, "```json")
		args = strings.TrimPrefix(args, "```")
		args = strings.TrimSpace(strings.TrimSuffix(args, "```"))
	}
	if !slices.Contains(offered, name) {
		return nil, notOffered(name)
	}
	return argsCall(name, args)
}

var dsSepRe = regexp.MustCompile(ds("tool", "sep"))

// readJSONOrPython reads text that is wholly calls: JSON (one, a list,
// several in a row) or Python-style calls.
func readJSONOrPython(_, text string, offered []string) ([]found, *miss) {
	t := strings.TrimSpace(text)
	if t == "" {
		return nil, &miss{why: "it holds no call"}
	}
	if t[0] == '{' || t[0] == '[' && !pyStartRe.MatchString(t) {
		return readJSON(t, offered)
	}
	if pyStartRe.MatchString(t) {
		return pyCalls(t, offered)
	}
	return nil, &miss{why: "it holds no call Loupe can read"}
}

// readJSON reads JSON that is wholly one call, a list of calls, a
// {"tool_calls": […]} wrapper, or calls one after the other (separated by
// spaces or semicolons, as Llama 3.x writes parallel calls).
func readJSON(t string, offered []string) ([]found, *miss) {
	fs, m := parseCalls(t, offered)
	if m == nil || !m.unreadable {
		return fs, m
	}
	var out []found
	for rest := t; rest != ""; {
		dec := json.NewDecoder(strings.NewReader(rest))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return fs, m
		}
		b, _ := json.Marshal(v)
		one, m1 := parseCalls(string(b), offered)
		if m1 != nil {
			return nil, m1
		}
		out = append(out, one...)
		rest = strings.TrimLeft(rest[dec.InputOffset():], " \t\r\n;,")
	}
	if len(out) < 2 {
		return fs, m
	}
	return out, nil
}

// pyStartRe is the start of Python-style calls: name(, print(name(, or a
// list of them, as Gemma, Llama 3.2 (pythonic), LFM2 and OLMo write them.
var pyStartRe = regexp.MustCompile(`^\[?\s*[A-Za-z_][A-Za-z0-9_.]*\s*\(`)

// pyCalls reads Python-style calls: name(k=v, …), alone, one per line, or
// in a list, perhaps wrapped in print(…) and named with a module
// (default_api.name) or Llama's .call. Values are Python literals.
func pyCalls(text string, offered []string) ([]found, *miss) {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") {
		t = strings.TrimSpace(t[1 : len(t)-1])
	}
	var out []found
	for t != "" {
		name, args, rest, m := pyCall(t)
		if m != nil {
			return nil, m
		}
		if name == "print" {
			// print(name(…)): the call is inside.
			inner, iargs, irest, im := pyCall(strings.TrimSpace(args))
			if im != nil || strings.TrimSpace(irest) != "" {
				return nil, &miss{why: "it prints something other than one call"}
			}
			name, args = inner, iargs
		}
		name = pyName(name, offered)
		if !slices.Contains(offered, name) {
			return nil, notOffered(name)
		}
		obj, am := pyArgs(args)
		if am != nil {
			return nil, am
		}
		fs, om := oneCall(name, obj, "")
		if om != nil {
			return nil, om
		}
		out = append(out, fs...)
		t = strings.TrimLeft(rest, " \t\r\n,;")
	}
	if len(out) == 0 {
		return nil, &miss{why: "it holds no call"}
	}
	return out, nil
}

// pyName is the tool a dotted Python name calls: the whole name when a
// tool has it (MCP tools have dots), else without a module prefix or a
// .call suffix.
func pyName(name string, offered []string) string {
	if slices.Contains(offered, name) {
		return name
	}
	name = strings.TrimSuffix(name, ".call")
	if i := strings.LastIndexByte(name, '.'); i >= 0 && !slices.Contains(offered, name) {
		return name[i+1:]
	}
	return name
}

// pyCall reads one name(…) at the start of t: the name, the text between
// the parentheses, and what follows.
func pyCall(t string) (name, args, rest string, m *miss) {
	i := 0
	for i < len(t) && (isIdent(t[i]) && t[i] != '-' && t[i] != '+') {
		i++
	}
	name = t[:i]
	j := i
	for j < len(t) && (t[j] == ' ' || t[j] == '\t') {
		j++
	}
	if name == "" || j >= len(t) || t[j] != '(' {
		return "", "", "", &miss{why: "it holds something other than calls"}
	}
	end, ok := closeAt(t, j)
	if !ok {
		return "", "", "", &miss{why: "a call's parentheses do not close", unreadable: true}
	}
	return name, t[j+1 : end], t[end+1:], nil
}

// closeAt finds the bracket that closes the one at open, outside strings.
func closeAt(t string, open int) (int, bool) {
	depth, in, esc := 0, byte(0), false
	for i := open; i < len(t); i++ {
		c := t[i]
		switch {
		case esc:
			esc = false
		case in != 0 && c == '\\':
			esc = true
		case in != 0:
			if c == in {
				in = 0
			}
		case c == '"' || c == '\'':
			in = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
			if depth == 0 {
				return i, true
			}
		}
	}
	return 0, false
}

// pyArgs reads k=v, … with Python literal values into an object.
func pyArgs(s string) (map[string]any, *miss) {
	args := map[string]any{}
	for _, part := range splitTop(s) {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \"'([{") {
			return nil, &miss{why: "a call has an argument without a name"}
		}
		val, _, ok := tolerant(strings.TrimSpace(v))
		if !ok {
			return nil, &miss{why: fmt.Sprintf("the argument %s is not a literal value", k), unreadable: true}
		}
		args[k] = val
	}
	return args, nil
}

// splitTop splits s at the commas outside brackets and strings.
func splitTop(s string) []string {
	var out []string
	depth, in, esc, start := 0, byte(0), false, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case esc:
			esc = false
		case in != 0 && c == '\\':
			esc = true
		case in != 0:
			if c == in {
				in = 0
			}
		case c == '"' || c == '\'':
			in = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case c == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
