package trace

import (
	"strings"
	"testing"
)

func TestTranscripts(t *testing.T) {
	h := Header{Title: "<b>fix</b>", Workspace: "/p", Model: "m"}
	evs := []Event{
		New(KindUserMessage, 1, 0, UserMessage{Text: "list it"}),
		New(KindToolResult, 1, 1, ToolResult{CallID: "c1", Name: "run_command", Content: "```\n<script>", Bytes: 12}),
		New(KindRunEnd, 1, 1, RunEnd{Reason: EndAnswered, Rounds: 1}),
	}
	md := Markdown(h, evs)
	for _, want := range []string{"# <b>fix</b>", "## Run 1", "**You:** list it", "ʼʼʼ\n<script>", "- run ended: answered after 1 round(s)"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	// Only a fence at the start of a line opens or closes a block.
	if strings.Count("\n"+md, "\n```") != 2 {
		t.Errorf("the tool's own fence was not defused:\n%s", md)
	}
	page := HTML(h, evs)
	if strings.Contains(page, "<script>") || strings.Contains(page, "<b>") || !strings.Contains(page, "&lt;script&gt;") {
		t.Errorf("HTML does not escape the transcript: %s", page)
	}
}
