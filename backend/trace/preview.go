package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// How much of a long text a preview keeps: a string longer than
// PreviewBytes keeps its first PreviewLines lines, and at most PreviewBytes
// bytes of them. A timeline card shows no more than that until it is
// expanded (the UI folds a text at 14 lines).
const (
	PreviewBytes = 2048
	PreviewLines = 16
)

// Cut is how long the whole of a field cut from a preview is: a text's
// bytes (UTF-8) and lines, or the bytes of the JSON of a value left out.
type Cut struct {
	Bytes int `json:"bytes"`
	Lines int `json:"lines,omitempty"`
}

// Preview returns e as the window gets it when a session is opened: with
// the payload it draws, not every byte of it. The payload keeps all its
// fields, and its bytes, except that
//   - every string longer than PreviewBytes, wherever it is (a result's
//     content, a response's text or thinking, a call's arguments, an
//     edit's before and after, a changed file), is cut to its start;
//   - a model_response's raw (Ollama's wire JSON, which only the Raw view
//     shows, and which repeats the response) becomes null;
//   - a model_request written before tool sets and history deltas loses
//     its tools (every tool's schema) and history_seqs (every history
//     event), which grow with the session and which the window does not
//     draw; it gets tool_names instead, as requests have now.
//
// e.Preview names each field so changed by its JSON Pointer into the
// payload ("/content", "/changes/0/before", "/tool_calls/1/args/content")
// with the length of the whole; the window fetches the stored payload
// when it needs the rest. An event with nothing to cut comes back as it
// is. Preview is pure and never fails: a payload it cannot read is
// returned whole.
func Preview(e Event) Event {
	p, cuts := e.Payload, map[string]Cut(nil)
	if e.Kind == KindModelRequest {
		p, cuts = oldRequest(p)
	}
	dropRaw := e.Kind == KindModelResponse
	if len(p) > PreviewBytes || dropRaw {
		out, more, err := previewJSON(p, dropRaw)
		if err != nil {
			return e
		}
		p = out
		for k, c := range more {
			if cuts == nil {
				cuts = map[string]Cut{}
			}
			cuts[k] = c
		}
	}
	if len(cuts) == 0 {
		return e
	}
	e.Payload, e.Preview = p, cuts
	return e
}

// oldRequest takes the tools and history_seqs out of a model_request
// payload written before tool sets and history deltas, naming the tools in
// tool_names. A payload without them comes back as it is.
func oldRequest(p json.RawMessage) (json.RawMessage, map[string]Cut) {
	if !bytes.Contains(p, []byte(`"tools"`)) && !bytes.Contains(p, []byte(`"history_seqs"`)) {
		return p, nil
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(p, &fields) != nil {
		return p, nil
	}
	cuts := map[string]Cut{}
	if tools, ok := fields["tools"]; ok && !bytes.Equal(tools, []byte("null")) {
		var specs []struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(tools, &specs) != nil {
			return p, nil
		}
		if _, ok := fields["tool_names"]; !ok && len(specs) > 0 {
			names := make([]string, len(specs))
			for i, s := range specs {
				names[i] = s.Name
			}
			fields["tool_names"], _ = json.Marshal(names)
		}
		delete(fields, "tools")
		cuts["/tools"] = Cut{Bytes: len(tools)}
	}
	if seqs, ok := fields["history_seqs"]; ok && !bytes.Equal(seqs, []byte("null")) {
		delete(fields, "history_seqs")
		cuts["/history_seqs"] = Cut{Bytes: len(seqs)}
	}
	if len(cuts) == 0 {
		return p, nil
	}
	out, err := json.Marshal(fields)
	if err != nil {
		return p, nil
	}
	return out, cuts
}

// pointerEscape writes a member's name as a JSON Pointer (RFC 6901) token.
var pointerEscape = strings.NewReplacer("~", "~0", "/", "~1")

// maxDepth bounds how deeply previewJSON follows nested values, as
// encoding/json does.
const maxDepth = 10000

// previewJSON copies src, replacing its long strings (and the top-level
// "raw" member when dropRaw) in place, so that everything else keeps its
// exact bytes. It scans the JSON itself instead of decoding it: only a
// string long enough to be cut is decoded, so a long log previews at the
// speed of a copy.
func previewJSON(src []byte, dropRaw bool) ([]byte, map[string]Cut, error) {
	w := walker{src: src, dropRaw: dropRaw}
	w.space()
	if err := w.value(0); err != nil {
		return nil, nil, err
	}
	if w.space(); w.i != len(src) {
		return nil, nil, w.fail("data after the value")
	}
	if w.cuts == nil {
		return src, nil, nil
	}
	return append(w.out, src[w.last:]...), w.cuts, nil
}

// segment is one step of the path to the value the walk is in: a member's
// name as written in src (quotes left out), or an element's index.
type segment struct {
	name []byte // nil for an element
	idx  int
}

// walker is previewJSON's state: where it is in src, the JSON Pointer
// tokens of the value it is in, and what it has written so far.
type walker struct {
	src     []byte
	i       int
	path    []segment
	dropRaw bool
	out     []byte
	last    int // src[last:] is not copied to out yet
	cuts    map[string]Cut
	// skipping is set inside a value that goes whole (raw).
	skipping bool
}

func (w *walker) fail(what string) error {
	return fmt.Errorf("trace: preview: %s at byte %d", what, w.i)
}

func (w *walker) space() {
	for w.i < len(w.src) {
		switch w.src[w.i] {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return
		}
	}
}

// replace puts text in place of src[from:w.i], the value just read, and
// marks it cut at the current path.
func (w *walker) replace(from int, text []byte, c Cut) {
	if w.cuts == nil {
		w.cuts = map[string]Cut{}
		w.out = make([]byte, 0, len(w.src))
	}
	var ptr strings.Builder
	for _, seg := range w.path {
		ptr.WriteByte('/')
		if seg.name == nil {
			ptr.WriteString(strconv.Itoa(seg.idx))
			continue
		}
		name := string(seg.name)
		if bytes.IndexByte(seg.name, '\\') >= 0 {
			// Checked when it was read.
			name, _ = unquote(append(append([]byte{'"'}, seg.name...), '"'))
		}
		ptr.WriteString(pointerEscape.Replace(name))
	}
	w.cuts[ptr.String()] = c
	w.out = append(append(w.out, w.src[w.last:from]...), text...)
	w.last = w.i
}

// value reads the value at w.i, which starts with no white space.
func (w *walker) value(depth int) error {
	if depth > maxDepth {
		return w.fail("values nested too deeply")
	}
	if w.i >= len(w.src) {
		return w.fail("a value missing")
	}
	switch w.src[w.i] {
	case '{':
		return w.object(depth)
	case '[':
		return w.array(depth)
	case '"':
		from := w.i
		if err := w.skipString(); err != nil {
			return err
		}
		// A string's text is never longer than its JSON.
		if w.skipping || w.i-from-2 <= PreviewBytes {
			return nil
		}
		text, ok := unquote(w.src[from:w.i])
		if !ok {
			return w.fail("a string that does not decode")
		}
		if len(text) > PreviewBytes {
			b, err := json.Marshal(cutText(text))
			if err != nil {
				return err
			}
			w.replace(from, b, Cut{Bytes: len(text), Lines: strings.Count(text, "\n") + 1})
		}
		return nil
	default:
		// A number, true, false or null.
		from := w.i
	scalar:
		for ; w.i < len(w.src); w.i++ {
			switch w.src[w.i] {
			case ',', ':', ']', '}', ' ', '\t', '\n', '\r':
				break scalar
			}
		}
		if w.i == from {
			return w.fail("a value missing")
		}
		return nil
	}
}

func (w *walker) object(depth int) error {
	w.i++ // {
	w.space()
	if w.i < len(w.src) && w.src[w.i] == '}' {
		w.i++
		return nil
	}
	for {
		if w.i >= len(w.src) || w.src[w.i] != '"' {
			return w.fail("a member's name missing")
		}
		from := w.i
		if err := w.skipString(); err != nil {
			return err
		}
		name := w.src[from+1 : w.i-1]
		if bytes.IndexByte(name, '\\') >= 0 {
			if _, ok := unquote(w.src[from:w.i]); !ok {
				return w.fail("a member's name that does not decode")
			}
		}
		if w.space(); w.i >= len(w.src) || w.src[w.i] != ':' {
			return w.fail("':' missing")
		}
		w.i++
		w.space()
		w.path = append(w.path, segment{name: name})
		if w.dropRaw && depth == 0 && string(name) == "raw" {
			// All of raw goes: nothing inside it is cut on the way.
			from := w.i
			w.skipping = true
			err := w.value(depth + 1)
			w.skipping = false
			if err != nil {
				return err
			}
			if v := w.src[from:w.i]; !bytes.Equal(v, []byte("null")) {
				w.replace(from, []byte("null"), Cut{Bytes: len(v)})
			}
		} else if err := w.value(depth + 1); err != nil {
			return err
		}
		w.path = w.path[:len(w.path)-1]
		w.space()
		if w.i >= len(w.src) {
			return w.fail("'}' missing")
		}
		switch w.src[w.i] {
		case ',':
			w.i++
			w.space()
		case '}':
			w.i++
			return nil
		default:
			return w.fail("',' or '}' missing")
		}
	}
}

func (w *walker) array(depth int) error {
	w.i++ // [
	w.space()
	if w.i < len(w.src) && w.src[w.i] == ']' {
		w.i++
		return nil
	}
	w.path = append(w.path, segment{})
	defer func() { w.path = w.path[:len(w.path)-1] }()
	for n := 0; ; n++ {
		w.path[len(w.path)-1].idx = n
		if err := w.value(depth + 1); err != nil {
			return err
		}
		w.space()
		if w.i >= len(w.src) {
			return w.fail("']' missing")
		}
		switch w.src[w.i] {
		case ',':
			w.i++
			w.space()
		case ']':
			w.i++
			return nil
		default:
			return w.fail("',' or ']' missing")
		}
	}
}

// unquote decodes a JSON string (quotes included) as encoding/json does,
// in one pass: a long log has thousands of long strings to measure and
// cut. ok is false for an escape JSON does not have.
func unquote(q []byte) (string, bool) {
	q = q[1 : len(q)-1]
	if bytes.IndexByte(q, '\\') < 0 {
		return string(q), utf8.Valid(q)
	}
	out := make([]byte, 0, len(q))
	for i := 0; i < len(q); {
		// The text up to the next escape goes in one copy: a log of code
		// has an escape every few dozen bytes, not at every one.
		j := bytes.IndexByte(q[i:], '\\')
		if j < 0 {
			out = append(out, q[i:]...)
			break
		}
		out = append(out, q[i:i+j]...)
		i += j
		if i+1 >= len(q) {
			return "", false
		}
		switch q[i+1] {
		case '"', '\\', '/':
			out = append(out, q[i+1])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(q[i+2:])
			if !ok {
				return "", false
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok := rune(-1), false
				if i+7 < len(q) && q[i+2] == '\\' && q[i+3] == 'u' {
					r2, ok = hex4(q[i+4:])
				}
				if d := utf16.DecodeRune(r, r2); ok && d != utf8.RuneError {
					r = d
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", false
		}
		i += 2
	}
	if !utf8.Valid(out) {
		// encoding/json would replace what is not UTF-8; json.Marshal
		// never writes such a payload, so it is left whole.
		return "", false
	}
	return string(out), true
}

// hex4 reads the four hex digits of a \u escape.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// skipString moves past the string at w.i.
func (w *walker) skipString() error {
	for j := w.i + 1; j < len(w.src); j++ {
		switch w.src[j] {
		case '\\':
			j++
		case '"':
			w.i = j + 1
			return nil
		}
	}
	return w.fail("a string not closed")
}

// cutText is the start of s a preview keeps: its first PreviewLines
// lines, at most PreviewBytes bytes, never ending inside a character.
func cutText(s string) string {
	end := 0
	for i := 0; i < PreviewLines; i++ {
		nl := strings.IndexByte(s[end:], '\n')
		if nl < 0 {
			end = len(s)
			break
		}
		end += nl + 1
	}
	end = min(end, PreviewBytes)
	for end > 0 && end < len(s) && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end]
}
