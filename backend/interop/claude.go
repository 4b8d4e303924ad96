package interop

// Claude Code keeps each session as a JSONL file under
// ~/.claude/projects/<project>/<session-id>.jsonl: one record a line,
// each with its "type" ("user", "assistant", "summary", "system", and
// others of the program's own), its uuid and parentUuid, the session's id,
// cwd and version, and a timestamp. A user or assistant record holds the
// API's message: role, content (a string, or a list of blocks: text,
// thinking, tool_use, tool_result, image…), and for an answer its id,
// model, stop_reason and usage. One answer is often written as several
// records, a block each, with the same message id: they are joined here.
// The records are read in the file's order (the uuid links are a tree
// when the user went back and asked again; the file's order is the one
// the program wrote).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/trace"
)

type ccRecord struct {
	Type        string          `json:"type"`
	SessionID   string          `json:"sessionId"`
	Cwd         string          `json:"cwd"`
	Version     string          `json:"version"`
	Timestamp   string          `json:"timestamp"`
	IsSidechain bool            `json:"isSidechain"`
	IsMeta      bool            `json:"isMeta"`
	Message     json.RawMessage `json:"message"`
	Summary     string          `json:"summary"`
	Subtype     string          `json:"subtype"`
	Content     json.RawMessage `json:"content"`
}

type ccMessage struct {
	ID         string          `json:"id"`
	Role       string          `json:"role"`
	Model      string          `json:"model"`
	Content    json.RawMessage `json:"content"`
	StopReason string          `json:"stop_reason"`
	Usage      *struct {
		Input         int `json:"input_tokens"`
		Output        int `json:"output_tokens"`
		CacheCreation int `json:"cache_creation_input_tokens"`
		CacheRead     int `json:"cache_read_input_tokens"`
	} `json:"usage"`
}

type ccBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// ccAnswer is an answer being read: the records of one message id.
type ccAnswer struct {
	id    string
	t     time.Time
	model string
	resp  trace.ModelResponse
	raws  []json.RawMessage
	// unknown are its blocks of kinds not mapped, kept after it.
	unknown []ccUnknown
}

type ccUnknown struct {
	line int
	typ  string
	raw  json.RawMessage
}

type claude struct {
	b       *builder
	pending *ccAnswer
}

// readClaudeCode converts a Claude Code session file.
func readClaudeCode(r io.Reader, sink Sink, fallback time.Time) (Meta, error) {
	c := &claude{b: newBuilder(sink, ClaudeCode, fallback)}
	err := eachLine(r, ClaudeCode, c.line)
	if err == nil {
		err = c.flush()
	}
	if err != nil {
		return c.b.meta, err
	}
	return finishOf(c.b, ClaudeCode)
}

// finishOf ends the log, or refuses a file with no conversation in it.
func finishOf(b *builder, source string) (Meta, error) {
	if b.seq == 0 && b.pendingUser == nil && !b.open {
		return b.meta, &Error{Source: source, Problem: "it holds no message of the user or the agent: is it empty, or another kind of file?"}
	}
	return b.finish()
}

func (c *claude) line(n int, line []byte) error {
	var rec ccRecord
	if err := decodeAs(line, &rec); err != nil {
		return err
	}
	if rec.Type == "" {
		return fmt.Errorf(`the record has no "type": a Claude Code record says what it is (user, assistant, summary…)`)
	}
	t, err := parseTime(rec.Timestamp)
	if err != nil {
		return err
	}
	b := c.b
	if b.meta.SourceID == "" && rec.SessionID != "" {
		b.meta.SourceID = rec.SessionID
	}
	if b.meta.Workspace == "" && rec.Cwd != "" {
		b.meta.Workspace = rec.Cwd
	}
	if rec.Version != "" {
		b.meta.Agent = "claude-code " + rec.Version
	}
	raw := json.RawMessage(bytes.Clone(line))
	if rec.Type == "assistant" && !rec.IsSidechain {
		return c.assistant(n, t, rec, raw)
	}
	if err := c.flush(); err != nil {
		return err
	}
	switch {
	case rec.IsSidechain:
		return b.notice(t, CodeKept, fmt.Sprintf("Line %d: a %s record of a sub-agent (a sidechain), kept as the file has it.", n, rec.Type), raw)
	case rec.Type == "user":
		return c.user(n, t, rec, raw)
	case rec.Type == "summary":
		if rec.Summary != "" && (b.meta.Title == "" || !b.titled) {
			b.meta.Title, b.titled = titleOf(rec.Summary), true
		}
		return b.notice(t, CodeKept, "Claude Code's summary of the session: "+rec.Summary, raw)
	case rec.Type == "system":
		text, _, _ := textOf(rec.Content)
		msg := fmt.Sprintf("Line %d: a system record of Claude Code", n)
		if rec.Subtype != "" {
			msg += " (" + rec.Subtype + ")"
		}
		if text != "" {
			msg += ": " + text
		}
		return b.notice(t, CodeKept, msg, raw)
	}
	return b.unknown(t, fmt.Sprintf("Line %d", n), fmt.Sprintf("a record of type %q", rec.Type), raw)
}

func (c *claude) message(rec ccRecord) (ccMessage, error) {
	var m ccMessage
	if len(rec.Message) == 0 || rec.Message[0] != '{' {
		return m, fmt.Errorf(`a %s record holds its "message" as an object, and this one has %s`, rec.Type, describe(rec.Message))
	}
	if err := decodeAs(rec.Message, &m); err != nil {
		return m, fmt.Errorf("message: %w", err)
	}
	if len(bytes.TrimSpace(m.Content)) == 0 {
		return m, fmt.Errorf(`the message has no "content"`)
	}
	return m, nil
}

func (c *claude) blocks(m ccMessage) ([]ccBlock, []json.RawMessage, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(m.Content, &raws); err != nil {
		return nil, nil, fmt.Errorf("message.content is %s, and a message's content is text or a list of blocks", describe(m.Content))
	}
	out := make([]ccBlock, len(raws))
	for i, r := range raws {
		if err := decodeAs(r, &out[i]); err != nil {
			return nil, nil, fmt.Errorf("message.content[%d]: %w", i, err)
		}
		if out[i].Type == "" {
			return nil, nil, fmt.Errorf(`message.content[%d] has no "type"`, i)
		}
	}
	return out, raws, nil
}

func (c *claude) user(n int, t time.Time, rec ccRecord, raw json.RawMessage) error {
	b := c.b
	m, err := c.message(rec)
	if err != nil {
		return err
	}
	if rec.IsMeta {
		text, _, _ := textOf(m.Content)
		return b.notice(t, CodeKept, fmt.Sprintf("Line %d: a message Claude Code added for the model (not typed by the user): %s", n, text), raw)
	}
	if bytes.TrimSpace(m.Content)[0] == '"' {
		var text string
		if err := json.Unmarshal(m.Content, &text); err != nil {
			return err
		}
		return b.user(t, text, raw)
	}
	blocks, raws, err := c.blocks(m)
	if err != nil {
		return err
	}
	for i, bl := range blocks {
		switch bl.Type {
		case "text":
			if err := b.user(t, bl.Text, raw); err != nil {
				return err
			}
		case "tool_result":
			if bl.ToolUseID == "" {
				return fmt.Errorf(`message.content[%d]: a tool_result names the call it answers in "tool_use_id"`, i)
			}
			text, skipped, err := textOf(bl.Content)
			if err != nil {
				return fmt.Errorf("message.content[%d]: %w", i, err)
			}
			if err := b.result(t, bl.ToolUseID, text, bl.IsError, nil, raws[i]); err != nil {
				return err
			}
			if len(skipped) > 0 {
				if err := b.notice(t, CodeUnknown, fmt.Sprintf("Line %d: the result of call %q holds %s, which Loupe does not import (its text is kept)", n, bl.ToolUseID, strings.Join(skipped, ", ")), nil); err != nil {
					return err
				}
			}
		default:
			if err := b.unknown(t, fmt.Sprintf("Line %d", n), fmt.Sprintf("a %q block in the user's message", bl.Type), bigRaw(raws[i])); err != nil {
				return err
			}
		}
	}
	return nil
}

// bigRaw keeps a block's JSON unless it is large (an image's data): then
// its keys only.
func bigRaw(raw json.RawMessage) json.RawMessage {
	if len(raw) <= 64<<10 {
		return raw
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	keys := map[string]string{}
	for k, v := range m {
		keys[k] = fmt.Sprintf("(%d bytes, left out)", len(v))
	}
	b, _ := json.Marshal(keys)
	return b
}

func (c *claude) assistant(n int, t time.Time, rec ccRecord, raw json.RawMessage) error {
	m, err := c.message(rec)
	if err != nil {
		return err
	}
	if c.pending != nil && (m.ID == "" || m.ID != c.pending.id) {
		if err := c.flush(); err != nil {
			return err
		}
	}
	if c.pending == nil {
		c.pending = &ccAnswer{id: m.ID, t: t}
	}
	a := c.pending
	a.raws = append(a.raws, raw)
	if m.Model != "" {
		a.model = m.Model
	}
	if m.StopReason != "" {
		a.resp.DoneReason = m.StopReason
	}
	if u := m.Usage; u != nil {
		a.resp.Metrics = llm.Metrics{PromptEvalCount: u.Input + u.CacheCreation + u.CacheRead, EvalCount: u.Output}
	}
	if bytes.TrimSpace(m.Content)[0] == '"' {
		var text string
		if err := json.Unmarshal(m.Content, &text); err != nil {
			return err
		}
		a.resp.Content = joinText(a.resp.Content, text)
		return nil
	}
	blocks, raws, err := c.blocks(m)
	if err != nil {
		return err
	}
	for i, bl := range blocks {
		switch bl.Type {
		case "text":
			a.resp.Content = joinText(a.resp.Content, bl.Text)
		case "thinking":
			a.resp.Thinking = joinText(a.resp.Thinking, bl.Thinking)
		case "tool_use":
			if bl.ID == "" || bl.Name == "" {
				return fmt.Errorf(`message.content[%d]: a tool_use has its "id" and "name"`, i)
			}
			args := bl.Input
			if len(bytes.TrimSpace(args)) == 0 || bytes.Equal(bytes.TrimSpace(args), []byte("null")) {
				args = json.RawMessage(`{}`)
			}
			a.resp.ToolCalls = append(a.resp.ToolCalls, call(bl.ID, bl.Name, args))
		default:
			// redacted_thinking, server tools, and what comes next:
			// kept, after the answer.
			a.unknown = append(a.unknown, ccUnknown{n, bl.Type, bigRaw(raws[i])})
		}
	}
	return nil
}

// flush writes the answer being read.
func (c *claude) flush() error {
	a := c.pending
	if a == nil {
		return nil
	}
	c.pending = nil
	if len(a.raws) == 1 {
		a.resp.Raw = a.raws[0]
	} else {
		a.resp.Raw, _ = json.Marshal(a.raws)
	}
	if err := c.b.answer(a.t, a.model, a.resp); err != nil {
		return err
	}
	for _, u := range a.unknown {
		if err := c.b.unknown(a.t, fmt.Sprintf("Line %d", u.line), fmt.Sprintf("a %q block in the agent's answer", u.typ), u.raw); err != nil {
			return err
		}
	}
	return nil
}

func joinText(a, b string) string {
	if a == "" {
		return b
	}
	if b == "" {
		return a
	}
	return a + "\n\n" + b
}
