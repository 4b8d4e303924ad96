package session

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/trace"
)

// exportVersion is the format of a JSON export: bump it when the shape
// changes. Version 2: requests name a tool set (tool_sets) and record
// their history as the previous request's plus the events added.
const exportVersion = 2

// Exported is the JSON form of a session: its summary and its whole log,
// the same event objects the UI gets, and the tool sets its requests name.
type Exported struct {
	Format   string                 `json:"format"`
	Version  int                    `json:"version"`
	Session  Summary                `json:"session"`
	Events   []trace.Event          `json:"events"`
	ToolSets map[int][]llm.ToolSpec `json:"tool_sets"`
}

// Export writes a session as json, md or html.
func (m *Manager) Export(ctx context.Context, id, format string, w io.Writer) error {
	d, err := m.Open(ctx, id)
	if err != nil {
		return err
	}
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(Exported{Format: "loupe-session", Version: exportVersion, Session: d.Summary, Events: d.Events, ToolSets: d.ToolSets})
	case "md":
		_, err := io.WriteString(w, Markdown(d))
		return err
	case "html":
		_, err := io.WriteString(w, HTML(d))
		return err
	}
	return fmt.Errorf("unknown export format %q: use json, md or html", format)
}

// Markdown renders a readable transcript: each round's request, the
// model's answer, each call and its observation.
func Markdown(d Detail) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\nWorkspace: `%s` · Model: `%s`\n", d.Summary.Title, d.Summary.Workspace, d.Summary.Model)
	for _, e := range d.Events {
		line := Describe(e)
		switch e.Kind {
		case trace.KindUserMessage:
			p, _ := trace.Decode[trace.UserMessage](e)
			fmt.Fprintf(&b, "\n## Run %d\n\n**You:** %s\n", e.Run, p.Text)
		case trace.KindModelResponse:
			p, _ := trace.Decode[trace.ModelResponse](e)
			fmt.Fprintf(&b, "\n**Model (round %d):**\n\n", e.Round)
			if p.Thinking != "" {
				fmt.Fprintf(&b, "<details><summary>thinking</summary>\n\n%s\n\n</details>\n\n", p.Thinking)
			}
			if p.Content != "" {
				b.WriteString(p.Content + "\n")
			}
		case trace.KindToolResult:
			p, _ := trace.Decode[trace.ToolResult](e)
			fmt.Fprintf(&b, "\n%s\n\n```\n%s\n```\n", line, strings.ReplaceAll(p.Content, "```", "ʼʼʼ"))
		default:
			fmt.Fprintf(&b, "\n- %s\n", line)
		}
	}
	return b.String()
}

// HTML renders the Markdown transcript as a standalone, escaped page.
func HTML(d Detail) string {
	return "<!doctype html><meta charset=utf-8><title>" + html.EscapeString(d.Summary.Title) +
		"</title><style>body{font:14px system-ui;max-width:60rem;margin:2rem auto;padding:0 1rem}pre{white-space:pre-wrap}</style><pre>" +
		html.EscapeString(Markdown(d)) + "</pre>\n"
}

// Describe is a one-line account of an event, for the command line and the
// transcript.
func Describe(e trace.Event) string {
	switch e.Kind {
	case trace.KindUserMessage:
		p, _ := trace.Decode[trace.UserMessage](e)
		return "user: " + oneLine(p.Text)
	case trace.KindModelRequest:
		p, _ := trace.Decode[trace.ModelRequest](e)
		return fmt.Sprintf("request to %s: %d messages, %d tools, num_ctx %d, ~%d tokens", p.Model, p.MessageCount, len(p.ToolNames)+len(p.Tools), p.Options.NumCtx, p.PromptEstimate)
	case trace.KindModelResponse:
		p, _ := trace.Decode[trace.ModelResponse](e)
		s := fmt.Sprintf("response (%s", p.DoneReason)
		if p.Incomplete {
			s += ", incomplete"
		}
		s += fmt.Sprintf(", %d prompt + %d output tokens)", p.Metrics.PromptEvalCount, p.Metrics.EvalCount)
		if p.Content != "" {
			s += ": " + oneLine(p.Content)
		}
		for _, c := range p.ToolCalls {
			s += fmt.Sprintf(" [call %s %s]", c.Name, oneLine(string(c.Args)))
		}
		return s
	case trace.KindToolCall:
		p, _ := trace.Decode[trace.ToolCall](e)
		if !p.Valid {
			return fmt.Sprintf("tool call %s rejected (%s): %s", p.Name, p.ErrorKind, oneLine(p.Problem))
		}
		return fmt.Sprintf("tool call %s %s", p.Name, oneLine(string(p.Args)))
	case trace.KindPermission:
		p, _ := trace.Decode[trace.Permission](e)
		if p.Decision == trace.Ask {
			return fmt.Sprintf("asked about %s: %s", p.Tool, oneLine(p.Summary))
		}
		return fmt.Sprintf("permission %s for %s (%s)", p.Decision, p.Tool, p.By)
	case trace.KindToolResult:
		p, _ := trace.Decode[trace.ToolResult](e)
		status := "ok"
		if p.IsError {
			status = "error"
			if p.ErrorKind != "" {
				status += " " + p.ErrorKind
			}
		}
		return fmt.Sprintf("result of %s (%s, %d bytes, %d ms): %s", p.Name, status, p.Bytes, p.DurationMs, oneLine(p.Content))
	case trace.KindNotice:
		p, _ := trace.Decode[trace.Notice](e)
		return "notice: " + p.Message
	case trace.KindError:
		p, _ := trace.Decode[trace.Error](e)
		return "error: " + p.Message
	case trace.KindRunEnd:
		p, _ := trace.Decode[trace.RunEnd](e)
		s := fmt.Sprintf("run ended: %s after %d round(s)", p.Reason, p.Rounds)
		if p.Detail != "" {
			s += " — " + p.Detail
		}
		return s
	}
	return string(e.Kind)
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 160 {
		s = string(r[:160]) + "…"
	}
	return s
}
