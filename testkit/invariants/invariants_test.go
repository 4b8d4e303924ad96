package invariants_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

// recorder collects what Check reports instead of failing the test.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestCheck(t *testing.T) {
	user := trace.New(trace.KindUserMessage, 1, 0, trace.UserMessage{Text: "hi"})
	resp := func(incomplete bool, ids ...string) trace.Event {
		var calls []llm.ToolCall
		for _, id := range ids {
			calls = append(calls, llm.ToolCall{ID: id, Name: "read_file"})
		}
		return trace.New(trace.KindModelResponse, 1, 1, trace.ModelResponse{ToolCalls: calls, Incomplete: incomplete})
	}
	call := func(id string) trace.Event { return trace.New(trace.KindToolCall, 1, 1, trace.ToolCall{CallID: id}) }
	result := func(id string) trace.Event {
		return trace.New(trace.KindToolResult, 1, 1, trace.ToolResult{CallID: id})
	}
	end := trace.New(trace.KindRunEnd, 1, 1, trace.RunEnd{})

	for _, tc := range []struct {
		name string
		evs  []trace.Event
		want string // a part of the one error expected; "" for none
	}{
		{"clean", []trace.Event{user, resp(false, "a"), call("a"), result("a"), end}, ""},
		{"no result", []trace.Event{user, resp(false, "a"), call("a"), end}, "call a has 0 results"},
		{"two results", []trace.Event{user, resp(false, "a"), call("a"), result("a"), result("a"), end}, "call a has 2 results"},
		{"result first", []trace.Event{user, result("a"), resp(false, "a"), end}, "result for a comes before"},
		{"incomplete taken up", []trace.Event{user, resp(true, "a"), call("a"), end}, "incomplete message was taken up"},
		{"no run_end", []trace.Event{user, resp(false)}, "run 1 has 0 run_end events"},
		{"two run_ends", []trace.Event{user, resp(false), end, end}, "run 1 has 2 run_end events"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{TB: t}
			invariants.Check(r, tc.evs)
			switch {
			case tc.want == "" && len(r.errs) > 0:
				t.Errorf("errors for a clean log: %q", r.errs)
			case tc.want != "" && (len(r.errs) != 1 || !strings.Contains(r.errs[0], tc.want)):
				t.Errorf("errors = %q, want one containing %q", r.errs, tc.want)
			}
		})
	}
}
