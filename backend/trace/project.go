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

// Sourced is a history message with the event it comes from.
type Sourced struct {
	Seq int64
	llm.Message
}

// Project turns the named events into history messages, in order, with the
// user's edits applied (see Edit): the model sees the edited conversation.
// An incomplete model message keeps its text but not its tool calls, which
// never ran and have no results; one with nothing in it is left out.
func Project(events []Event, seqs []int64) ([]Sourced, error) {
	bySeq := make(map[int64]Event, len(seqs))
	want := make(map[int64]bool, len(seqs))
	for _, s := range seqs {
		want[s] = true
	}
	var edits []Edit
	for _, e := range events {
		if want[e.Seq] {
			bySeq[e.Seq] = e
		}
		if e.Kind == KindEdit {
			ed, err := Decode[Edit](e)
			if err != nil {
				return nil, err
			}
			edits = append(edits, ed)
		}
	}
	out := make([]Sourced, 0, len(seqs))
	for _, s := range seqs {
		e, ok := bySeq[s]
		if !ok {
			return nil, fmt.Errorf("trace: history names event %d, which is not in the log", s)
		}
		m, err := message(e)
		if err != nil {
			return nil, err
		}
		if err := applyEdits(&m, s, edits); err != nil {
			return nil, err
		}
		if m.Role == llm.RoleAssistant && m.Content == "" && m.Thinking == "" && len(m.ToolCalls) == 0 {
			// A request that failed before the model said anything left
			// an empty message: sending it back would only confuse.
			continue
		}
		out = append(out, Sourced{Seq: s, Message: m})
	}
	return out, nil
}

// applyEdits applies, in log order, the edits that touch message m (from
// event seq): its content, a call's arguments, a result's content.
func applyEdits(m *llm.Message, seq int64, edits []Edit) error {
	for _, ed := range edits {
		switch {
		case ed.Target == EditMessage && ed.Seq == seq,
			ed.Target == EditResult && m.Role == llm.RoleTool && ed.CallID == m.ToolCallID:
			var s string
			if err := json.Unmarshal(ed.After, &s); err != nil {
				return fmt.Errorf("trace: %s edit: %w", ed.Target, err)
			}
			m.Content = s
		case ed.Target == EditArgs && m.Role == llm.RoleAssistant:
			for i := range m.ToolCalls {
				if m.ToolCalls[i].ID == ed.CallID {
					// Copy the slice: the event's payload is shared.
					calls := append([]llm.ToolCall(nil), m.ToolCalls...)
					calls[i].Args = ed.After
					m.ToolCalls = calls
				}
			}
		}
	}
	return nil
}

// Messages is the request's message list: the system prompt, then the
// projected history.
func Messages(events []Event, system string, seqs []int64) ([]llm.Message, error) {
	src, err := Project(events, seqs)
	if err != nil {
		return nil, err
	}
	msgs := make([]llm.Message, 0, len(src)+1)
	if system != "" {
		msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: system})
	}
	for _, s := range src {
		msgs = append(msgs, s.Message)
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
