package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/ollama"
)

// DefaultPace is the wait between two streamed pieces of an answer in the
// window: slow enough to watch the text come, fast enough not to bore.
const DefaultPace = 45 * time.Millisecond

// Model is the demo as the loop's model (agent.Model). Pace is the wait
// between streamed pieces (0: none, for tests and for loupe run, which
// prints no pieces).
type Model struct {
	Pace time.Duration
}

// Chat answers the request with the script's next step, streamed in a few
// pieces as a model's answer is. Its calls come with the last piece, as
// Ollama sends them. A cancel in the middle returns what was streamed,
// unfinished, with ctx's error.
func (m Model) Chat(ctx context.Context, req llm.Request, onChunk func(llm.Chunk)) (llm.Response, error) {
	st := decide(read(req.Messages))
	st = offered(st, req.Tools)
	round := 1
	for _, msg := range req.Messages {
		if msg.Role == llm.RoleAssistant {
			round++
		}
	}
	calls := make([]llm.ToolCall, len(st.calls))
	for i, c := range st.calls {
		// Ids as Ollama's are: unique in the session, since the history
		// holds every earlier answer.
		calls[i] = llm.ToolCall{ID: fmt.Sprintf("call_demo_%d_%d", round, i), Index: i, Name: c.name, Args: json.RawMessage(c.args)}
	}

	var resp llm.Response
	resp.Message.Role = llm.RoleAssistant
	var sent strings.Builder
	// The wait before the first piece stands for the model reading the
	// prompt.
	if err := m.wait(ctx, readWait); err != nil {
		resp.Message.Content = sent.String()
		return resp, err
	}
	ps := pieces(st.text)
	for _, p := range ps {
		if onChunk != nil {
			onChunk(llm.Chunk{Content: p})
		}
		sent.WriteString(p)
		resp.Chunks++
		if err := m.wait(ctx, 1); err != nil {
			resp.Message.Content = sent.String()
			return resp, err
		}
	}
	resp.Chunks++ // the last line, done, with the calls
	resp.Message.Content = st.text
	resp.Message.ToolCalls = calls
	resp.Done, resp.DoneReason = true, "stop"
	// The times are the script's pacing: what it waits before the first
	// piece and between pieces, at the window's pace when it waits for
	// nothing (tests, loupe run), so a recorded demo reports what the
	// window's does, the same on every machine. No tokenizer runs: the
	// counts are the demo's own (see countTokens), reported where Ollama
	// reports its own, so the meter, the cards and the context chart show
	// the prompt grow as they would with a model.
	step := m.pace()
	if step == 0 {
		step = DefaultPace
	}
	first, eval := readWait*step, time.Duration(len(ps))*step
	resp.Metrics = llm.Metrics{TotalDuration: first + eval, EvalDuration: eval, PromptEvalDuration: first, TimeToFirstToken: first,
		PromptEvalCount: promptCount(req), EvalCount: answerCount(st.text, calls)}
	raw, err := rawAnswer(req.Model, resp)
	if err != nil {
		return resp, err
	}
	resp.Raw = raw
	return resp, nil
}

// BytesPerToken is the demo's token count: a token for every four bytes,
// the rule of thumb for English and code that Loupe's own estimate
// starts from (and the fake Ollama counts with), rounded up, at least one.
const BytesPerToken = 4

func countTokens(n int) int { return max(1, (n+BytesPerToken-1)/BytesPerToken) }

// promptCount is the demo's prompt_eval_count: the tokens of the body
// Loupe posts to Ollama for this request (ollama.EncodeChatRequest, the
// bytes a real model would read, rendered), counted as countTokens does.
// Like Ollama v0.17.4 it counts the whole prompt every round.
func promptCount(req llm.Request) int {
	b, err := ollama.EncodeChatRequest(req)
	if err != nil {
		// A request the wire would refuse (no model, no num_ctx) is
		// counted as its messages and tools.
		b, _ = json.Marshal(struct {
			Messages []llm.Message  `json:"messages"`
			Tools    []llm.ToolSpec `json:"tools"`
		}{req.Messages, req.Tools})
	}
	return countTokens(len(b))
}

// answerCount is the demo's eval_count: the tokens of its text and of its
// calls' names and arguments.
func answerCount(text string, calls []llm.ToolCall) int {
	n := len(text)
	for _, c := range calls {
		n += len(c.Name) + len(c.Args)
	}
	return countTokens(n)
}

// readWait is how many paces the demo waits before its first piece.
const readWait = 4

func (m Model) pace() time.Duration { return max(m.Pace, 0) }

func (m Model) wait(ctx context.Context, n time.Duration) error {
	if m.pace() == 0 {
		return ctx.Err()
	}
	t := time.NewTimer(n * m.pace())
	defer t.Stop()
	select {
	case <-ctx.Done():
		return fmt.Errorf("demo: the answer stopped: %w", ctx.Err())
	case <-t.C:
		return nil
	}
}

// offered turns a call of a tool the request does not offer into words:
// the demo asks only for what it was given, as a model can.
func offered(st step, tools []llm.ToolSpec) step {
	have := map[string]bool{}
	for _, t := range tools {
		have[t.Name] = true
	}
	for _, c := range st.calls {
		if !have[c.name] {
			return step{text: fmt.Sprintf("My next step would be a call of `%s`, but this request offers no such tool, so I stop here.", c.name)}
		}
	}
	return st
}

// pieces cuts a text in pieces of a few words, each with the spaces after
// it, as a model's tokens come in clumps.
func pieces(text string) []string {
	const words = 3
	var out []string
	start, n := 0, 0
	for i := 0; i < len(text); i++ {
		if text[i] != ' ' && text[i] != '\n' {
			continue
		}
		// The end of a run of spaces ends a word.
		if i+1 < len(text) && (text[i+1] == ' ' || text[i+1] == '\n') {
			continue
		}
		n++
		if n == words {
			out = append(out, text[start:i+1])
			start, n = i+1, 0
		}
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

// wireAnswer is the answer in the shape of Ollama's last /api/chat line,
// so that Raw shows the demo's answer as a model's would look on the wire.
type wireAnswer struct {
	Model   string `json:"model"`
	Message struct {
		Role      string     `json:"role"`
		Content   string     `json:"content"`
		ToolCalls []wireCall `json:"tool_calls,omitempty"`
	} `json:"message"`
	Done               bool   `json:"done"`
	DoneReason         string `json:"done_reason"`
	TotalDuration      int64  `json:"total_duration"`
	PromptEvalCount    int    `json:"prompt_eval_count"`
	PromptEvalDuration int64  `json:"prompt_eval_duration"`
	EvalCount          int    `json:"eval_count"`
	EvalDuration       int64  `json:"eval_duration"`
	// Scripted says where the answer came from: no model, no server;
	// Counts how its token counts were made.
	Scripted string `json:"scripted"`
	Counts   string `json:"counts"`
}

type wireCall struct {
	ID       string `json:"id"`
	Function struct {
		Index     int             `json:"index"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

func rawAnswer(model string, r llm.Response) (json.RawMessage, error) {
	var w wireAnswer
	w.Model = model
	w.Message.Role, w.Message.Content = r.Message.Role, r.Message.Content
	for _, c := range r.Message.ToolCalls {
		var wc wireCall
		wc.ID = c.ID
		wc.Function.Index, wc.Function.Name, wc.Function.Arguments = c.Index, c.Name, c.Args
		w.Message.ToolCalls = append(w.Message.ToolCalls, wc)
	}
	w.Done, w.DoneReason = r.Done, r.DoneReason
	w.TotalDuration = int64(r.Metrics.TotalDuration)
	w.PromptEvalDuration = int64(r.Metrics.PromptEvalDuration)
	w.EvalDuration = int64(r.Metrics.EvalDuration)
	w.PromptEvalCount, w.EvalCount = r.Metrics.PromptEvalCount, r.Metrics.EvalCount
	w.Scripted = "written by Loupe's built-in demo script: no model and no Ollama server were involved"
	w.Counts = fmt.Sprintf("prompt_eval_count and eval_count are the demo script's own counts, not a tokenizer's: one token per %d bytes of the request body Loupe would send Ollama, and of the answer; the durations are the script's pacing", BytesPerToken)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	// A command is shown as it is written: no \u003e for ">".
	enc.SetEscapeHTML(false)
	if err := enc.Encode(w); err != nil {
		return nil, fmt.Errorf("demo: encode the raw answer: %w", err)
	}
	return json.RawMessage(bytes.TrimSpace(b.Bytes())), nil
}
