package ollamatest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"text/template"
)

// ChatMLTemplate is the chat template a fake model gets unless its spec
// names another: ChatML with a tools section, in the shape of Qwen 2.5's
// template in Ollama's library, so a render-only request shows special
// tokens, the tool schemas in the system turn, a call in <tool_call> and a
// result framed by <tool_response>.
const ChatMLTemplate = `{{- if or .System .Tools }}<|im_start|>system
{{- if .System }}
{{ .System }}
{{- end }}
{{- if .Tools }}

# Tools

You may call one or more functions to assist with the user query.

You are provided with function signatures within <tools></tools> XML tags:
<tools>
{{- range .Tools }}
{{ json . }}
{{- end }}
</tools>

For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
<tool_call>
{"name": <function-name>, "arguments": <args-json-object>}
</tool_call>
{{- end }}<|im_end|>
{{ end }}
{{- range .Messages }}
{{- if eq .Role "user" }}<|im_start|>user
{{ .Content }}<|im_end|>
{{ else if eq .Role "assistant" }}<|im_start|>assistant
{{ if .Content }}{{ .Content }}
{{ end }}
{{- if .ToolCalls }}{{ range .ToolCalls }}<tool_call>
{"name": "{{ .Function.Name }}", "arguments": {{ .Function.Arguments }}}
</tool_call>
{{ end }}{{ end }}<|im_end|>
{{ else if eq .Role "tool" }}<|im_start|>user
<tool_response>
{{ .Content }}
</tool_response><|im_end|>
{{ end }}
{{- end }}<|im_start|>assistant
`

// renderOnly answers a chat request that set _debug_render_only, as Ollama
// v0.17.4 does (server/routes.go ChatHandler): one JSON object, whatever
// "stream" says, with the prompt in _debug_info.rendered_template and no
// model output. Like Ollama it runs the model's template (text/template
// with a json function, missing keys zero) over the system prompt (the
// system messages joined), the messages, consecutive ones of a role
// merged except tool results, and the tools; arguments print as JSON with
// sorted keys and schemas in Ollama's field order, as its template types
// encode them. A template that
// fails is a 500 with its error, as Ollama answers a chat prompt error.
func (s *Server) renderOnly(w http.ResponseWriter, req ChatRequest, m ModelSpec) {
	text, err := renderPrompt(m.Template, req)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, ChatResponse{
		Model:     req.Model,
		CreatedAt: s.now(),
		DebugInfo: &DebugInfo{RenderedTemplate: text},
	})
}

// tmplMessage, tmplCall and tmplTool are what a template sees of a
// message, a call and a tool, with Ollama's field names.
type tmplMessage struct {
	Role       string
	Content    string
	Thinking   string
	ToolCalls  []tmplCall
	ToolName   string
	ToolCallID string
}

type tmplCall struct {
	ID       string
	Function struct {
		Index     int
		Name      string
		Arguments sortedJSON
	}
}

type tmplTool struct {
	Type     string       `json:"type"`
	Function tmplFunction `json:"function"`
}

type tmplFunction struct {
	Name        string     `json:"name"`
	Description string     `json:"description"`
	Parameters  tmplParams `json:"parameters"`
}

// tmplParams and tmplProp print a schema in the field order of Ollama's
// templateToolFunctionParameters and api.ToolProperty, the properties by
// sorted name (a map there).
type tmplParams struct {
	Type       string              `json:"type"`
	Defs       any                 `json:"$defs,omitempty"`
	Items      any                 `json:"items,omitempty"`
	Required   []string            `json:"required,omitempty"`
	Properties map[string]tmplProp `json:"properties"`
}

type tmplProp struct {
	AnyOf       []tmplProp      `json:"anyOf,omitempty"`
	Type        json.RawMessage `json:"type,omitempty"`
	Items       any             `json:"items,omitempty"`
	Description string          `json:"description,omitempty"`
	Enum        []any           `json:"enum,omitempty"`
	Properties  json.RawMessage `json:"properties,omitempty"`
}

func paramsOf(raw json.RawMessage) tmplParams {
	var p tmplParams
	_ = json.Unmarshal(raw, &p)
	if p.Properties == nil {
		p.Properties = map[string]tmplProp{}
	}
	return p
}

// String prints the function as JSON, as Ollama's {{ .Function }} does.
func (f tmplFunction) String() string {
	b, _ := json.Marshal(f)
	return string(b)
}

// sortedJSON is a JSON value that prints and encodes with its object keys
// sorted: Ollama hands templates maps, which encoding/json sorts.
type sortedJSON json.RawMessage

func (j sortedJSON) value() any {
	var v any
	if len(j) == 0 || json.Unmarshal(j, &v) != nil {
		return map[string]any{}
	}
	return v
}

func (j sortedJSON) String() string {
	b, _ := json.Marshal(j.value())
	return string(b)
}

func (j sortedJSON) MarshalJSON() ([]byte, error) { return json.Marshal(j.value()) }

func renderPrompt(tmpl string, req ChatRequest) (string, error) {
	t, err := template.New("").Option("missingkey=zero").Funcs(template.FuncMap{
		"json": func(v any) string {
			b, _ := json.Marshal(v)
			return string(b)
		},
	}).Parse(tmpl)
	if err != nil {
		return "", fmt.Errorf("template: %w", err)
	}
	var system []string
	var msgs []*tmplMessage
	for _, m := range req.Messages {
		if m.Role == "system" {
			system = append(system, m.Content)
		}
		if n := len(msgs); n > 0 && msgs[n-1].Role == m.Role && m.Role != "tool" {
			msgs[n-1].Content += "\n\n" + m.Content
			continue
		}
		tm := &tmplMessage{Role: m.Role, Content: m.Content, Thinking: m.Thinking, ToolName: m.ToolName, ToolCallID: m.ToolCallID}
		for _, c := range m.ToolCalls {
			var tc tmplCall
			tc.ID = c.ID
			tc.Function.Index, tc.Function.Name, tc.Function.Arguments = c.Function.Index, c.Function.Name, sortedJSON(c.Function.Arguments)
			tm.ToolCalls = append(tm.ToolCalls, tc)
		}
		msgs = append(msgs, tm)
	}
	var tools []tmplTool
	for _, tl := range req.Tools {
		tools = append(tools, tmplTool{Type: tl.Type, Function: tmplFunction{
			Name: tl.Function.Name, Description: tl.Function.Description, Parameters: paramsOf(tl.Function.Parameters),
		}})
	}
	var b strings.Builder
	err = t.Execute(&b, map[string]any{
		"System":   strings.Join(system, "\n\n"),
		"Messages": msgs,
		"Tools":    tools,
		"Response": "",
		"Think":    req.ThinkOn(),
	})
	if err != nil {
		return "", fmt.Errorf("template: %w", err)
	}
	return b.String(), nil
}
