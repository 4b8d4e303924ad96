package trace

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// SearchText decodes payloads that may be megabytes long (a build log, a
// file read whole), and search decodes one for each hit it shows, to cut
// its snippet. encoding/json reads such a string byte by byte through its
// scanner, twice, at a few tens of MB/s; so a payload with long strings is
// decoded in two steps instead: its long strings are taken out and
// decoded by unquote (a copy between escapes), the rest, now small, by
// encoding/json into the payload type as Decode does, and textBuilder puts
// each long string back where its stand-in is read.

// longString is how many bytes of JSON a string takes before it is taken
// out: below it, encoding/json is as fast.
const longString = 512

// longStrings are the strings taken out of a payload, each once (equal
// strings share a stand-in, so that comparing two stand-ins compares the
// strings); a stand-in is the JSON string "\u0000" followed by the index.
type longStrings struct {
	vals []string
	idx  map[string]int
}

// swap returns the long string s stands in for, or s.
func (l *longStrings) swap(s string) string {
	if l == nil || len(s) < 2 || s[0] != 0 {
		return s
	}
	i, err := strconv.Atoi(s[1:])
	if err != nil || i < 0 || i >= len(l.vals) {
		return s
	}
	return l.vals[i]
}

// takeLong returns payload with each string longer than longString bytes
// (decoded: a shorter one is never taken out, so no short string can equal
// a stand-in's string) replaced by its stand-in, and those strings decoded. ok is false
// where the two steps could not tell a stand-in from the payload's own
// text (it holds a NUL already), where a long string does not decode as
// encoding/json would decode it, or where there is nothing long: then the
// payload is decoded whole.
func takeLong(payload []byte) (small []byte, l *longStrings, ok bool) {
	if len(payload) < longString || bytes.Contains(payload, []byte(`\u0000`)) {
		return nil, nil, false
	}
	l = &longStrings{idx: map[string]int{}}
	last := 0
	for i := 0; i < len(payload); {
		q := bytes.IndexByte(payload[i:], '"')
		if q < 0 {
			break
		}
		start := i + q
		end, closed := stringEnd(payload, start)
		if !closed {
			return nil, nil, false
		}
		if end-start-2 > longString { // a string's text is never longer than its JSON
			s, ok := unquote(payload[start:end])
			if !ok {
				return nil, nil, false
			}
			if len(s) > longString {
				n, seen := l.idx[s]
				if !seen {
					n = len(l.vals)
					l.idx[s] = n
					l.vals = append(l.vals, s)
				}
				if small == nil {
					small = make([]byte, 0, 1024)
				}
				small = append(small, payload[last:start]...)
				small = append(small, `"\u0000`...)
				small = strconv.AppendInt(small, int64(n), 10)
				small = append(small, '"')
				last = end
			}
		}
		i = end
	}
	if len(l.vals) == 0 {
		return nil, nil, false
	}
	return append(small, payload[last:]...), l, true
}

// stringEnd returns the index just past the JSON string that starts at
// src[start] (a quote), and whether it is closed: the first quote after it
// that an odd number of backslashes does not escape.
func stringEnd(src []byte, start int) (int, bool) {
	for j := start + 1; j < len(src); j++ {
		k := bytes.IndexByte(src[j:], '"')
		if k < 0 {
			return 0, false
		}
		j += k
		n := 0
		for n < j-start-1 && src[j-1-n] == '\\' {
			n++
		}
		if n%2 == 0 {
			return j + 1, true
		}
	}
	return 0, false
}

// decodeText decodes e's payload as Decode does, its long strings left as
// stand-ins for t to put back (see takeLong); where t.fast is off, or the
// payload has nothing long, it is Decode.
func decodeText[T Payload](e Event, t *textBuilder) (T, error) {
	var p T
	if !t.fast || e.Kind != p.kind() {
		return Decode[T](e)
	}
	small, l, ok := takeLong(e.Payload)
	if !ok {
		return Decode[T](e)
	}
	if err := json.Unmarshal(small, &p); err != nil {
		return Decode[T](e)
	}
	t.longs = l
	return p, nil
}
