// The snippet of a hit: the text around its first match, matched as the
// index matches it.

package store

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Snippet cuts the text around the first match of q in text (ignoring
// case as the index does) into pieces, the matches marked: about 60 bytes
// before it and 120 after, whitespace runs shown as one space, "…" where
// the text goes on. A text without a match (an index of another case
// folding) gives its start, unmarked.
func Snippet(text, q string) []SnippetPart {
	return snippetAt(text, q, matchesFold(text, q, 1))
}

// snippetAt is Snippet of the first match found already (none: nil).
func snippetAt(text, q string, first [][2]int) []SnippetPart {
	const before, after = 60, 120
	ms := first[:len(first):len(first)] // appending below must not write into first's array
	start, end := 0, min(len(text), before+after)
	if len(ms) > 0 {
		start = max(0, ms[0][0]-before)
		end = min(len(text), ms[0][1]+after)
	}
	for start > 0 && !utf8.RuneStart(text[start]) {
		start--
	}
	for end < len(text) && !utf8.RuneStart(text[end]) {
		end++
	}
	if len(ms) > 0 {
		// The other matches shown are those after the first, within the
		// snippet: looked for there only, not in the rest of a long text.
		from := ms[0][1]
		for _, m := range matchesFold(text[from:end], q, 7) {
			ms = append(ms, [2]int{from + m[0], from + m[1]})
		}
	}
	var parts []SnippetPart
	add := func(s string, match bool) {
		s = collapseSpace(s)
		if s == "" {
			return
		}
		parts = append(parts, SnippetPart{Text: s, Match: match})
	}
	if start > 0 {
		add("…", false)
	}
	at := start
	for _, m := range ms {
		if m[0] < at || m[1] > end {
			continue
		}
		add(text[at:m[0]], false)
		add(text[m[0]:m[1]], true)
		at = m[1]
	}
	add(text[at:end], false)
	if end < len(text) {
		add("…", false)
	}
	// A snippet starts and ends with text, not the space of a cut line.
	if len(parts) > 0 && !parts[0].Match {
		parts[0].Text = strings.TrimLeft(parts[0].Text, " ")
	}
	if n := len(parts); n > 0 && !parts[n-1].Match {
		parts[n-1].Text = strings.TrimRight(parts[n-1].Text, " ")
	}
	if parts == nil {
		parts = []SnippetPart{}
	}
	return parts
}

// collapseSpace shows each run of whitespace as one space: a snippet is
// one line.
func collapseSpace(s string) string {
	if !strings.ContainsAny(s, "\n\r\t\v\f") && !strings.Contains(s, "  ") {
		return s
	}
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// matchesFold returns the byte ranges of the first max occurrences of q in
// text, without overlaps, comparing runes lowercased (as the trigram
// tokenizer folds case).
func matchesFold(text, q string, max int) [][2]int {
	qr := []rune(q)
	for i, r := range qr {
		qr[i] = unicode.ToLower(r)
	}
	if len(qr) == 0 {
		return nil
	}
	// A query that starts with an ASCII letter or sign skips the bytes
	// that cannot start a match without decoding them: most of a long
	// output.
	first := -1
	if qr[0] < utf8.RuneSelf && unicode.ToUpper(qr[0]) < utf8.RuneSelf {
		first = int(qr[0])
	}
	upper := int(unicode.ToUpper(qr[0]))
	// Only 'i' and 'k' are what a rune beyond ASCII lowercases to (İ, the
	// Kelvin sign): any other ASCII first character starts a match only at
	// itself or its capital, which IndexByte finds a word at a time. next
	// holds where each is next, from where the search is.
	fast := first >= 0 && first != 'i' && first != 'k'
	next := [2]int{-1, -1}
	var out [][2]int
	for i := 0; i < len(text) && len(out) < max; {
		if fast {
			at := len(text)
			for k, c := range [2]int{first, upper} {
				if next[k] < i && next[k] != len(text) {
					if j := strings.IndexByte(text[i:], byte(c)); j >= 0 {
						next[k] = i + j
					} else {
						next[k] = len(text)
					}
				}
				at = min(at, next[k])
			}
			if at == len(text) {
				break
			}
			i = at
		} else if b := int(text[i]); first >= 0 && b < utf8.RuneSelf && b != first && b != upper {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		if unicode.ToLower(r) != qr[0] {
			i += n
			continue
		}
		j, k := i+n, 1
		for ; k < len(qr) && j < len(text); k++ {
			r2, n2 := utf8.DecodeRuneInString(text[j:])
			if unicode.ToLower(r2) != qr[k] {
				break
			}
			j += n2
		}
		if k == len(qr) {
			out = append(out, [2]int{i, j})
			i = j
			continue
		}
		i += n
	}
	return out
}
