package agent

import "encoding/json"

// PrintedCall is a tool call a model printed as text instead of asking for
// it, read the way the loop recovers such calls.
type PrintedCall struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
	// Form is how the model wrote it: "tool_call tag", "code fence",
	// "json"…
	Form string `json:"form"`
}

// PrintedCalls lists the calls of offered tools that content holds as
// text, as the loop's recovery would read them (whether or not recovery
// is on): the readiness check tells a model that prints its calls from
// one that makes real ones with the same rules.
func PrintedCalls(content string, offered []string) []PrintedCall {
	fs, _ := recoverCalls(content, offered)
	out := make([]PrintedCall, 0, len(fs))
	for _, f := range fs {
		out = append(out, PrintedCall{Name: f.Name, Args: f.Args, Form: f.Form})
	}
	return out
}
