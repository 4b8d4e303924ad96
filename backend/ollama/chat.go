package ollama

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/loupe-dev/loupe/backend/llm"
)

// EncodeChatRequest returns the exact bytes Chat sends as the body of
// POST /api/chat for r: Chat sends what this returns.
func EncodeChatRequest(r llm.Request) ([]byte, error) {
	return encodeChatRequest(r, nil)
}

// EncodeRecordedRequest is EncodeChatRequest for a request rebuilt from a
// log. A log imported from another agent's file may not record the
// context window (num_ctx 0): its body is written without num_ctx rather
// than with a number nobody sent. Such a body is for reading; Chat
// refuses a request without num_ctx.
func EncodeRecordedRequest(r llm.Request) ([]byte, error) {
	if r.Options.NumCtx != 0 {
		return EncodeChatRequest(r)
	}
	r.Options.NumCtx = 1 // passes chatHeader's check; taken out below
	b, err := encodeChatBodyWith(r, nil, func(req *api.ChatRequest) { delete(req.Options, "num_ctx") })
	if err != nil {
		return nil, err
	}
	return b.bytes(), nil
}

// chatRequest converts a request to Ollama's form, messages and all.
func chatRequest(r llm.Request) (*api.ChatRequest, error) {
	req, err := chatHeader(r)
	if err != nil {
		return nil, err
	}
	req.Messages = make([]api.Message, 0, len(r.Messages))
	for i, m := range r.Messages {
		am, err := apiMessage(i, m)
		if err != nil {
			return nil, err
		}
		req.Messages = append(req.Messages, am)
	}
	return req, nil
}

// chatHeader converts everything of a request but its messages to
// Ollama's form. With apiMessage it is the one place that does so.
func chatHeader(r llm.Request) (*api.ChatRequest, error) {
	if r.Model == "" {
		return nil, errors.New("ollama: request names no model")
	}
	if r.Options.NumCtx <= 0 {
		return nil, errNoNumCtx
	}
	// Truncate false (what Loupe sends): a prompt longer than num_ctx is
	// refused (HTTP 400, PromptTooLongError) instead of silently losing
	// its oldest messages.
	stream := true
	req := &api.ChatRequest{
		Model:    r.Model,
		Stream:   &stream,
		Truncate: r.Truncate,
		Options: map[string]any{
			"num_ctx":     r.Options.NumCtx,
			"temperature": r.Options.Temperature,
		},
	}
	if r.Think != nil {
		req.Think = &api.ThinkValue{Value: *r.Think}
	}
	for _, t := range r.Tools {
		params := api.ToolFunctionParameters{Type: "object"}
		if len(bytes.TrimSpace(t.Parameters)) > 0 && !bytes.Equal(bytes.TrimSpace(t.Parameters), []byte("null")) {
			if err := json.Unmarshal(t.Parameters, &params); err != nil {
				return nil, fmt.Errorf("ollama: tool %s: parameters are not a JSON schema object: %w", t.Name, err)
			}
		}
		if params.Properties == nil {
			// Ollama's type writes a nil map as "properties":null.
			params.Properties = api.NewToolPropertiesMap()
		}
		req.Tools = append(req.Tools, api.Tool{
			Type:     "function",
			Function: api.ToolFunction{Name: t.Name, Description: t.Description, Parameters: params},
		})
	}
	return req, nil
}

// apiMessage converts message i of a request to Ollama's form.
func apiMessage(i int, m llm.Message) (api.Message, error) {
	am := api.Message{
		Role:       m.Role,
		Content:    m.Content,
		Thinking:   m.Thinking,
		ToolName:   m.ToolName,
		ToolCallID: m.ToolCallID,
	}
	for _, tc := range m.ToolCalls {
		args, err := apiArgs(tc.Args)
		if err != nil {
			return am, fmt.Errorf("ollama: message %d, tool call %s (%s): %w", i, tc.ID, tc.Name, err)
		}
		am.ToolCalls = append(am.ToolCalls, api.ToolCall{
			ID:       tc.ID,
			Function: api.ToolCallFunction{Index: tc.Index, Name: tc.Name, Arguments: args},
		})
	}
	return am, nil
}

// apiArgs turns a call's raw JSON arguments into Ollama's ordered map,
// keeping their key order.
func apiArgs(raw json.RawMessage) (api.ToolCallFunctionArguments, error) {
	args := api.NewToolCallFunctionArguments()
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return args, nil
	}
	if t[0] != '{' {
		return args, fmt.Errorf("arguments are not a JSON object: %s", t)
	}
	if err := json.Unmarshal(t, &args); err != nil {
		return args, fmt.Errorf("arguments are not a JSON object: %w", err)
	}
	return args, nil
}

// assembly collects a streamed answer.
type assembly struct {
	start    time.Time
	ttft     time.Duration
	lines    int
	content  strings.Builder
	thinking strings.Builder
	calls    []api.ToolCall
	last     api.ChatResponse
	done     bool
}

func (a *assembly) add(r api.ChatResponse, onChunk func(llm.Chunk)) {
	a.lines++
	a.last = r
	m := r.Message
	if a.ttft == 0 && (m.Content != "" || m.Thinking != "" || len(m.ToolCalls) > 0) {
		a.ttft = max(time.Since(a.start), time.Nanosecond)
	}
	a.content.WriteString(m.Content)
	a.thinking.WriteString(m.Thinking)
	a.calls = append(a.calls, m.ToolCalls...)
	if r.Done {
		a.done = true
	}
	if onChunk != nil && (m.Content != "" || m.Thinking != "") {
		onChunk(llm.Chunk{Content: m.Content, Thinking: m.Thinking})
	}
}

// response builds the llm.Response from what arrived so far.
func (a *assembly) response() (llm.Response, error) {
	var resp llm.Response
	resp.Chunks = a.lines
	resp.Done = a.done
	resp.Message = llm.Message{
		Role:     llm.RoleAssistant,
		Content:  a.content.String(),
		Thinking: a.thinking.String(),
	}
	if a.lines == 0 {
		return resp, nil
	}
	for i := range a.calls {
		if a.calls[i].ID == "" {
			// Ollama has sent ids since v0.12; an older server does not,
			// and results are paired with calls by id.
			a.calls[i].ID = "call_" + strings.ToLower(rand.Text()[:8])
		}
		tc := a.calls[i]
		args, err := marshalPlain(tc.Function.Arguments)
		if err != nil {
			return resp, fmt.Errorf("ollama: encode arguments of tool call %s: %w", tc.Function.Name, err)
		}
		resp.Message.ToolCalls = append(resp.Message.ToolCalls, llm.ToolCall{
			ID:    tc.ID,
			Index: tc.Function.Index,
			Name:  tc.Function.Name,
			Args:  args,
		})
	}
	resp.DoneReason = a.last.DoneReason
	m := a.last.Metrics
	resp.Metrics = llm.Metrics{
		PromptEvalCount:    m.PromptEvalCount,
		EvalCount:          m.EvalCount,
		TotalDuration:      m.TotalDuration,
		LoadDuration:       m.LoadDuration,
		PromptEvalDuration: m.PromptEvalDuration,
		EvalDuration:       m.EvalDuration,
		TimeToFirstToken:   a.ttft,
	}
	role := a.last.Message.Role
	if role == "" {
		role = llm.RoleAssistant
	}
	raw, err := json.Marshal(api.ChatResponse{
		Model:     a.last.Model,
		CreatedAt: a.last.CreatedAt,
		Message: api.Message{
			Role:      role,
			Content:   resp.Message.Content,
			Thinking:  resp.Message.Thinking,
			ToolCalls: a.calls,
		},
		Done:       a.done,
		DoneReason: a.last.DoneReason,
		Metrics:    m,
	})
	if err != nil {
		return resp, fmt.Errorf("ollama: encode raw response: %w", err)
	}
	resp.Raw = raw
	return resp, nil
}

// Chat sends r and streams the answer: onChunk (may be nil) gets each
// content or thinking delta as it arrives. The returned Response is the
// whole message with its tool calls (arguments in the model's key order),
// done reason and metrics.
//
// If the answer does not finish — an error line, a cut connection, ctx
// cancelled — Chat returns what arrived so far with Done false, together
// with the error (a *StreamError, or ctx's error). When Ollama sends
// nothing for longer than the client's Timeouts allow, Chat closes the
// connection and returns what arrived with a *TimeoutError. Errors before
// the answer starts are *UnreachableError, *ModelNotFoundError or
// *StatusError.
func (c *Client) Chat(ctx context.Context, r llm.Request, onChunk func(llm.Chunk)) (llm.Response, error) {
	body, err := encodeChatBody(r, c.sent)
	if err != nil {
		return llm.Response{}, err
	}
	return c.chat(ctx, r.Model, body, onChunk)
}

// chat posts body and reads the answer: Chat's and ChatBody's one way.
func (c *Client) chat(ctx context.Context, model string, body *chatBody, onChunk func(llm.Chunk)) (llm.Response, error) {
	a := &assembly{start: time.Now()}
	err := c.streamChat(ctx, model, body, func(cr api.ChatResponse) { a.add(cr, onChunk) })
	resp, aerr := a.response()
	switch {
	case a.done:
		// The answer is complete; whatever came after does not matter.
		return resp, aerr
	case ctx.Err() != nil:
		return resp, fmt.Errorf("ollama: the request to the model stopped: %w", ctx.Err())
	case err != nil:
		return resp, err
	case aerr != nil:
		return resp, aerr
	}
	// The stream ended properly but without its done line.
	return resp, &StreamError{Ended: true}
}

// marshalPlain encodes v as JSON without escaping <, > and &: arguments
// such as a shell command are shown and stored as the model wrote them.
// Ollama's argument map encodes itself with json.Marshal, which escapes
// them, so the escapes are undone here, outside of any other escape.
func marshalPlain(v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			out = append(out, b[i])
			continue
		}
		if b[i+1] == 'u' && i+6 <= len(b) {
			switch string(b[i+2 : i+6]) {
			case "003c":
				out, i = append(out, '<'), i+5
				continue
			case "003e":
				out, i = append(out, '>'), i+5
				continue
			case "0026":
				out, i = append(out, '&'), i+5
				continue
			}
		}
		// Any other escape, including an escaped backslash, stays whole.
		out, i = append(out, b[i], b[i+1]), i+1
	}
	return out, nil
}
