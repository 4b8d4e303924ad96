package trace

import (
	"encoding/json"
	"fmt"

	"github.com/loupe-dev/loupe/backend/llm"
)

// formsHistory tells whether an event of this kind becomes a message.
func formsHistory(k Kind) bool {
	return k == KindUserMessage || k == KindModelResponse || k == KindToolResult
}

// HistorySeqs lists, in order, the events that form the conversation so far.
func HistorySeqs(events []Event) []int64 {
	seqs := make([]int64, 0, len(events))
	for _, e := range events {
		if formsHistory(e.Kind) {
			seqs = append(seqs, e.Seq)
		}
	}
	return seqs
}

// Messages projects the named events to chat messages, after the system
// prompt. An incomplete model message keeps its text but not its tool calls,
// which never ran and have no results.
func Messages(events []Event, system string, seqs []int64) ([]llm.Message, error) {
	bySeq := make(map[int64]Event, len(seqs))
	want := make(map[int64]bool, len(seqs))
	for _, s := range seqs {
		want[s] = true
	}
	for _, e := range events {
		if want[e.Seq] {
			bySeq[e.Seq] = e
		}
	}
	msgs := make([]llm.Message, 0, len(seqs)+1)
	if system != "" {
		msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: system})
	}
	for _, s := range seqs {
		e, ok := bySeq[s]
		if !ok {
			return nil, fmt.Errorf("trace: history names event %d, which is not in the log", s)
		}
		m, err := message(e)
		if err != nil {
			return nil, err
		}
		if m.Role == llm.RoleAssistant && m.Content == "" && m.Thinking == "" && len(m.ToolCalls) == 0 {
			// A request that failed before the model said anything left
			// an empty message: sending it back would only confuse.
			continue
		}
		msgs = append(msgs, m)
	}
	return msgs, nil
}

func message(e Event) (llm.Message, error) {
	switch e.Kind {
	case KindUserMessage:
		p, err := Decode[UserMessage](e)
		return llm.Message{Role: llm.RoleUser, Content: p.Text}, err
	case KindModelResponse:
		p, err := Decode[ModelResponse](e)
		m := llm.Message{Role: llm.RoleAssistant, Content: p.Content, Thinking: p.Thinking}
		if !p.Incomplete {
			m.ToolCalls = p.ToolCalls
		}
		return m, err
	case KindToolResult:
		p, err := Decode[ToolResult](e)
		return llm.Message{Role: llm.RoleTool, Content: p.Content, ToolCallID: p.CallID, ToolName: p.Name}, err
	}
	return llm.Message{}, fmt.Errorf("trace: event %d of kind %s is not part of a history", e.Seq, e.Kind)
}

// BuildRequest rebuilds the model request that a model_request event
// describes. The agent calls it to make the request it sends, and the Raw
// view calls it to show that request again: one function, so they agree.
func BuildRequest(events []Event, mr ModelRequest) (llm.Request, error) {
	msgs, err := Messages(events, mr.System, mr.HistorySeqs)
	if err != nil {
		return llm.Request{}, err
	}
	return llm.Request{
		Model:    mr.Model,
		Messages: msgs,
		Tools:    mr.Tools,
		Options:  mr.Options,
		Think:    mr.Think,
	}, nil
}

// PromptEstimate is Loupe's rough token count of a request: about four bytes
// of JSON per token. Ollama's exact count arrives with the response.
func PromptEstimate(r llm.Request) int {
	b, _ := json.Marshal(struct {
		M []llm.Message  `json:"m"`
		T []llm.ToolSpec `json:"t"`
	}{r.Messages, r.Tools})
	return (len(b) + 3) / 4
}

// Unanswered returns the tool calls of complete model messages that have no
// tool_result yet, in the order they were asked for. After a cancel or a
// crash each of them must be given a result so the history stays valid.
func Unanswered(events []Event) []llm.ToolCall {
	answered := map[string]bool{}
	for _, e := range events {
		if e.Kind == KindToolResult {
			if p, err := Decode[ToolResult](e); err == nil {
				answered[p.CallID] = true
			}
		}
	}
	var out []llm.ToolCall
	for _, e := range events {
		if e.Kind != KindModelResponse {
			continue
		}
		p, err := Decode[ModelResponse](e)
		if err != nil || p.Incomplete {
			continue
		}
		for _, c := range p.ToolCalls {
			if !answered[c.ID] {
				out = append(out, c)
			}
		}
	}
	return out
}

// OpenRun reports whether the log's last run has no run_end: the app exited
// while it was running.
func OpenRun(events []Event) bool {
	open := false
	for _, e := range events {
		switch e.Kind {
		case KindUserMessage:
			open = true
		case KindRunEnd:
			open = false
		}
	}
	return open
}
