package gguf

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"text/template"
	"text/template/parse"
)

// readGGUF is an independent reader for what encode writes: enough to check the
// layout and to run the model's table by hand.
type ggufFile struct {
	version uint32
	kv      map[string]any
	tensors map[string][]float32
	dims    map[string][]uint64
}

func readGGUF(t *testing.T, b []byte) ggufFile {
	t.Helper()
	r := bytes.NewReader(b)
	rd := func(v any) {
		t.Helper()
		if err := binary.Read(r, binary.LittleEndian, v); err != nil {
			t.Fatalf("read: %v", err)
		}
	}
	str := func() string {
		var n uint64
		rd(&n)
		s := make([]byte, n)
		rd(s)
		return string(s)
	}
	var magic [4]byte
	rd(&magic)
	if string(magic[:]) != "GGUF" {
		t.Fatalf("magic %q", magic)
	}
	f := ggufFile{kv: map[string]any{}, tensors: map[string][]float32{}, dims: map[string][]uint64{}}
	rd(&f.version)
	var nt, nkv uint64
	rd(&nt)
	rd(&nkv)
	var scalar func(typ uint32) any
	scalar = func(typ uint32) any {
		switch typ {
		case typeUint32:
			var v uint32
			rd(&v)
			return v
		case 5:
			var v int32
			rd(&v)
			return v
		case typeFloat32:
			var v float32
			rd(&v)
			return v
		case typeBool:
			var v uint8
			rd(&v)
			return v == 1
		case typeString:
			return str()
		case typeArray:
			var et uint32
			var n uint64
			rd(&et)
			rd(&n)
			out := make([]any, n)
			for i := range out {
				out[i] = scalar(et)
			}
			return out
		}
		t.Fatalf("unknown type %d", typ)
		return nil
	}
	for range nkv {
		k := str()
		var typ uint32
		rd(&typ)
		f.kv[k] = scalar(typ)
	}
	type info struct {
		name   string
		dims   []uint64
		offset uint64
	}
	var infos []info
	for range nt {
		in := info{name: str()}
		var nd uint32
		rd(&nd)
		in.dims = make([]uint64, nd)
		rd(in.dims)
		var typ uint32
		rd(&typ)
		if typ != tensorF32 {
			t.Fatalf("%s: type %d", in.name, typ)
		}
		rd(&in.offset)
		infos = append(infos, in)
	}
	pos := int64(len(b)) - int64(r.Len())
	data := (pos + ggufAlignment - 1) / ggufAlignment * ggufAlignment
	for _, in := range infos {
		if in.offset%ggufAlignment != 0 {
			t.Errorf("%s: offset %d not aligned", in.name, in.offset)
		}
		n := uint64(1)
		for _, d := range in.dims {
			n *= d
		}
		start := uint64(data) + in.offset
		if start+4*n > uint64(len(b)) {
			t.Fatalf("%s: data past end of file", in.name)
		}
		vals := make([]float32, n)
		for i := range vals {
			vals[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[start+4*uint64(i):]))
		}
		f.tensors[in.name] = vals
		f.dims[in.name] = in.dims
	}
	return f
}

// generate runs the model greedily from one token, the way its single layer
// computes when attention and FFN outputs are zero: logits = output · rmsnorm(embd).
func (f ggufFile) generate(t *testing.T, from int, max int) []string {
	t.Helper()
	tokens := f.kv["tokenizer.ggml.tokens"].([]any)
	h := int(f.dims["token_embd.weight"][0])
	embd, out := f.tensors["token_embd.weight"], f.tensors["output.weight"]
	eos := int(f.kv["tokenizer.ggml.eos_token_id"].(uint32))
	var got []string
	tok := from
	for range max {
		x := embd[tok*h : (tok+1)*h]
		var ss float64
		for _, v := range x {
			ss += float64(v * v)
		}
		scale := 1 / math.Sqrt(ss/float64(h)+1e-5)
		best, bestLogit, second := -1, math.Inf(-1), math.Inf(-1)
		for v := range tokens {
			var l float64
			for i := range h {
				l += float64(out[v*h+i]) * float64(x[i]) * scale
			}
			if l > bestLogit {
				best, second, bestLogit = v, bestLogit, l
			} else if l > second {
				second = l
			}
		}
		if bestLogit-second < 100 {
			t.Fatalf("after %q the winning logit leads by only %.1f", tokens[tok], bestLogit-second)
		}
		if best == eos {
			return got
		}
		got = append(got, tokens[best].(string))
		tok = best
	}
	return got
}

func tokenID(t *testing.T, f ggufFile, text string) int {
	t.Helper()
	for i, s := range f.kv["tokenizer.ggml.tokens"].([]any) {
		if s == text {
			return i
		}
	}
	t.Fatalf("no token %q", text)
	return -1
}

func TestWriteRunsTheScript(t *testing.T) {
	s := Script{Steps: []Step{
		{Call: []Call{{Name: "list_dir", Args: `{"path":"."}`}}},
		{Answer: "Reading both.", Call: []Call{{Name: "read_file", Args: `{"path":"a.txt"}`}, {Name: "read_file", Args: `{"path":"b.txt"}`}}},
		{Think: "The files say hi.", Answer: "Both say hi."},
		{Raw: []string{"<tool_call>\n{\"name\": ", "\"write_file\"}"}},
		{Answer: "Counting:", Repeat: " more"},
		{},
	}}
	var b bytes.Buffer
	if err := Write(&b, s); err != nil {
		t.Fatal(err)
	}
	f := readGGUF(t, b.Bytes())
	if f.version != 3 {
		t.Errorf("version %d", f.version)
	}
	if got := f.kv["general.architecture"]; got != "llama" {
		t.Errorf("architecture %v", got)
	}
	if got := f.kv["tokenizer.ggml.add_bos_token"]; got != false {
		t.Errorf("add_bos_token %v", got)
	}
	if n := len(f.kv["tokenizer.ggml.tokens"].([]any)); n != len(f.kv["tokenizer.ggml.token_type"].([]any)) || uint32(n) != f.kv["llama.vocab_size"] {
		t.Errorf("vocabulary arrays disagree")
	}
	if len(f.tensors) != 12 {
		t.Errorf("%d tensors, want 12", len(f.tensors))
	}

	call := func(name, args string) string {
		return "<tool_call>\n{\"name\": \"" + name + "\", \"arguments\": " + args + "}\n</tool_call>"
	}
	want := [][]string{
		{call("list_dir", `{"path":"."}`)},
		{"Reading both.", call("read_file", `{"path":"a.txt"}`), "\n" + call("read_file", `{"path":"b.txt"}`)},
		{"<think>\nThe files say hi.\n</think>\n\n", "Both say hi."},
		{"<tool_call>\n{\"name\": ", "\"write_file\"}"},
		{"Counting:", " more", " more", " more", " more"},
		nil,
	}
	for k, w := range want {
		got := f.generate(t, tokenID(t, f, Selector(k)), 5)
		if fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("step %d: got %q, want %q", k, got, w)
		}
	}
	if got := f.generate(t, tokenID(t, f, selectorOver), 5); len(got) != 1 || got[0] != OverText {
		t.Errorf("past the end: got %q", got)
	}
	// An unexpected last prompt token ends the message at once.
	if got := f.generate(t, tokenID(t, f, "<0x41>"), 5); len(got) != 0 {
		t.Errorf("after a byte token: got %q", got)
	}
}

func TestWriteRejects(t *testing.T) {
	many := make([]Step, hiddenSize)
	for i := range many {
		many[i] = Step{Answer: fmt.Sprint("answer ", i)}
	}
	tests := []struct {
		name string
		s    Script
		want string
	}{
		{"bad args", Script{Steps: []Step{{Call: []Call{{Name: "x", Args: `[1]`}}}}}, "not a JSON object"},
		{"no name", Script{Steps: []Step{{Call: []Call{{Args: `{}`}}}}}, "no name"},
		{"raw and answer", Script{Steps: []Step{{Raw: []string{"a"}, Answer: "b"}}}, "Raw replaces"},
		{"reserved", Script{Steps: []Step{{Answer: "<|im_end|>"}}}, "reserved"},
		{"ambiguous", Script{Steps: []Step{{Raw: []string{"a", "b"}}, {Raw: []string{"a", "c"}}}}, "followed by"},
		{"too many", Script{Steps: many}, "states"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Write(&bytes.Buffer{}, tt.s)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// The values Ollama passes to chat templates, in the shapes the template uses.
type (
	tmplCall struct {
		Function struct {
			Name      string
			Arguments tmplArgs
		}
	}
	tmplArgs map[string]any
	tmplMsg  struct {
		Role, Content, Thinking string
		ToolCalls               []tmplCall
	}
	tmplTool struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
)

func (a tmplArgs) String() string { b, _ := json.Marshal(map[string]any(a)); return string(b) }

func render(t *testing.T, s Script, system string, tools []tmplTool, msgs []tmplMsg) string {
	t.Helper()
	funcs := template.FuncMap{"json": func(v any) string { b, _ := json.Marshal(v); return string(b) }}
	tm, err := template.New("").Option("missingkey=zero").Funcs(funcs).Parse(s.Template())
	if err != nil {
		t.Fatalf("template: %v", err)
	}
	var b strings.Builder
	err = tm.Execute(&b, map[string]any{"System": system, "Messages": msgs, "Tools": tools})
	if err != nil {
		t.Fatalf("execute: %v", err)
	}
	return b.String()
}

func TestTemplateSelectsTheTurn(t *testing.T) {
	s := Script{Steps: make([]Step, 2), Thinking: true}
	var tool tmplTool
	tool.Type = "function"
	tool.Function.Name = "list_dir"
	var call tmplCall
	call.Function.Name = "list_dir"
	call.Function.Arguments = tmplArgs{"path": "."}

	user := tmplMsg{Role: "user", Content: "What is here?"}
	asked := tmplMsg{Role: "assistant", Thinking: "Look first.", ToolCalls: []tmplCall{call, call}}
	result := tmplMsg{Role: "tool", Content: "README.md"}
	answer := tmplMsg{Role: "assistant", Content: "README.md."}

	tests := []struct {
		msgs []tmplMsg
		want string
	}{
		{[]tmplMsg{user}, Selector(0)},
		{[]tmplMsg{user, asked, result}, Selector(1)},
		{[]tmplMsg{user, asked, result, result}, Selector(1)},
		{[]tmplMsg{user, asked, result, answer, user}, selectorOver},
	}
	for i, tt := range tests {
		got := render(t, s, "Be brief.", []tmplTool{tool}, tt.msgs)
		if !strings.HasSuffix(got, "<|im_start|>assistant\n"+tt.want) {
			t.Errorf("case %d: prompt ends %q, want selector %s", i, got[max(0, len(got)-60):], tt.want)
		}
	}

	got := render(t, s, "Be brief.", []tmplTool{tool}, []tmplMsg{user, asked, result})
	for _, want := range []string{
		"<|im_start|>system\nBe brief.\n\n# Tools",
		`{"type":"function","function":{"name":"list_dir"}}`,
		"<|im_start|>assistant\n<think>\nLook first.\n</think>\n\n<tool_call>\n{\"name\": \"list_dir\", \"arguments\": {\"path\":\".\"}}\n</tool_call>\n<tool_call>",
		"<tool_response>\nREADME.md\n</tool_response>",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("prompt lacks %q:\n%s", want, got)
		}
	}
}

func TestTemplateFeatures(t *testing.T) {
	for _, tt := range []struct {
		s            Script
		tools, think bool
	}{
		{Script{}, true, false},
		{Script{Thinking: true}, true, true},
		{Script{NoTools: true}, false, false},
		{Script{CompactTools: true}, true, false},
		{Script{NoTools: true, CompactTools: true}, false, false},
	} {
		tm := tt.s.Template()
		if got := strings.Contains(tm, ".Tools") && strings.Contains(tm, ".ToolCalls"); got != tt.tools {
			t.Errorf("%+v: uses tools = %v", tt.s, got)
		}
		if got := strings.Contains(tm, ".Thinking"); got != tt.think {
			t.Errorf("%+v: uses thinking = %v", tt.s, got)
		}
		if !strings.Contains(tt.s.Modelfile("/m.gguf"), "FROM /m.gguf\nTEMPLATE \"\"\"") {
			t.Errorf("Modelfile")
		}
	}
}

// toolCallTag finds the tool-call tag the way Ollama v0.17 documents it: the
// first text in the first {{ if }} on .ToolCalls, looking into {{ range }} but
// not past another {{ if }} or an action.
func toolCallTag(t *testing.T, tmpl string) string {
	t.Helper()
	tm, err := template.New("").Funcs(template.FuncMap{"json": json.Marshal}).Parse(tmpl)
	if err != nil {
		t.Fatal(err)
	}
	var block func(nodes []parse.Node) *parse.IfNode
	block = func(nodes []parse.Node) *parse.IfNode {
		for _, n := range nodes {
			var lists []*parse.ListNode
			switch n := n.(type) {
			case *parse.IfNode:
				if strings.Contains(n.Pipe.String(), ".ToolCalls") {
					return n
				}
				lists = []*parse.ListNode{n.List, n.ElseList}
			case *parse.RangeNode:
				lists = []*parse.ListNode{n.List, n.ElseList}
			case *parse.WithNode:
				lists = []*parse.ListNode{n.List, n.ElseList}
			}
			for _, l := range lists {
				if l != nil {
					if found := block(l.Nodes); found != nil {
						return found
					}
				}
			}
		}
		return nil
	}
	var first func(nodes []parse.Node) string
	first = func(nodes []parse.Node) string {
		for _, n := range nodes {
			switch n := n.(type) {
			case *parse.TextNode:
				if s := strings.TrimSpace(string(n.Text)); s != "" {
					tag, _, _ := strings.Cut(s, "{")
					return strings.TrimSpace(tag)
				}
			case *parse.RangeNode:
				return first(n.List.Nodes)
			default:
				return ""
			}
		}
		return ""
	}
	b := block(tm.Tree.Root.Nodes)
	if b == nil {
		return ""
	}
	return first(b.List.Nodes)
}

// CompactTools lists the tools by name only; the rest of the prompt is the
// same as with full schemas.
func TestTemplateCompactTools(t *testing.T) {
	tools := make([]tmplTool, 2)
	for i, name := range []string{"list_dir", "read_file"} {
		tools[i].Type = "function"
		tools[i].Function.Name = name
	}
	msgs := []tmplMsg{{Role: "user", Content: "What is here?"}}
	full := render(t, Script{Steps: make([]Step, 1)}, "Be brief.", tools, msgs)
	compact := render(t, Script{Steps: make([]Step, 1), CompactTools: true}, "Be brief.", tools, msgs)
	const (
		fullList    = "<tools>\n{\"type\":\"function\",\"function\":{\"name\":\"list_dir\"}}\n{\"type\":\"function\",\"function\":{\"name\":\"read_file\"}}\n</tools>"
		compactList = "<tools>\nlist_dir\nread_file\n</tools>"
	)
	if !strings.Contains(full, fullList) {
		t.Fatalf("full template lacks %q:\n%s", fullList, full)
	}
	if !strings.Contains(compact, compactList) {
		t.Fatalf("compact template lacks %q:\n%s", compactList, compact)
	}
	if got := strings.Replace(compact, compactList, fullList, 1); got != full {
		t.Errorf("compact prompt differs from the full one beyond the tool list:\n%s\n---\n%s", compact, full)
	}
	if got := toolCallTag(t, Script{CompactTools: true}.Template()); got != "<tool_call>" {
		t.Errorf("compact: tool-call tag %q, want <tool_call>", got)
	}
}

func TestTemplateToolCallTag(t *testing.T) {
	for _, s := range []Script{{}, {Thinking: true}} {
		if got := toolCallTag(t, s.Template()); got != "<tool_call>" {
			t.Errorf("thinking=%v: tool-call tag %q, want <tool_call>", s.Thinking, got)
		}
	}
	// The trap: an {{ if }} before the tag hides it, and Ollama then parses no calls.
	hidden := `{{ if .ToolCalls }}{{ range $i, $c := .ToolCalls }}{{ if $i }}
{{ end }}<tool_call>{{ end }}{{ end }}`
	if got := toolCallTag(t, hidden); got != "" {
		t.Errorf("hidden tag found as %q", got)
	}
}

// A script with a summary and steps after compaction: a request without
// tools asks for the summary; a conversation holding Loupe's summary
// message picks the after-compaction steps by its assistant messages.
func TestTemplateSelectsSummaryAndAfterCompaction(t *testing.T) {
	s := Script{Steps: make([]Step, 3), Summary: "a summary", AfterCompaction: make([]Step, 2)}
	var tool tmplTool
	tool.Type = "function"
	tool.Function.Name = "list_dir"
	user := tmplMsg{Role: "user", Content: "What is here?"}
	summary := tmplMsg{Role: "user", Content: "[Loupe compacted the conversation: this summary…"}
	answer := tmplMsg{Role: "assistant", Content: "ok"}
	tools := []tmplTool{tool}
	for i, tt := range []struct {
		tools []tmplTool
		msgs  []tmplMsg
		want  string
	}{
		{tools, []tmplMsg{user, answer}, Selector(1)},
		{nil, []tmplMsg{user}, selectorSummary},
		{tools, []tmplMsg{summary}, AfterSelector(0)},
		{tools, []tmplMsg{summary, answer, user}, AfterSelector(1)},
		{tools, []tmplMsg{summary, answer, answer}, selectorOver},
	} {
		got := render(t, s, "Be brief.", tt.tools, tt.msgs)
		if !strings.HasSuffix(got, "<|im_start|>assistant\n"+tt.want) {
			t.Errorf("case %d: prompt ends %q, want selector %s", i, got[max(0, len(got)-60):], tt.want)
		}
	}
	if _, err := s.build(); err != nil {
		t.Fatal(err)
	}
}

// A script with sub-agent steps: a conversation whose system prompt is a
// sub-agent's picks them by its own assistant messages; the session's
// own requests keep the main steps.
func TestTemplateSelectsSubAgentSteps(t *testing.T) {
	s := Script{Steps: make([]Step, 3), SubAgent: make([]Step, 2)}
	var tool tmplTool
	tool.Type = "function"
	tool.Function.Name = "read_file"
	tools := []tmplTool{tool}
	user := tmplMsg{Role: "user", Content: "Find it"}
	answer := tmplMsg{Role: "assistant", Content: "ok"}
	sub := SubAgentMark + " of a coding agent."
	for i, tt := range []struct {
		system string
		msgs   []tmplMsg
		want   string
	}{
		{"Be brief.", []tmplMsg{user, answer}, Selector(1)},
		{sub, []tmplMsg{user}, SubSelector(0)},
		{sub, []tmplMsg{user, answer, user}, SubSelector(1)},
		{sub, []tmplMsg{user, answer, answer}, selectorOver},
		{"", []tmplMsg{user}, Selector(0)},
	} {
		got := render(t, s, tt.system, tools, tt.msgs)
		if !strings.HasSuffix(got, "<|im_start|>assistant\n"+tt.want) {
			t.Errorf("case %d: prompt ends %q, want selector %s", i, got[max(0, len(got)-60):], tt.want)
		}
	}
	if _, err := s.build(); err != nil {
		t.Fatal(err)
	}
}
