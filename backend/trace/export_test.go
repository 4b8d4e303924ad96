package trace

import (
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/llm"
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
}

// An answer made only of tool calls says so on its line, with no empty
// block under it.
func TestMarkdownOfAnAnswerOfCallsOnly(t *testing.T) {
	evs := []Event{
		New(KindUserMessage, 1, 0, UserMessage{Text: "look"}),
		New(KindModelResponse, 1, 1, ModelResponse{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read_file"}, {ID: "c2", Name: "list_dir"}}}),
		New(KindModelResponse, 1, 2, ModelResponse{Content: "Done."}),
	}
	md := Markdown(Header{Title: "t"}, evs)
	if !strings.Contains(md, "**Model (round 1):** asks for `read_file`, `list_dir`\n") || strings.Contains(md, "**Model (round 1):**\n\n") {
		t.Fatalf("markdown:\n%s", md)
	}
	if !strings.Contains(md, "**Model (round 2):**\n\nDone.") {
		t.Fatalf("a text answer lost its block:\n%s", md)
	}
}

// A request to a named host says which; one to the local host does not.
func TestDescribeNamesTheHost(t *testing.T) {
	named := Describe(New(KindModelRequest, 1, 1, ModelRequest{Model: "qwen3", Host: "http://10.0.0.5:11434", HostName: "gpu-box"}))
	local := Describe(New(KindModelRequest, 1, 1, ModelRequest{Model: "qwen3", Host: "http://127.0.0.1:11434"}))
	if !strings.HasPrefix(named, "request to qwen3 on gpu-box:") || !strings.HasPrefix(local, "request to qwen3:") {
		t.Errorf("named %q, local %q", named, local)
	}
}
