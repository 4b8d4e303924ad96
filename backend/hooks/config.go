// Package hooks runs the user's own programs at points of the loop: before
// a tool call (they may allow, deny or ask), after a call and after an edit
// (their output joins the observation: a formatter, a linter, the tests),
// before a request and at the end of a run. A hook is a shell command run
// in the same sandbox as run_command, with a JSON document on its stdin
// (Input). Its exit code says what happens: 0 goes on, 2 blocks (its
// stderr is what the model reads), anything else, or a timeout, is a
// failure that blocks unless the hook says on_failure "continue".
//
// The package decides nothing about permissions: it says what a hook
// answered (Outcome), and the loop combines that with the policy, where a
// hook can only make a decision stricter or answer a question.
package hooks

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"time"
)

// Events a hook can be on.
const (
	BeforeTool    = "before_tool"
	AfterTool     = "after_tool"
	AfterEdit     = "after_edit"
	BeforeRequest = "before_request"
	RunEnd        = "run_end"
)

// Events lists them in the order a run meets them.
var Events = []string{BeforeRequest, BeforeTool, AfterTool, AfterEdit, RunEnd}

// What a hook's failure (an exit other than 0 and 2, a timeout, a hook that
// could not start) does.
const (
	FailBlock    = "block"
	FailContinue = "continue"
)

// Timeouts of a hook.
const (
	DefaultTimeout = 30 * time.Second
	MaxTimeout     = 10 * time.Minute
)

// Hook is one configured hook.
type Hook struct {
	// Name is how the timeline names it; empty: its command.
	Name  string `json:"name,omitempty"`
	Event string `json:"event"`
	// Matcher picks the tools it runs for (before_tool, after_tool,
	// after_edit): a tool name, a glob (`*_file`), or several joined by
	// `|`. Empty: every tool.
	Matcher string `json:"matcher,omitempty"`
	// Command is a shell command, run in the workspace, in the sandbox.
	Command string `json:"command"`
	// TimeoutS bounds it in seconds (0: DefaultTimeout); at the bound it
	// and everything it started are killed.
	TimeoutS int `json:"timeout_s,omitempty"`
	// OnFailure is FailBlock (the default) or FailContinue.
	OnFailure string `json:"on_failure,omitempty"`
}

// Label is the hook's name on the timeline.
func (h Hook) Label() string {
	if strings.TrimSpace(h.Name) != "" {
		return strings.TrimSpace(h.Name)
	}
	c := strings.TrimSpace(h.Command)
	if len(c) > 60 {
		c = c[:60] + "…"
	}
	return c
}

// Timeout is the hook's bound.
func (h Hook) Timeout() time.Duration {
	if h.TimeoutS <= 0 {
		return DefaultTimeout
	}
	return time.Duration(h.TimeoutS) * time.Second
}

// Continues reports whether a failure of the hook lets the loop go on.
func (h Hook) Continues() bool { return h.OnFailure == FailContinue }

// Matches reports whether the hook runs for tool at its event.
func (h Hook) Matches(event, tool string) bool {
	if h.Event != event {
		return false
	}
	m := strings.TrimSpace(h.Matcher)
	if m == "" || m == "*" {
		return true
	}
	for _, alt := range strings.Split(m, "|") {
		if ok, _ := path.Match(strings.TrimSpace(alt), tool); ok {
			return true
		}
	}
	return false
}

func toolEvent(e string) bool { return e == BeforeTool || e == AfterTool || e == AfterEdit }

// Validate says, hook by hook, what is wrong with a list of hooks; where
// names the list in the message ("settings", ".loupe/settings.json").
func Validate(where string, hs []Hook) error {
	var probs []string
	for i, h := range hs {
		name := fmt.Sprintf("hook %d", i+1)
		if h.Name != "" {
			name += fmt.Sprintf(" (%q)", h.Name)
		}
		bad := func(f string, a ...any) { probs = append(probs, name+": "+fmt.Sprintf(f, a...)) }
		known := false
		for _, e := range Events {
			known = known || h.Event == e
		}
		switch {
		case h.Event == "":
			bad("no event: set \"event\" to one of %s", strings.Join(Events, ", "))
		case !known:
			bad("unknown event %q: use one of %s", h.Event, strings.Join(Events, ", "))
		}
		if strings.TrimSpace(h.Command) == "" {
			bad("no command: set \"command\" to the shell command to run")
		}
		if h.Matcher != "" && known && !toolEvent(h.Event) {
			bad("a matcher picks tools, and %s is not about a tool: remove \"matcher\"", h.Event)
		}
		for _, alt := range strings.Split(h.Matcher, "|") {
			if _, err := path.Match(strings.TrimSpace(alt), ""); err != nil {
				bad("the matcher %q is not a valid pattern (a tool name, a glob such as *_file, or several joined by |)", h.Matcher)
				break
			}
		}
		if h.TimeoutS < 0 || time.Duration(h.TimeoutS)*time.Second > MaxTimeout {
			bad("timeout_s must be between 1 and %d seconds (0 or none: %d)", int(MaxTimeout/time.Second), int(DefaultTimeout/time.Second))
		}
		switch h.OnFailure {
		case "", FailBlock, FailContinue:
		default:
			bad("on_failure is %q: use \"block\" (the default) or \"continue\"", h.OnFailure)
		}
	}
	if len(probs) > 0 {
		return errors.New("hooks in " + where + ": " + strings.Join(probs, "; "))
	}
	return nil
}
