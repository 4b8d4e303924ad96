package trace

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"
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

// frame is one object or array previewJSON is inside.
type frame struct {
	obj     bool
	key     string // the current member's name (objects)
	wantKey bool   // the next string is a member's name (objects)
	idx     int    // the current element's index (arrays)
}

// previewJSON walks src token by token and copies it, replacing the long
// strings (and the top-level "raw" member when dropRaw) in place, so that
// everything else keeps its exact bytes.
func previewJSON(src []byte, dropRaw bool) ([]byte, map[string]Cut, error) {
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	var (
		stack []frame
		out   []byte
		last  int
		cuts  map[string]Cut
	)
	// replace puts text in place of src[from:to], the value just read.
	replace := func(from, to int, text []byte, c Cut) {
		if cuts == nil {
			cuts = map[string]Cut{}
			out = make([]byte, 0, len(src))
		}
		cuts[pointer(stack)] = c
		out = append(append(out, src[last:from]...), text...)
		last = to
	}
	// next moves the innermost object or array past the value just read.
	next := func() {
		if len(stack) == 0 {
			return
		}
		if top := &stack[len(stack)-1]; top.obj {
			top.wantKey = true
		} else {
			top.idx++
		}
	}
	for {
		at := int(dec.InputOffset())
		if dropRaw && len(stack) == 1 && stack[0].obj && !stack[0].wantKey && stack[0].key == "raw" {
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return nil, nil, err
			}
			if !bytes.Equal(v, []byte("null")) {
				replace(valueStart(src, at), int(dec.InputOffset()), []byte("null"), Cut{Bytes: len(v)})
			}
			next()
			continue
		}
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, frame{obj: true, wantKey: true})
			case '[':
				stack = append(stack, frame{})
			default:
				stack = stack[:len(stack)-1]
				next()
			}
		case string:
			if n := len(stack); n > 0 && stack[n-1].obj && stack[n-1].wantKey {
				stack[n-1].key, stack[n-1].wantKey = t, false
				continue
			}
			if len(t) > PreviewBytes {
				b, err := json.Marshal(cutText(t))
				if err != nil {
					return nil, nil, err
				}
				replace(valueStart(src, at), int(dec.InputOffset()), b, Cut{Bytes: len(t), Lines: strings.Count(t, "\n") + 1})
			}
			next()
		default:
			next()
		}
	}
	if cuts == nil {
		return src, nil, nil
	}
	return append(out, src[last:]...), cuts, nil
}

// valueStart is where the value after offset at begins: past the
// separator and the white space before it.
func valueStart(src []byte, at int) int {
	for at < len(src) {
		switch src[at] {
		case ' ', '\t', '\n', '\r', ',', ':':
			at++
		default:
			return at
		}
	}
	return at
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

// pointer is the JSON Pointer (RFC 6901) of the value the walk is at.
func pointer(stack []frame) string {
	var b strings.Builder
	for _, f := range stack {
		b.WriteByte('/')
		if f.obj {
			b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(f.key))
		} else {
			b.WriteString(strconv.Itoa(f.idx))
		}
	}
	return b.String()
}
