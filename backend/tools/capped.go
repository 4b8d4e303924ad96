package tools

import (
	"fmt"
	"unicode/utf8"
)

// ResultCap is how much of a tool's text result the model gets when the
// tool has no cap of its own (an MCP server's tool): as much as a
// command's output.
const ResultCap = runOutputCap

// Capped keeps the head and the tail of text, ResultCap bytes in all, cut
// at whole runes, with a line saying how much the middle was; it reports
// whether it cut.
func Capped(text string) (string, bool) {
	if len(text) <= ResultCap {
		return text, false
	}
	half := ResultCap / 2
	cut := half
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	head := text[:cut]
	start := len(text) - half
	for start < len(text) && !utf8.RuneStart(text[start]) {
		start++
	}
	return fmt.Sprintf("%s\n[output was %d bytes; the middle was left out]\n%s", head, len(text), text[start:]), true
}
