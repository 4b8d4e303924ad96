package trace

import "encoding/json"

// KindHookRun is one run of a user's hook.
const KindHookRun Kind = "hook_run"

// What a hook run came to.
const (
	// HookPassed: exit 0, the loop goes on (with the hook's decision, for
	// before_tool, when its stdout held one).
	HookPassed = "passed"
	// HookBlocked: exit 2; its stderr is what the model reads.
	HookBlocked = "blocked"
	// HookFailed: another exit, a timeout or a hook that could not
	// start, and the hook blocks on failure.
	HookFailed = "failed"
	// HookFailedContinued: the same, for a hook whose on_failure is
	// "continue": the loop went on, with a notice.
	HookFailedContinued = "failed_continued"
)

// HookRun records one run of a hook: what it was given and what it
// answered. Stdout and Stderr are as much as Loupe keeps of them (see
// Cut).
type HookRun struct {
	// Hook is the hook's name (its command when it has none), Event the
	// event it ran on, Command what ran.
	Hook    string `json:"hook"`
	Event   string `json:"event"`
	Command string `json:"command"`
	// CallID and Tool are the call it ran for (tool events).
	CallID string `json:"call_id,omitempty"`
	Tool   string `json:"tool,omitempty"`
	// Input is the JSON it read on stdin.
	Input    json.RawMessage `json:"input"`
	Stdout   string          `json:"stdout"`
	Stderr   string          `json:"stderr"`
	ExitCode int             `json:"exit_code"`
	TimedOut bool            `json:"timed_out,omitempty"`
	// Cut says the output was longer than Loupe keeps.
	Cut bool `json:"cut,omitempty"`
	// Error says why it could not run (the sandbox refused it).
	Error string `json:"error,omitempty"`
	// Outcome is HookPassed, HookBlocked, HookFailed or
	// HookFailedContinued.
	Outcome string `json:"outcome"`
	// Decision is what a before_tool hook decided (allow, deny, ask; ""
	// when it said nothing), Reason why, as the model or the question
	// reads it.
	Decision   string `json:"decision,omitempty"`
	Reason     string `json:"reason,omitempty"`
	DurationMs int64  `json:"duration_ms"`
}

func (HookRun) kind() Kind { return KindHookRun }

// EndHookBlocked: a before_request hook blocked the request.
const EndHookBlocked = "hook_blocked"
