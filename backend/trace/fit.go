package trace

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/loupe-dev/loupe/backend/llm"
)

// FitOf says what request r needs against numCtx: the whole prompt's
// estimate (needed, the request's PromptEstimate) and its parts, biggest
// first: the system prompt, the tool schemas, the history, and the latest
// observations (the tool results after the model's last message), with
// the biggest single message, and the ways out. The parts are estimated
// at rate, the session's bytes per token (see Rate).
func FitOf(r llm.Request, numCtx, needed int, rate Rate) Fit {
	var system, history, latest int
	var largest *FitPart
	last := -1
	for i, m := range r.Messages {
		if m.Role == llm.RoleAssistant {
			last = i
		}
	}
	for i, m := range r.Messages {
		b, _ := json.Marshal(m)
		n := rate.Tokens(len(b))
		switch {
		case m.Role == llm.RoleSystem:
			system += n
			continue
		case m.Role == llm.RoleTool && i > last:
			latest += n
		default:
			history += n
		}
		if largest == nil || n > largest.Tokens {
			largest = &FitPart{Name: messageName(i, m), Tokens: n}
		}
	}
	tools, _ := json.Marshal(r.Tools)
	parts := []FitPart{
		{Name: "system prompt", Tokens: system},
		{Name: fmt.Sprintf("tool schemas (%d tools)", len(r.Tools)), Tokens: rate.Tokens(len(tools))},
		{Name: "history", Tokens: history},
		{Name: "latest observations", Tokens: latest},
	}
	slices.SortStableFunc(parts, func(a, b FitPart) int { return b.Tokens - a.Tokens })
	return Fit{Needed: needed, NumCtx: numCtx, Parts: parts, Largest: largest, WaysOut: waysOut(needed, numCtx)}
}

func messageName(i int, m llm.Message) string {
	switch m.Role {
	case llm.RoleTool:
		if m.ToolName != "" {
			return fmt.Sprintf("message %d: the result of %s", i, m.ToolName)
		}
		return fmt.Sprintf("message %d: a tool result", i)
	case llm.RoleAssistant:
		return fmt.Sprintf("message %d: the model's answer", i)
	}
	return fmt.Sprintf("message %d: %s", i, m.Role)
}

func waysOut(needed, numCtx int) []string {
	return []string{
		"Compact the conversation now: older turns are summarised, the latest kept.",
		fmt.Sprintf("Raise num_ctx (now %d; about %d needed) in Settings, within what the model and this machine's memory can hold: a bigger context makes Ollama reload the model and use more memory.", numCtx, needed),
		"Drop old tool outputs (a long file read or command output) from the history at a pause, or ask for a smaller part of the file (read_file offset and limit).",
		"Offer fewer tools: each tool's schema is sent with every request.",
	}
}

// CutSuspected reports whether Ollama probably cut a prompt: it read as
// many tokens as the context holds.
func CutSuspected(m llm.Metrics, numCtx int) bool {
	return numCtx > 0 && m.PromptEvalCount >= numCtx
}
