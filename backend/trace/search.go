package trace

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// SearchText is the text of an event that search finds: what was said and
// done in it, as a person would look for it. The store indexes exactly this
// text when it commits the event, and cuts the snippet of a hit from it, so
// it must be a pure function of the event: a change to it means the events
// indexed before must be indexed again.
//
// It holds the user's messages; an answer's content, thinking and the calls
// it asked for; each call's tool name and arguments; the whole content of
// each result (not the preview the window gets) and the paths it changed;
// notices; the reasons, summary, command and paths of a permission; errors;
// why a run ended and its final text; compaction summaries; what an edit at
// a pause put in; and the paths a restore wrote back. Requests and pauses
// repeat what other events hold (the system prompt, the history), so they
// have no text of their own. Arguments are written as "key: value" lines
// with strings unescaped, so that code reads as it was written (`"a"` in a
// command, not `\"a\"`). A payload that does not decode has no text.
func SearchText(e Event) string {
	var t textBuilder
	switch e.Kind {
	case KindUserMessage:
		if p, err := Decode[UserMessage](e); err == nil {
			t.add(p.Text)
		}
	case KindModelResponse:
		if p, err := Decode[ModelResponse](e); err == nil {
			t.add(p.Content)
			t.add(p.Thinking)
			for _, c := range p.ToolCalls {
				t.add(c.Name)
				t.json(c.Args)
			}
		}
	case KindToolCall:
		if p, err := Decode[ToolCall](e); err == nil {
			t.add(p.Name)
			t.json(p.Args)
			t.add(p.Problem)
		}
	case KindPermission:
		if p, err := Decode[Permission](e); err == nil {
			for _, r := range p.Reasons {
				t.add(r)
			}
			t.add(p.Summary)
			t.add(p.Command)
			for _, path := range p.Paths {
				t.add(path)
			}
			if p.Display != nil && p.Display.Command != p.Command {
				t.add(p.Display.Command)
			}
		}
	case KindToolResult:
		if p, err := Decode[ToolResult](e); err == nil {
			t.add(p.Content)
			for _, c := range p.Changes {
				t.add(c.Path)
			}
		}
	case KindNotice:
		if p, err := Decode[Notice](e); err == nil {
			t.add(p.Code)
			t.add(p.Message)
		}
	case KindError:
		if p, err := Decode[Error](e); err == nil {
			t.add(p.Code)
			t.add(p.Message)
		}
	case KindRunEnd:
		if p, err := Decode[RunEnd](e); err == nil {
			t.add(p.Reason)
			t.add(p.Detail)
			t.add(p.FinalText)
		}
	case KindCompaction:
		if p, err := Decode[Compaction](e); err == nil {
			t.add(p.Summary)
		}
	case KindEdit:
		if p, err := Decode[Edit](e); err == nil {
			t.json(p.After)
		}
	case KindRestore:
		if p, err := Decode[Restore](e); err == nil {
			for _, path := range p.Restored {
				t.add(path)
			}
			for _, path := range p.Overwritten {
				t.add(path)
			}
		}
	}
	return t.String()
}

// textBuilder joins the parts of an event's text one per line, leaving out
// the empty ones.
type textBuilder struct{ strings.Builder }

func (t *textBuilder) add(s string) {
	if s == "" {
		return
	}
	if t.Len() > 0 {
		t.WriteByte('\n')
	}
	t.WriteString(s)
}

// json adds a JSON value as text: a string as itself, an object as one
// "key: value" line per member in the order written (nested keys joined
// with dots), an array as its elements. What is not JSON is added as it is.
func (t *textBuilder) json(raw json.RawMessage) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := t.value(d, ""); err != nil {
		t.add(string(raw))
	}
}

func (t *textBuilder) value(d *json.Decoder, key string) error {
	tok, err := d.Token()
	if err != nil {
		return err
	}
	line := func(v string) {
		if key != "" {
			v = key + ": " + v
		}
		t.add(v)
	}
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '{':
			for d.More() {
				k, err := d.Token()
				if err != nil {
					return err
				}
				name, _ := k.(string)
				if key != "" {
					name = key + "." + name
				}
				if err := t.value(d, name); err != nil {
					return err
				}
			}
		case '[':
			for d.More() {
				if err := t.value(d, key); err != nil {
					return err
				}
			}
		}
		_, err := d.Token() // the closing delimiter
		return err
	case string:
		line(v)
	case json.Number:
		line(v.String())
	case bool:
		line(strconv.FormatBool(v))
	case nil:
	}
	return nil
}
