package trace

import (
	"fmt"
	"strings"

	"github.com/loupe-dev/loupe/backend/visible"
)

// Header is what a transcript says of its session before the log.
type Header struct {
	Title, Workspace, Model string
}

// Markdown renders a readable transcript of a session's log: each round's
// request, the model's answer, each call and its observation. Every piece
// of text from the log is shown through package visible, so a transcript
// printed on a terminal shows the control characters in it escaped
// instead of obeying them.
func Markdown(h Header, evs []Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\nWorkspace: `%s` · Model: `%s`\n", visible.Line(h.Title), visible.Line(h.Workspace), visible.Line(h.Model))
	for _, e := range evs {
		line := Describe(e)
		switch e.Kind {
		case KindUserMessage:
			p, _ := Decode[UserMessage](e)
			fmt.Fprintf(&b, "\n## Run %d\n\n**You:** %s\n", e.Run, visible.Text(p.Text))
		case KindModelResponse:
			p, _ := Decode[ModelResponse](e)
			if p.Content == "" && p.Thinking == "" {
				// An answer of tool calls only: say so on one line; the
				// calls follow, each on its own.
				names := make([]string, len(p.ToolCalls))
				for i, c := range p.ToolCalls {
					names[i] = "`" + visible.Line(c.Name) + "`"
				}
				what := "nothing"
				if len(names) > 0 {
					what = "asks for " + strings.Join(names, ", ")
				}
				fmt.Fprintf(&b, "\n**Model (round %d):** %s\n", e.Round, what)
				continue
			}
			fmt.Fprintf(&b, "\n**Model (round %d):**\n\n", e.Round)
			if p.Thinking != "" {
				fmt.Fprintf(&b, "<details><summary>thinking</summary>\n\n%s\n\n</details>\n\n", visible.Text(p.Thinking))
			}
			if p.Content != "" {
				b.WriteString(visible.Text(p.Content) + "\n")
			}
		case KindToolResult:
			p, _ := Decode[ToolResult](e)
			fmt.Fprintf(&b, "\n%s\n\n```\n%s\n```\n", line, strings.ReplaceAll(visible.Text(p.Content), "```", "ʼʼʼ"))
		default:
			fmt.Fprintf(&b, "\n- %s\n", line)
		}
	}
	// Each piece was shown as it belongs (a title on one line, an answer
	// with its line breaks); the whole is passed once more so that a piece
	// added later cannot forget to be.
	return visible.Text(b.String())
}

// Describe is a one-line account of an event, for the command line and the
// transcript. It is one line whatever the event holds, and shows the
// control characters in it escaped (see package visible): what the model
// wrote, a command printed or a server said cannot start a line that looks
// like another event, or steer the terminal it is printed on.
func Describe(e Event) string { return visible.Line(describe(e)) }

func describe(e Event) string {
	switch e.Kind {
	case KindUserMessage:
		p, _ := Decode[UserMessage](e)
		return "user: " + oneLine(p.Text)
	case KindModelRequest:
		p, _ := Decode[ModelRequest](e)
		model := p.Model
		if p.HostName != "" {
			// A named host is said; the local one is where requests go
			// unless said otherwise.
			model += " on " + p.HostName
		}
		if p.Purpose == PurposeCompaction {
			return fmt.Sprintf("request to %s for a summary of the history through event %d, ~%d tokens", model, p.Compact, p.PromptEstimate)
		}
		window := "num_ctx not recorded"
		if p.Options.NumCtx > 0 {
			window = fmt.Sprintf("num_ctx %d", p.Options.NumCtx)
		}
		return fmt.Sprintf("request to %s: %d messages, %d tools, %s, ~%d tokens", model, p.MessageCount, len(p.ToolNames)+len(p.Tools), window, p.PromptEstimate)
	case KindModelResponse:
		p, _ := Decode[ModelResponse](e)
		s := fmt.Sprintf("response (%s", p.DoneReason)
		if p.Incomplete {
			s += ", incomplete"
		}
		s += fmt.Sprintf(", %d prompt + %d output tokens", p.Metrics.PromptEvalCount, p.Metrics.EvalCount)
		if m := p.Context; m != nil && m.Context() > 0 {
			s += fmt.Sprintf(", context %d%% of %d", m.Prompt*100/m.Context(), m.Context())
		}
		s += ")"
		if p.Content != "" {
			s += ": " + oneLine(p.Content)
		}
		for _, c := range p.ToolCalls {
			s += fmt.Sprintf(" [call %s %s]", c.Name, oneLine(string(c.Args)))
		}
		return s
	case KindToolCall:
		p, _ := Decode[ToolCall](e)
		if !p.Valid {
			return fmt.Sprintf("tool call %s rejected (%s): %s", p.Name, p.ErrorKind, oneLine(p.Problem))
		}
		return fmt.Sprintf("tool call %s %s", p.Name, oneLine(string(p.Args)))
	case KindPermission:
		p, _ := Decode[Permission](e)
		if p.Decision == Ask {
			return fmt.Sprintf("asked about %s: %s", p.Tool, oneLine(p.Summary))
		}
		return fmt.Sprintf("permission %s for %s (%s)", p.Decision, p.Tool, p.By)
	case KindToolResult:
		p, _ := Decode[ToolResult](e)
		status := "ok"
		if p.IsError {
			status = "error"
			if p.ErrorKind != "" {
				status += " " + p.ErrorKind
			}
		}
		return fmt.Sprintf("result of %s (%s, %d bytes, %d ms): %s", p.Name, status, p.Bytes, p.DurationMs, oneLine(p.Content))
	case KindNotice:
		p, _ := Decode[Notice](e)
		return "notice: " + p.Message
	case KindError:
		p, _ := Decode[Error](e)
		s := "error: " + p.Message
		if f := p.Fit; f != nil {
			parts := make([]string, len(f.Parts))
			for i, part := range f.Parts {
				parts[i] = fmt.Sprintf("%s ~%d", part.Name, part.Tokens)
			}
			s += " Biggest parts: " + strings.Join(parts, ", ") + "."
			if f.Largest != nil {
				s += fmt.Sprintf(" Largest message: %s, ~%d tokens.", f.Largest.Name, f.Largest.Tokens)
			}
		}
		return s
	case KindCompaction:
		p, _ := Decode[Compaction](e)
		return fmt.Sprintf("compaction (%s): %d messages (%s) replaced by a summary, ~%d → ~%d tokens: %s",
			p.Trigger, p.Messages, p.Span(), p.TokensBefore, p.TokensAfter, oneLine(p.Summary))
	case KindHookRun:
		p, _ := Decode[HookRun](e)
		s := fmt.Sprintf("hook %s (%s) %s, exit %d, %d ms", p.Hook, p.Event, p.Outcome, p.ExitCode, p.DurationMs)
		if p.Decision != "" {
			s += ", decided " + p.Decision
		}
		if p.Reason != "" {
			s += ": " + oneLine(p.Reason)
		}
		return s
	case KindRunEnd:
		p, _ := Decode[RunEnd](e)
		s := fmt.Sprintf("run ended: %s after %d round(s)", p.Reason, p.Rounds)
		if p.Detail != "" {
			s += " — " + p.Detail
		}
		return s
	}
	return string(e.Kind)
}

// oneLine is s on one line: its runs of spaces and line breaks become one
// space. Control characters are escaped first, so a carriage return or a
// C1 control (NEL is one) shows as what it is instead of as a space.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(visible.Text(s)), " ")
	if r := []rune(s); len(r) > 160 {
		s = string(r[:160]) + "…"
	}
	return s
}
