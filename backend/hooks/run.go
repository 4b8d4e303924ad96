package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loupe-dev/loupe/backend/sandbox"
	"github.com/loupe-dev/loupe/backend/trace"
)

// OutputCap is how much of a hook's stdout and of its stderr is kept, and
// at most what it adds to an observation: as much as run_command keeps.
const OutputCap = 32 << 10

// Input is the JSON document a hook reads on its stdin. Fields that do not
// belong to its event are left out.
type Input struct {
	SessionID string `json:"session_id"`
	Event     string `json:"event"`
	Workspace string `json:"workspace"`
	Run       int    `json:"run"`
	Round     int    `json:"round"`
	// Tool, CallID and Args are the call (before_tool, after_tool,
	// after_edit).
	Tool   string          `json:"tool,omitempty"`
	CallID string          `json:"call_id,omitempty"`
	Args   json.RawMessage `json:"args,omitempty"`
	// Result is the call's result (after_tool, after_edit).
	Result *Result `json:"result,omitempty"`
	// Paths are the files the call changed, relative to the workspace
	// (after_edit).
	Paths []string `json:"paths,omitempty"`
	// Reason is how the run ends (run_end): answered, round_cap…
	Reason string `json:"reason,omitempty"`
}

// Result is a call's result as a hook reads it.
type Result struct {
	Content  string `json:"content"`
	IsError  bool   `json:"is_error"`
	ExitCode *int   `json:"exit_code,omitempty"`
}

// Decision is what a before_tool hook may print on stdout, as one JSON
// object, when it exits 0.
type Decision struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason,omitempty"`
}

// Set is the hooks of one run and how they run: in Dir, through Runner
// (the run's sandbox, the one run_command uses).
type Set struct {
	Hooks  []Hook
	Runner sandbox.Runner
	Dir    string
}

// For lists the hooks that run at event for tool ("" for the events that
// are not about a tool), in the order they are configured.
func (s *Set) For(event, tool string) []Hook {
	if s == nil {
		return nil
	}
	var out []Hook
	for _, h := range s.Hooks {
		if h.Matches(event, tool) {
			out = append(out, h)
		}
	}
	return out
}

// Outcome is one hook run: its record for the timeline, and what it means
// for the loop.
type Outcome struct {
	Record trace.HookRun
	// Blocks is set for an exit 2 and for a failure of a hook that
	// blocks on failure.
	Blocks bool
	// Says is what the model reads of it: the stderr of an exit 2, the
	// failure in words, or (after_tool, after_edit, exit 0) the output
	// to add to the observation. Capped at OutputCap.
	Says string
}

// Run runs h on in and says what it answered. It never returns an error:
// a hook that cannot run is a failure like any other, recorded as such.
func (s *Set) Run(ctx context.Context, h Hook, in Input) Outcome {
	in.Event = h.Event
	if in.Workspace == "" {
		in.Workspace = s.Dir
	}
	doc, _ := json.Marshal(in)
	rec := trace.HookRun{Hook: h.Label(), Event: h.Event, Command: h.Command, CallID: in.CallID, Tool: in.Tool, Input: doc}
	var stdout, stderr capped
	out, err := s.Runner.Run(ctx, sandbox.Command{
		Dir:       s.Dir,
		Script:    h.Command,
		Timeout:   h.Timeout(),
		OutputCap: OutputCap,
		Stdin:     append(doc, '\n'),
		OnOutput: func(isErr bool, p []byte) {
			if isErr {
				stderr.write(p)
			} else {
				stdout.write(p)
			}
		},
	})
	rec.Stdout, rec.Stderr = stdout.String(), stderr.String()
	rec.Cut = stdout.cut || stderr.cut
	rec.ExitCode, rec.TimedOut, rec.DurationMs = out.ExitCode, out.TimedOut, out.Duration.Milliseconds()
	o := Outcome{}
	failed := func(why string) Outcome {
		if h.Continues() {
			o.Record.Outcome = trace.HookFailedContinued
		} else {
			o.Record.Outcome, o.Blocks = trace.HookFailed, true
		}
		o.Record.Reason = why
		o.Says = why
		return o
	}
	switch {
	case err != nil:
		rec.Error, rec.ExitCode = err.Error(), -1
		o.Record = rec
		return failed(fmt.Sprintf("hook %s could not run: %v", rec.Hook, err))
	case out.TimedOut:
		o.Record = rec
		return failed(fmt.Sprintf("hook %s timed out after %v and was killed with everything it started", rec.Hook, h.Timeout()))
	case out.Cancelled:
		o.Record = rec
		return failed(fmt.Sprintf("hook %s was stopped with the run", rec.Hook))
	case out.ExitCode == 2:
		rec.Outcome = trace.HookBlocked
		rec.Reason = strings.TrimSpace(rec.Stderr)
		if rec.Reason == "" {
			rec.Reason = fmt.Sprintf("hook %s blocked this (exit 2) without saying why", rec.Hook)
		}
		return Outcome{Record: rec, Blocks: true, Says: rec.Reason}
	case out.ExitCode != 0:
		o.Record = rec
		why := fmt.Sprintf("hook %s failed (exit %d)", rec.Hook, out.ExitCode)
		if e := strings.TrimSpace(rec.Stderr); e != "" {
			why += ": " + e
		}
		return failed(why)
	}
	rec.Outcome = trace.HookPassed
	o.Record = rec
	if h.Event == BeforeTool {
		d, ok, bad := decisionOf(rec.Stdout)
		if bad != "" {
			return failed(fmt.Sprintf("hook %s printed a decision Loupe cannot read: %s", rec.Hook, bad))
		}
		if ok {
			o.Record.Decision, o.Record.Reason = d.Decision, d.Reason
		}
		return o
	}
	if h.Event == AfterTool || h.Event == AfterEdit {
		o.Says = strings.TrimRight(strings.TrimSpace(rec.Stdout)+"\n"+strings.TrimSpace(rec.Stderr), "\n")
		o.Says = strings.TrimSpace(o.Says)
	}
	return o
}

// decisionOf reads a before_tool hook's stdout: a JSON object with a
// decision is one (ok); any other output says nothing. An object whose
// decision is not allow, deny or ask is bad, with why.
func decisionOf(stdout string) (d Decision, ok bool, bad string) {
	s := strings.TrimSpace(stdout)
	if !strings.HasPrefix(s, "{") {
		return d, false, ""
	}
	var probe map[string]json.RawMessage
	if json.Unmarshal([]byte(s), &probe) != nil {
		return d, false, ""
	}
	if _, has := probe["decision"]; !has {
		return d, false, ""
	}
	if err := json.Unmarshal([]byte(s), &d); err != nil {
		return d, false, "decision and reason must be strings"
	}
	switch d.Decision {
	case trace.Allow, trace.Deny, trace.Ask:
		return d, true, ""
	}
	return d, false, fmt.Sprintf("decision %q (use allow, deny or ask)", d.Decision)
}

// capped keeps the first OutputCap bytes of a stream.
type capped struct {
	b   strings.Builder
	cut bool
}

func (c *capped) write(p []byte) {
	room := OutputCap - c.b.Len()
	if len(p) > room {
		p, c.cut = p[:max(room, 0)], true
	}
	c.b.Write(p)
}

func (c *capped) String() string {
	s := c.b.String()
	if c.cut {
		s = strings.ToValidUTF8(s, "") + "\n[loupe: the rest was cut]"
	}
	return s
}
