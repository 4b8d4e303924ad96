package otlp

import (
	"encoding/json"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/trace"
)

// The GenAI conventions' message shapes (gen_ai.input.messages,
// gen_ai.output.messages, gen_ai.system_instructions): a message is a role
// and its parts, each part typed. They are attributes holding JSON text.
type message struct {
	Role         string `json:"role"`
	Parts        []part `json:"parts"`
	FinishReason string `json:"finish_reason,omitempty"`
}

type part struct {
	Type    string `json:"type"`
	Content string `json:"content,omitempty"`
	// A tool call (type tool_call) and its answer (tool_call_response).
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Response  *string         `json:"response,omitempty"`
}

func textParts(text string) string {
	return mustJSON([]part{{Type: "text", Content: text}})
}

func textMessages(role, text, finish string) string {
	return mustJSON([]message{{Role: role, Parts: []part{{Type: "text", Content: text}}, FinishReason: finish}})
}

// inputMessages is the conversation a request sent, as the conventions
// write it.
func inputMessages(msgs []llm.Message) string {
	out := make([]message, 0, len(msgs))
	for _, m := range msgs {
		out = append(out, convMessage(m, ""))
	}
	return mustJSON(out)
}

// outputMessages is the model's answer.
func outputMessages(p trace.ModelResponse) string {
	m := llm.Message{Role: llm.RoleAssistant, Content: p.Content, Thinking: p.Thinking, ToolCalls: p.ToolCalls}
	return mustJSON([]message{convMessage(m, p.DoneReason)})
}

func convMessage(m llm.Message, finish string) message {
	out := message{Role: m.Role, FinishReason: finish, Parts: []part{}}
	if m.Role == llm.RoleTool {
		content := m.Content
		out.Parts = append(out.Parts, part{Type: "tool_call_response", ID: m.ToolCallID, Response: &content})
		return out
	}
	if m.Thinking != "" {
		out.Parts = append(out.Parts, part{Type: "reasoning", Content: m.Thinking})
	}
	if m.Content != "" {
		out.Parts = append(out.Parts, part{Type: "text", Content: m.Content})
	}
	for _, c := range m.ToolCalls {
		args := c.Args
		if !json.Valid(args) {
			// Arguments a model wrote that are not JSON are kept as
			// the text it wrote.
			args, _ = json.Marshal(string(c.Args))
		}
		out.Parts = append(out.Parts, part{Type: "tool_call", ID: c.ID, Name: c.Name, Arguments: args})
	}
	return out
}
