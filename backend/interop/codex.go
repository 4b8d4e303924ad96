package interop

// Codex CLI records each session as a rollout file,
// ~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl: one line per
// item, {"timestamp", "type", "payload"}, where type is "session_meta"
// (the session's id, cwd, cli_version, instructions), "turn_context" (the
// turn's cwd and model), "response_item" (what the model's history is
// made of: a message of the user, the developer or the assistant,
// reasoning, a function_call, custom_tool_call or local_shell_call and
// their outputs), "event_msg" (what the program showed: most of it the
// same as the response items, and the token counts) or "compacted" (the
// history summarised). Rollouts written before session_meta existed hold
// the meta as a first line {"id", "timestamp", "instructions"} and the
// response items as lines of their own: those are read too.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/trace"
)

type cxLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
	// Of a rollout written before the envelope.
	ID         string `json:"id"`
	RecordType string `json:"record_type"`
}

type cxItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Summary   json.RawMessage `json:"summary"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Input     json.RawMessage `json:"input"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
	Action    json.RawMessage `json:"action"`
}

// Event messages that say again what the response items say, or only
// what the program's screen showed: read and left, as the docs say.
var cxShown = map[string]bool{
	"user_message": true, "agent_message": true, "agent_reasoning": true, "agent_reasoning_raw_content": true,
	"agent_reasoning_section_break": true, "exec_command_begin": true, "exec_command_end": true,
	"exec_command_output_delta": true, "patch_apply_begin": true, "patch_apply_end": true, "task_started": true,
	"task_complete": true, "turn_diff": true, "mcp_tool_call_begin": true, "mcp_tool_call_end": true,
	"web_search_begin": true, "web_search_end": true, "plan_update": true, "background_event": true,
	"entered_review_mode": true, "exited_review_mode": true, "view_image_tool_call": true,
}

type codex struct {
	b       *builder
	pending *cxAnswer
}

type cxAnswer struct {
	t    time.Time
	resp trace.ModelResponse
}

// readCodex converts a Codex CLI rollout file.
func readCodex(r io.Reader, sink Sink, fallback time.Time) (Meta, error) {
	c := &codex{b: newBuilder(sink, Codex, fallback)}
	err := eachLine(r, Codex, c.line)
	if err == nil {
		err = c.flush()
	}
	if err != nil {
		return c.b.meta, err
	}
	return finishOf(c.b, Codex)
}

func (c *codex) line(n int, line []byte) error {
	var l cxLine
	if err := decodeAs(line, &l); err != nil {
		return err
	}
	t, err := parseTime(l.Timestamp)
	if err != nil {
		return err
	}
	raw := json.RawMessage(bytes.Clone(line))
	b := c.b
	switch {
	case l.Type == "" && l.RecordType != "":
		return nil // a legacy rollout's state line: the resume's bookkeeping
	case l.Type == "" && l.ID != "":
		return c.meta(t, line)
	case l.Type == "":
		return fmt.Errorf(`the line has no "type": a rollout line is session_meta, turn_context, response_item, event_msg or compacted`)
	case len(l.Payload) == 0 && isItemType(l.Type):
		return c.item(n, t, line, raw) // a legacy rollout's response item
	}
	if len(l.Payload) == 0 || l.Payload[0] != '{' {
		return fmt.Errorf(`a %s line holds its "payload" as an object, and this one has %s`, l.Type, describe(l.Payload))
	}
	switch l.Type {
	case "session_meta":
		return c.meta(t, l.Payload)
	case "turn_context":
		var tc struct {
			Cwd   string `json:"cwd"`
			Model string `json:"model"`
		}
		if err := decodeAs(l.Payload, &tc); err != nil {
			return fmt.Errorf("payload: %w", err)
		}
		if tc.Model != "" {
			b.meta.Model = tc.Model
		}
		if b.meta.Workspace == "" {
			b.meta.Workspace = tc.Cwd
		}
		return nil
	case "response_item":
		return c.item(n, t, l.Payload, raw)
	case "event_msg":
		return c.event(n, t, l.Payload, raw)
	case "compacted":
		var cp struct {
			Message string `json:"message"`
		}
		if err := decodeAs(l.Payload, &cp); err != nil {
			return fmt.Errorf("payload: %w", err)
		}
		if err := c.flush(); err != nil {
			return err
		}
		return b.notice(t, CodeKept, "Codex summarised the history here; the model went on from this summary: "+cp.Message, bigRaw(raw))
	}
	if err := c.flush(); err != nil {
		return err
	}
	return b.unknown(t, fmt.Sprintf("Line %d", n), fmt.Sprintf("a line of type %q", l.Type), bigRaw(raw))
}

func isItemType(t string) bool {
	switch t {
	case "message", "reasoning", "function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output", "local_shell_call":
		return true
	}
	return false
}

func (c *codex) meta(t time.Time, payload []byte) error {
	var m struct {
		ID           string          `json:"id"`
		Cwd          string          `json:"cwd"`
		CLIVersion   string          `json:"cli_version"`
		Originator   string          `json:"originator"`
		Instructions json.RawMessage `json:"instructions"`
	}
	if err := decodeAs(payload, &m); err != nil {
		return fmt.Errorf("session meta: %w", err)
	}
	b := c.b
	if b.meta.SourceID == "" {
		b.meta.SourceID = m.ID
	}
	if m.Cwd != "" {
		b.meta.Workspace = m.Cwd
	}
	if m.CLIVersion != "" {
		b.meta.Agent = "codex " + m.CLIVersion
	}
	if b.meta.Created.IsZero() {
		b.meta.Created = t
	}
	var instr string
	if json.Unmarshal(m.Instructions, &instr) == nil && instr != "" {
		b.system = joinText(b.system, instr)
	}
	return nil
}

// answerOf is the answer being read, begun at t.
func (c *codex) answerOf(t time.Time) *cxAnswer {
	if c.pending == nil {
		c.pending = &cxAnswer{t: t}
	}
	return c.pending
}

func (c *codex) item(n int, t time.Time, payload []byte, raw json.RawMessage) error {
	var it cxItem
	if err := decodeAs(payload, &it); err != nil {
		return fmt.Errorf("payload: %w", err)
	}
	b := c.b
	switch it.Type {
	case "":
		return fmt.Errorf(`the response item has no "type"`)
	case "message":
		text, skipped, err := textOf(it.Content)
		if err != nil {
			return fmt.Errorf("payload: %w", err)
		}
		switch it.Role {
		case "user":
			if err := c.flush(); err != nil {
				return err
			}
			if err := b.user(t, text, raw); err != nil {
				return err
			}
		case "assistant":
			if c.pending != nil && len(c.pending.resp.ToolCalls) > 0 {
				if err := c.flush(); err != nil {
					return err
				}
			}
			a := c.answerOf(t)
			a.resp.Content = joinText(a.resp.Content, text)
		case "developer", "system":
			// Instructions the program gives the model: the rebuilt
			// requests' system prompt from here on.
			b.system = joinText(b.system, text)
			return nil
		case "":
			return fmt.Errorf(`a message item has its "role"`)
		default:
			if err := c.flush(); err != nil {
				return err
			}
			return b.unknown(t, fmt.Sprintf("Line %d", n), fmt.Sprintf("a message of role %q", it.Role), bigRaw(raw))
		}
		if len(skipped) > 0 {
			return b.notice(t, CodeUnknown, fmt.Sprintf("Line %d: the message holds %v, which Loupe does not import (its text is kept)", n, skipped), bigRaw(raw))
		}
		return nil
	case "reasoning":
		var parts []string
		for _, raw := range []json.RawMessage{it.Summary, it.Content} {
			if text, _, err := textOfKinds(raw); err != nil {
				return fmt.Errorf("payload: %w", err)
			} else if text != "" {
				parts = append(parts, text)
			}
		}
		if c.pending != nil && len(c.pending.resp.ToolCalls) > 0 {
			if err := c.flush(); err != nil {
				return err
			}
		}
		a := c.answerOf(t)
		a.resp.Thinking = joinText(a.resp.Thinking, joinLines(parts))
		return nil
	case "function_call", "custom_tool_call", "local_shell_call":
		id := it.CallID
		name := it.Name
		var args json.RawMessage
		switch it.Type {
		case "function_call":
			var s string
			if json.Unmarshal(it.Arguments, &s) == nil {
				if json.Valid([]byte(s)) && bytes.HasPrefix(bytes.TrimSpace([]byte(s)), []byte("{")) {
					args = json.RawMessage(s)
				} else {
					args, _ = json.Marshal(map[string]string{"arguments": s})
				}
			} else if len(it.Arguments) > 0 && it.Arguments[0] == '{' {
				args = it.Arguments
			}
		case "custom_tool_call":
			var s string
			_ = json.Unmarshal(it.Input, &s)
			args, _ = json.Marshal(map[string]string{"input": s})
		case "local_shell_call":
			name = "local_shell"
			args = it.Action
		}
		if id == "" || name == "" {
			return fmt.Errorf(`a %s item has its "call_id" and "name"`, it.Type)
		}
		a := c.answerOf(t)
		a.resp.ToolCalls = append(a.resp.ToolCalls, call(id, name, args))
		return nil
	case "function_call_output", "custom_tool_call_output":
		if it.CallID == "" {
			return fmt.Errorf(`a %s item names its call in "call_id"`, it.Type)
		}
		if err := c.flush(); err != nil {
			return err
		}
		content, isErr, exit, err := cxOutput(it.Output)
		if err != nil {
			return fmt.Errorf("payload.output: %w", err)
		}
		return b.result(t, it.CallID, content, isErr, exit, raw)
	}
	if err := c.flush(); err != nil {
		return err
	}
	return b.unknown(t, fmt.Sprintf("Line %d", n), fmt.Sprintf("a response item of type %q", it.Type), bigRaw(raw))
}

// textOfKinds is textOf for lists whose blocks are all text of some kind
// (summary_text, reasoning_text).
func textOfKinds(raw json.RawMessage) (string, []string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return textOf(raw)
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	if err := decodeAs(raw, &blocks); err != nil {
		return "", nil, err
	}
	var parts []string
	for _, bl := range blocks {
		parts = append(parts, bl.Text)
	}
	return joinLines(parts), nil, nil
}

// cxOutput reads a call's output: text, a list of content items, or an
// object with its content and success; a shell tool's text is often
// JSON holding the output and its exit code.
func cxOutput(raw json.RawMessage) (content string, isErr bool, exit *int, err error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0:
		return "", false, nil, nil
	case raw[0] == '{':
		var o struct {
			Content json.RawMessage `json:"content"`
			Success *bool           `json:"success"`
		}
		if err := decodeAs(raw, &o); err != nil {
			return "", false, nil, err
		}
		content, _, err = textOf(o.Content)
		return content, o.Success != nil && !*o.Success, nil, err
	case raw[0] == '[':
		content, _, err = textOf(raw)
		return content, false, nil, err
	}
	if err := json.Unmarshal(raw, &content); err != nil {
		return "", false, nil, fmt.Errorf("%s where the format has text", describe(raw))
	}
	var shell struct {
		Output   *string `json:"output"`
		Metadata struct {
			ExitCode *int `json:"exit_code"`
		} `json:"metadata"`
	}
	if json.Unmarshal([]byte(content), &shell) == nil && shell.Output != nil && shell.Metadata.ExitCode != nil {
		return *shell.Output, *shell.Metadata.ExitCode != 0, shell.Metadata.ExitCode, nil
	}
	return content, false, nil, nil
}

func (c *codex) event(n int, t time.Time, payload []byte, raw json.RawMessage) error {
	var ev struct {
		Type    string `json:"type"`
		Message string `json:"message"`
		Reason  string `json:"reason"`
		Info    *struct {
			Window int `json:"model_context_window"`
			Last   *struct {
				Input  int `json:"input_tokens"`
				Output int `json:"output_tokens"`
			} `json:"last_token_usage"`
		} `json:"info"`
	}
	if err := decodeAs(payload, &ev); err != nil {
		return fmt.Errorf("payload: %w", err)
	}
	b := c.b
	switch {
	case ev.Type == "":
		return fmt.Errorf(`the event has no "type"`)
	case ev.Type == "token_count":
		if ev.Info != nil && ev.Info.Window > 0 {
			b.numCtx = ev.Info.Window
		}
		if ev.Info != nil && ev.Info.Last != nil && c.pending != nil {
			c.pending.resp.Metrics = llm.Metrics{PromptEvalCount: ev.Info.Last.Input, EvalCount: ev.Info.Last.Output}
		}
		return nil
	case ev.Type == "user_message":
		// What the user typed, without the context the program adds to
		// it in the response items: the session's title.
		if !b.titled && ev.Message != "" {
			b.meta.Title, b.titled = titleOf(ev.Message), true
		}
		return nil
	case cxShown[ev.Type]:
		return nil
	}
	if err := c.flush(); err != nil {
		return err
	}
	switch ev.Type {
	case "turn_aborted":
		return b.notice(t, CodeKept, "Codex says the turn was aborted: "+ev.Reason, raw)
	case "error", "stream_error", "warning":
		return b.notice(t, CodeKept, "Codex says: "+ev.Message, raw)
	}
	return b.unknown(t, fmt.Sprintf("Line %d", n), fmt.Sprintf("an event of type %q", ev.Type), bigRaw(raw))
}

// flush writes the answer being read.
func (c *codex) flush() error {
	a := c.pending
	if a == nil {
		return nil
	}
	c.pending = nil
	return c.b.answer(a.t, "", a.resp)
}
