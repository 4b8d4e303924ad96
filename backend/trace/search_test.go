package trace

import (
	"encoding/json"
	"testing"

	"github.com/loupe-dev/loupe/backend/llm"
)

func TestSearchTextPerKind(t *testing.T) {
	before, after := "old body", "new body"
	exit := 2
	for _, c := range []struct {
		name string
		e    Event
		want string
	}{
		{"user message", New(KindUserMessage, 1, 0, UserMessage{Text: "fix parse_args("}), "fix parse_args("},
		{"answer with thinking and calls", New(KindModelResponse, 1, 1, ModelResponse{
			Content: "I will read it", Thinking: "the ENOENT means a missing file",
			ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read_file", Args: json.RawMessage(`{"path":".env","limit":20}`)}},
			Raw:       json.RawMessage(`{"message":{"content":"raw wire text"}}`),
		}), "I will read it\nthe ENOENT means a missing file\nread_file\npath: .env\nlimit: 20"},
		{"tool call: arguments unescaped, in order, nested", New(KindToolCall, 1, 1, ToolCall{
			CallID: "c1", Name: "run_command",
			Args: json.RawMessage(`{"command":"grep -n \"parse_args(\" a.py\nls","opts":{"env":["A=1",true,null]}}`),
		}), "run_command\ncommand: grep -n \"parse_args(\" a.py\nls\nopts.env: A=1\nopts.env: true"},
		{"tool call whose arguments are not JSON", Event{Kind: KindToolCall, Payload: json.RawMessage(`{"name":"glob","args":"{bad"}`)}, "glob\n{bad"},
		{"invalid call says its problem", New(KindToolCall, 1, 1, ToolCall{Name: "nope", Args: json.RawMessage(`{}`), ErrorKind: ErrUnknownTool, Problem: "no tool named nope"}), "nope\nno tool named nope"},
		{"permission", New(KindPermission, 1, 1, Permission{
			CallID: "c1", Tool: "run_command", Decision: Ask, By: "mode",
			Reasons: []string{"writes outside the workspace"}, Summary: "run rm -rf build", Command: "rm -rf build",
			Paths: []string{"build"}, Display: &Display{Command: "rm -rf build", Diff: "-a\n+b"},
		}), "writes outside the workspace\nrun rm -rf build\nrm -rf build\nbuild"},
		{"tool result: the whole content and the paths changed", New(KindToolResult, 1, 1, ToolResult{
			CallID: "c1", Name: "edit_file", Content: "edited src/main.go", ExitCode: &exit,
			Changes: []FileChange{{Path: "src/main.go", Before: &before, After: &after}},
		}), "edited src/main.go\nsrc/main.go"},
		{"notice", New(KindNotice, 1, 1, Notice{Code: "context_cut", Message: "Ollama read all of num_ctx"}), "context_cut\nOllama read all of num_ctx"},
		{"error", New(KindError, 1, 1, Error{Code: "ollama", Message: "connection refused"}), "ollama\nconnection refused"},
		{"run end", New(KindRunEnd, 1, 2, RunEnd{Reason: EndError, Detail: "model gone", FinalText: "done so far", Rounds: 2}), "error\nmodel gone\ndone so far"},
		{"compaction", New(KindCompaction, 1, 3, Compaction{Summary: "we fixed the parser"}), "we fixed the parser"},
		{"edit of a message", New(KindEdit, 1, 1, Edit{Target: EditMessage, Seq: 3, Before: json.RawMessage(`"was"`), After: json.RawMessage(`"is now"`)}), "is now"},
		{"edit of arguments", New(KindEdit, 1, 1, Edit{Target: EditArgs, CallID: "c1", Before: json.RawMessage(`{"path":"a"}`), After: json.RawMessage(`{"path":"b.txt"}`)}), "path: b.txt"},
		{"restore", New(KindRestore, 2, 0, Restore{ToSeq: 4, Restored: []string{"a.go", "b.go"}, Overwritten: []string{"b.go"}}), "a.go\nb.go\nb.go"},
		{"request: no text of its own", New(KindModelRequest, 1, 1, ModelRequest{Model: "m", System: "you are an agent"}), ""},
		{"checkpoint: no text of its own", New(KindCheckpoint, 1, 1, Checkpoint{Point: PointBeforeTool, State: Paused, Args: json.RawMessage(`{"path":"x"}`)}), ""},
		{"payload that does not decode", Event{Kind: KindUserMessage, Payload: json.RawMessage(`{"text":5}`)}, ""},
		{"unknown kind", Event{Kind: "future_kind", Payload: json.RawMessage(`{"text":"x"}`)}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := SearchText(c.e); got != c.want {
				t.Errorf("SearchText =\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}
