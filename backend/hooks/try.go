package hooks

import (
	"context"

	"github.com/loupe-dev/loupe/backend/trace"
)

// Tried is what the hooks would have said of one recorded call.
type Tried struct {
	// Seq is the call's tool_call event.
	Seq    int64  `json:"seq"`
	Run    int    `json:"run"`
	Round  int    `json:"round"`
	CallID string `json:"call_id"`
	Tool   string `json:"tool"`
	// Decision is what the call's before_tool hooks came to: allow, deny,
	// ask, or "" (they said nothing, or none ran for it).
	Decision string `json:"decision"`
	// Runs are each hook's run on the call, as the timeline would have
	// recorded them.
	Runs []trace.HookRun `json:"runs"`
}

// TryOn runs the tool hooks of s against every valid call of a stored
// session's log, as if they had been on: before_tool on the call's
// arguments, after_tool on its recorded result, after_edit on the files it
// changed. Nothing is written to the log; what the hooks do to the
// workspace is the runner's to prevent (see session.TryHooks).
func TryOn(ctx context.Context, s *Set, sessionID string, log []trace.Event) []Tried {
	results := map[string]trace.ToolResult{}
	for _, e := range log {
		if e.Kind == trace.KindToolResult {
			if p, err := trace.Decode[trace.ToolResult](e); err == nil {
				results[p.CallID] = p
			}
		}
	}
	var out []Tried
	for _, e := range log {
		if e.Kind != trace.KindToolCall {
			continue
		}
		c, err := trace.Decode[trace.ToolCall](e)
		if err != nil || !c.Valid {
			continue
		}
		t := Tried{Seq: e.Seq, Run: e.Run, Round: e.Round, CallID: c.CallID, Tool: c.Name, Runs: []trace.HookRun{}}
		in := Input{SessionID: sessionID, Run: e.Run, Round: e.Round, Tool: c.Name, CallID: c.CallID, Args: c.Args}
		for _, h := range s.For(BeforeTool, c.Name) {
			o := s.Run(ctx, h, in)
			t.Runs = append(t.Runs, o.Record)
			d := o.Record.Decision
			if o.Blocks {
				d = trace.Deny
			}
			switch {
			case d == trace.Deny:
				t.Decision = trace.Deny
			case d == trace.Ask && t.Decision != trace.Deny:
				t.Decision = trace.Ask
			case d == trace.Allow && t.Decision == "":
				t.Decision = trace.Allow
			}
			if t.Decision == trace.Deny {
				break
			}
		}
		if r, ok := results[c.CallID]; ok && r.ErrorKind != trace.ErrDenied && r.ErrorKind != trace.ErrSkipped {
			after := in
			after.Result = &Result{Content: r.Content, IsError: r.IsError, ExitCode: r.ExitCode}
			for _, h := range s.For(AfterTool, c.Name) {
				t.Runs = append(t.Runs, s.Run(ctx, h, after).Record)
			}
			if len(r.Changes) > 0 {
				for _, ch := range r.Changes {
					after.Paths = append(after.Paths, ch.Path)
				}
				for _, h := range s.For(AfterEdit, c.Name) {
					t.Runs = append(t.Runs, s.Run(ctx, h, after).Record)
				}
			}
		}
		out = append(out, t)
	}
	return out
}
