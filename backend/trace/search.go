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
	if s, ok := searchText(e, true); ok {
		return s
	}
	s, _ := searchText(e, false)
	return s
}

// searchText is SearchText, its long strings decoded apart when fast is
// set (search_decode.go). ok is false when a stand-in for one of them is
// left in the text, changed: a payload type read it as something other
// than a string, and the payload must be decoded whole. (A text has no NUL
// of its own then: a payload that holds one is decoded whole.)
func searchText(e Event, fast bool) (string, bool) {
	t := textBuilder{fast: fast}
	switch e.Kind {
	case KindUserMessage:
		if p, err := decodeText[UserMessage](e, &t); err == nil {
			t.add(p.Text)
		}
	case KindModelResponse:
		if p, err := decodeText[ModelResponse](e, &t); err == nil {
			t.add(p.Content)
			t.add(p.Thinking)
			for _, c := range p.ToolCalls {
				t.add(c.Name)
				t.json(c.Args)
			}
		}
	case KindToolCall:
		if p, err := decodeText[ToolCall](e, &t); err == nil {
			t.add(p.Name)
			t.json(p.Args)
			t.add(p.Problem)
		}
	case KindPermission:
		if p, err := decodeText[Permission](e, &t); err == nil {
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
		if p, err := decodeText[ToolResult](e, &t); err == nil {
			t.add(p.Content)
			for _, c := range p.Changes {
				t.add(c.Path)
			}
		}
	case KindNotice:
		if p, err := decodeText[Notice](e, &t); err == nil {
			t.add(p.Code)
			t.add(p.Message)
		}
	case KindError:
		if p, err := decodeText[Error](e, &t); err == nil {
			t.add(p.Code)
			t.add(p.Message)
		}
	case KindRunEnd:
		if p, err := decodeText[RunEnd](e, &t); err == nil {
			t.add(p.Reason)
			t.add(p.Detail)
			t.add(p.FinalText)
		}
	case KindCompaction:
		if p, err := decodeText[Compaction](e, &t); err == nil {
			t.add(p.Summary)
		}
	case KindHookRun:
		if p, err := decodeText[HookRun](e, &t); err == nil {
			t.add(p.Hook)
			t.add(p.Command)
			t.add(p.Stdout)
			t.add(p.Stderr)
			t.add(p.Reason)
		}
	case KindEdit:
		if p, err := decodeText[Edit](e, &t); err == nil {
			t.json(p.After)
		}
	case KindRestore:
		if p, err := decodeText[Restore](e, &t); err == nil {
			for _, path := range p.Restored {
				t.add(path)
			}
			for _, path := range p.Overwritten {
				t.add(path)
			}
		}
	}
	out := t.String()
	return out, t.longs == nil || strings.IndexByte(out, 0) < 0
}

// textBuilder joins the parts of an event's text one per line, leaving out
// the empty ones. longs are the long strings of the payload being read,
// which add and json put back in place of their stand-ins.
type textBuilder struct {
	strings.Builder
	fast  bool
	longs *longStrings
}

func (t *textBuilder) add(s string) {
	s = t.longs.swap(s)
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
				name = t.longs.swap(name)
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
		line(t.longs.swap(v))
	case json.Number:
		line(v.String())
	case bool:
		line(strconv.FormatBool(v))
	case nil:
	}
	return nil
}
