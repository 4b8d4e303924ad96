package hooks

import (
	"strings"
	"testing"
)

// A bad hook is refused with what is wrong and what to write instead.
func TestValidateSaysWhatIsWrong(t *testing.T) {
	for _, tt := range []struct {
		hook Hook
		want string
	}{
		{Hook{Event: "after_tools", Command: "x"}, `hook 1: unknown event "after_tools": use one of before_request, before_tool, after_tool, after_edit, run_end`},
		{Hook{Command: "x"}, `no event`},
		{Hook{Event: BeforeTool}, `no command`},
		{Hook{Event: RunEnd, Command: "x", Matcher: "read_file"}, `a matcher picks tools, and run_end is not about a tool`},
		{Hook{Event: BeforeTool, Command: "x", Matcher: "[bad"}, `is not a valid pattern`},
		{Hook{Event: BeforeTool, Command: "x", TimeoutS: 100000}, `timeout_s must be between 1 and 600 seconds`},
		{Hook{Name: "fmt", Event: AfterEdit, Command: "x", OnFailure: "ignore"}, `hook 1 ("fmt"): on_failure is "ignore": use "block" (the default) or "continue"`},
	} {
		err := Validate("Settings", []Hook{tt.hook})
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "hooks in Settings: ") {
			t.Errorf("%+v: %v, want %q", tt.hook, err, tt.want)
		}
	}
	if err := Validate("Settings", []Hook{{Event: BeforeTool, Matcher: "run_command|*_file", Command: "true", TimeoutS: 5, OnFailure: FailContinue}}); err != nil {
		t.Fatal(err)
	}
}

func TestMatcher(t *testing.T) {
	h := Hook{Event: AfterTool, Matcher: "run_command|*_file"}
	for tool, want := range map[string]bool{"run_command": true, "edit_file": true, "write_file": true, "grep": false} {
		if got := h.Matches(AfterTool, tool); got != want {
			t.Errorf("%s: %v", tool, got)
		}
	}
	if h.Matches(BeforeTool, "run_command") {
		t.Error("matched another event")
	}
}
