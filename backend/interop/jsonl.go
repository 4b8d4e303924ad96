package interop

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// eachLine calls fn with each line of a JSONL file that is not blank,
// numbered from 1, read one line at a time: a file of any size costs the
// memory of its longest line. A last line with no newline that is not
// whole JSON is a file cut short.
func eachLine(r io.Reader, source string, fn func(n int, line []byte) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		last := errors.Is(err, io.EOF)
		line = bytes.TrimSpace(line)
		if len(line) > 0 {
			if !json.Valid(line) {
				if last {
					return &Error{Source: source, Line: n, Problem: "the file ends in the middle of this line: it was cut short (copy it again, or wait until the agent has written it)"}
				}
				return &Error{Source: source, Line: n, Problem: "not a line of JSON" + jsonProblem(line)}
			}
			if line[0] != '{' {
				return &Error{Source: source, Line: n, Problem: "a line of this format is a JSON object, and this one is " + describe(line)}
			}
			if err := fn(n, line); err != nil {
				return passOn(err, func(err error) error { return &Error{Source: source, Line: n, Problem: err.Error()} })
			}
		}
		if last {
			return nil
		}
	}
}

// jsonProblem is what the decoder says is wrong with b.
func jsonProblem(b []byte) string {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return " (" + err.Error() + ")"
	}
	return ""
}

// describe names a JSON value's type.
func describe(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// decodeAs decodes raw into v, saying what was expected where a type is
// wrong ("message.content: a number where the format has a string").
func decodeAs(raw []byte, v any) error {
	err := json.Unmarshal(raw, v)
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return fmt.Errorf("%s: %s where the format has %s", typ.Field, a(typ.Value), goType(typ.Type.String()))
	}
	return err
}

func a(v string) string {
	switch v {
	case "object", "array", "number", "string", "bool":
		if v == "array" {
			return "a list"
		}
		if v == "bool" {
			return "a boolean"
		}
		if v == "object" {
			return "an object"
		}
		return "a " + v
	}
	return v
}

func goType(t string) string {
	switch {
	case t == "string":
		return "a string"
	case t == "bool":
		return "a boolean"
	case t == "time.Time":
		return "a time (RFC 3339)"
	case len(t) > 2 && t[:2] == "[]":
		return "a list"
	case len(t) > 3 && t[:3] == "map", t == "json.RawMessage":
		return "an object"
	case len(t) >= 3 && (t[:3] == "int" || t[:3] == "flo"):
		return "a number"
	}
	return "an object"
}

// parseTime reads a record's timestamp ("" is none).
func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("timestamp %q is not a time in RFC 3339", s)
	}
	return t, nil
}

// textOf reads content that is a string, or a list of blocks whose text
// it joins (the other blocks are counted in skipped, by type).
func textOf(raw json.RawMessage) (text string, skipped []string, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] == 'n' {
		return "", nil, nil
	}
	if raw[0] == '"' {
		err = json.Unmarshal(raw, &text)
		return text, nil, err
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := decodeAs(raw, &blocks); err != nil {
		return "", nil, fmt.Errorf("content is neither text nor a list of blocks: %w", err)
	}
	var parts []string
	for _, bl := range blocks {
		switch bl.Type {
		case "text", "input_text", "output_text":
			parts = append(parts, bl.Text)
		default:
			skipped = append(skipped, bl.Type)
			parts = append(parts, fmt.Sprintf("[%s: not imported]", bl.Type))
		}
	}
	return joinLines(parts), skipped, nil
}

func joinLines(parts []string) string {
	var b bytes.Buffer
	for i, p := range parts {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p)
	}
	return b.String()
}

// extraKeys are the keys of object raw that known does not list.
func extraKeys(raw json.RawMessage, known ...string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	for _, k := range known {
		delete(m, k)
	}
	return m, nil
}
