package gguf

import (
	"fmt"
	"strings"
)

// Template returns the Modelfile TEMPLATE for the script: ChatML as Qwen models
// use it, so Ollama finds the tool-call tag, infers <think>/</think> from the
// {{ .Thinking }} block, and derives the capabilities from what the template
// uses.
//
// Ollama v0.17 takes the tag from the first text inside the first
// {{ if .ToolCalls }} block, looking into a {{ range }} but giving up at any
// nested {{ if }}: "<tool_call>" must come first in the range, with no {{ if }}
// before it, or Ollama falls back to bare JSON and no call is ever parsed.
//
// With CompactTools the tool list holds each tool's name instead of its JSON
// schema.
//
// It ends the prompt with the selector of the turn asked for: <|step_K|> where
// K counts the assistant messages so far, or <|step_end|> past the last step.
func (s Script) Template() string {
	var b strings.Builder

	// System prompt, and the tool list when the template supports tools.
	toolLine := "{{ json . }}"
	if s.CompactTools {
		toolLine = "{{ .Function.Name }}"
	}
	if s.NoTools {
		b.WriteString(`{{- if .System }}<|im_start|>system
{{ .System }}<|im_end|>
{{ end }}`)
	} else {
		b.WriteString(`{{- if or .System .Tools }}<|im_start|>system
{{- if .System }}
{{ .System }}
{{- end }}
{{- if .Tools }}

# Tools

You may call one or more functions to assist with the user query.

You are provided with function signatures within <tools></tools> XML tags:
<tools>
{{- range .Tools }}
` + toolLine + `
{{- end }}
</tools>

For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
<tool_call>
{"name": <function-name>, "arguments": <args-json-object>}
</tool_call>
{{- end }}<|im_end|>
{{ end }}`)
	}

	// The conversation. $turns gains one character per assistant message: text
	// templates have no arithmetic, but len works on strings.
	b.WriteString(`
{{- $turns := "" }}`)
	if len(s.AfterCompaction) > 0 {
		// A user message starting as Loupe's summary marks a compacted
		// conversation.
		b.WriteString(`
{{- $compacted := false }}
{{- range .Messages }}
{{- if and (eq .Role "user") (eq (printf "%.16s" .Content) "[Loupe compacted") }}{{ $compacted = true }}{{ end }}
{{- end }}`)
	}
	b.WriteString(`
{{- range .Messages }}
{{- if eq .Role "user" }}<|im_start|>user
{{ .Content }}<|im_end|>
{{ else if eq .Role "assistant" }}{{ $turns = printf "%s." $turns }}<|im_start|>assistant
`)
	if s.Thinking {
		b.WriteString(`{{ if .Thinking }}<think>
{{ .Thinking }}
</think>

{{ end }}`)
	}
	if s.NoTools {
		b.WriteString(`{{ .Content }}`)
	} else {
		b.WriteString(`{{ if .Content }}{{ .Content }}
{{ end }}
{{- if .ToolCalls }}{{ range .ToolCalls }}<tool_call>
{"name": "{{ .Function.Name }}", "arguments": {{ .Function.Arguments }}}
</tool_call>
{{ end }}{{ end }}`)
	}
	b.WriteString(`<|im_end|>
{{ else if eq .Role "tool" }}<|im_start|>user
<tool_response>
{{ .Content }}
</tool_response><|im_end|>
{{ end }}
{{- end }}<|im_start|>assistant
`)

	// The selector: the last token of every prompt.
	if s.Summary != "" && !s.NoTools {
		b.WriteString(`{{ if not .Tools }}` + selectorSummary + `{{ else }}`)
	}
	if len(s.SubAgent) > 0 {
		fmt.Fprintf(&b, `{{ if eq (printf "%%.%ds" .System) %q }}{{ if lt (len $turns) %d }}<|sub_{{ len $turns }}|>{{ else }}%s{{ end }}{{ else }}`,
			len(SubAgentMark), SubAgentMark, len(s.SubAgent), selectorOver)
	}
	if len(s.AfterCompaction) > 0 {
		fmt.Fprintf(&b, `{{ if $compacted }}{{ if lt (len $turns) %d }}<|after_{{ len $turns }}|>{{ else }}%s{{ end }}{{ else }}`,
			len(s.AfterCompaction), selectorOver)
	}
	fmt.Fprintf(&b, `{{ if lt (len $turns) %d }}<|step_{{ len $turns }}|>{{ else }}%s{{ end }}`,
		len(s.Steps), selectorOver)
	if len(s.AfterCompaction) > 0 {
		b.WriteString(`{{ end }}`)
	}
	if len(s.SubAgent) > 0 {
		b.WriteString(`{{ end }}`)
	}
	if s.Summary != "" && !s.NoTools {
		b.WriteString(`{{ end }}`)
	}
	return b.String()
}

// Parameters returns the model parameters to create the model with.
func (s Script) Parameters() map[string]any {
	numCtx := s.NumCtx
	if numCtx == 0 {
		numCtx = DefaultNumCtx
	}
	return map[string]any{"num_ctx": numCtx}
}

// Modelfile returns a Modelfile for `ollama create -f`, with FROM pointing at
// the GGUF file written by WriteFile.
func (s Script) Modelfile(ggufPath string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "FROM %s\n", ggufPath)
	fmt.Fprintf(&b, "TEMPLATE \"\"\"%s\"\"\"\n", s.Template())
	for k, v := range s.Parameters() {
		fmt.Fprintf(&b, "PARAMETER %s %v\n", k, v)
	}
	return b.String()
}
