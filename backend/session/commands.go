package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/trace"
)

// What a Command does.
const (
	DoCreate         = "create"          // Workspace, Model, Host ("": the local one), Tools (nil: every tool)
	DoDemo           = "demo"            // (none): a demo session, started
	DoDelete         = "delete"          //
	DoSetModel       = "set_model"       // Model
	DoSetTools       = "set_tools"       // Tools (nil: every tool, empty: none)
	DoSend           = "send"            // Text: the user's message
	DoStop           = "stop"            //
	DoStopCall       = "stop_call"       // CallID: a running call, stopped on its own
	DoAnswer         = "answer"          // CallID, Allow, Scope
	DoSetStepping    = "set_stepping"    // On
	DoSetBreakpoints = "set_breakpoints" // Breakpoints
	DoStep           = "step"            // At
	DoContinue       = "continue"        // At
	DoEditRequest    = "edit_request"    // At, Request
	DoEditArgs       = "edit_args"       // At, Text: the arguments as JSON
	DoSkip           = "skip"            // At, Text: the observation
	DoEditResult     = "edit_result"     // At, Text: the new content
	DoRestoreFiles   = "restore_files"   // Seq, Force
	DoUndoRun        = "undo_run"        // Run, Force
	DoCompact        = "compact"         // (between runs: Compact now)
)

// runCommands act on a session's run as it goes.
var runCommands = map[string]bool{DoStop: true, DoStopCall: true, DoAnswer: true, DoStep: true, DoContinue: true,
	DoEditRequest: true, DoEditArgs: true, DoSkip: true, DoEditResult: true}

// Command is one thing the window asks of a session, as the window sends
// it and as a recording of a scenario keeps it. Do says what; the fields
// it needs are listed beside each Do constant, the others stay empty.
type Command struct {
	Do      string `json:"do"`
	Session string `json:"session,omitempty"`

	Workspace string `json:"workspace,omitempty"`
	Model     string `json:"model,omitempty"`
	// Host is the Ollama host a new session runs on: a Settings name, an
	// address, or "" for the local host.
	Host string `json:"host,omitempty"`
	Text string `json:"text,omitempty"`
	// Tools are the tools a session offers its model, by name.
	Tools *[]string `json:"tools,omitempty"`

	CallID string `json:"call_id,omitempty"`
	Allow  bool   `json:"allow,omitempty"`
	Scope  string `json:"scope,omitempty"`

	On          bool         `json:"on,omitempty"`
	Breakpoints *Breakpoints `json:"breakpoints,omitempty"`
	// At is the paused checkpoint event the user acted on, so that a
	// click meant for a pause that is over does not act on the next one
	// (0: wherever the run waits).
	At      int64              `json:"at,omitempty"`
	Request *agent.RequestEdit `json:"request,omitempty"`

	Seq   int64 `json:"seq,omitempty"`
	Run   int   `json:"run,omitempty"`
	Force bool  `json:"force,omitempty"`
}

// Outcome is what a command gives back: the session's summary when the
// command changed it (created, renamed by its first message, stepping…),
// what a restore did.
type Outcome struct {
	Summary *Summary       `json:"summary,omitempty"`
	Restore *RestoreResult `json:"restore,omitempty"`
	// Compaction is what Compact now recorded.
	Compaction *trace.Compaction `json:"compaction,omitempty"`
}

// Do carries out one command of the window. Everything the run does in
// answer arrives as events.
func (m *Manager) Do(ctx context.Context, c Command) (Outcome, error) {
	switch {
	case c.Do == "":
		return Outcome{}, errors.New("a command says what to do: send, stop, answer, step, continue, an edit, a restore…")
	case c.Do != DoCreate && c.Do != DoDemo && c.Session == "":
		return Outcome{}, fmt.Errorf("%s: which session?", c.Do)
	case c.Do != DoCreate && c.Do != DoDemo:
		// A command for a session that does not exist changes nothing,
		// and says so.
		if _, err := m.store.GetSession(ctx, c.Session); err != nil {
			return Outcome{}, err
		}
	}
	summary := func(s Summary, err error) (Outcome, error) {
		if err != nil {
			return Outcome{}, err
		}
		return Outcome{Summary: &s}, nil
	}
	restore := func(r RestoreResult, err error) (Outcome, error) {
		if err != nil {
			return Outcome{}, err
		}
		return Outcome{Restore: &r}, nil
	}
	id := c.Session
	if runCommands[c.Do] && !m.runs(id) {
		// A run another window or loupe run holds: say where it is.
		if err := m.store.HeldElsewhere(ctx, id); err != nil {
			return Outcome{}, err
		}
	}
	switch c.Do {
	case DoCreate:
		return summary(m.CreateSetUp(ctx, c.Workspace, c.Model, Setup{Host: c.Host, Tools: c.Tools}))
	case DoDemo:
		return summary(m.StartDemo(ctx))
	case DoDelete:
		return Outcome{}, m.Delete(ctx, id)
	case DoSetModel:
		return summary(m.SetModel(ctx, id, c.Model))
	case DoSetTools:
		return summary(m.SetTools(ctx, id, c.Tools))
	case DoSend:
		return summary(m.Start(ctx, id, c.Text, RunOptions{}))
	case DoStop:
		// Stop answers once the run has ended: its summary says how. A
		// run left paused that no process runs (its resume failed) is
		// ended here.
		if !m.Stop(id) {
			if err := m.endLeftPaused(ctx, id); err != nil {
				return Outcome{}, err
			}
		}
		m.Wait(id)
		return summary(m.summaryOf(ctx, id))
	case DoStopCall:
		return Outcome{}, m.StopCall(id, c.CallID)
	case DoAnswer:
		return Outcome{}, m.Answer(id, c.CallID, c.Allow, permission.Scope(c.Scope))
	case DoSetStepping:
		return summary(m.SetStepping(ctx, id, c.On))
	case DoSetBreakpoints:
		if c.Breakpoints == nil {
			return Outcome{}, errors.New("set_breakpoints: no breakpoints given")
		}
		return summary(m.SetBreakpoints(ctx, id, *c.Breakpoints))
	case DoStep:
		_, err := m.Resume(ctx, id, c.At, trace.ActionStep)
		return Outcome{}, err
	case DoContinue:
		// Continue turns stepping off: the summary says so.
		return summary(m.Resume(ctx, id, c.At, trace.ActionContinue))
	case DoEditRequest:
		if c.Request == nil {
			return Outcome{}, errors.New("edit_request: no changes given")
		}
		return Outcome{}, m.EditRequest(ctx, id, c.At, *c.Request)
	case DoEditArgs:
		return Outcome{}, m.EditArgs(ctx, id, c.At, c.Text)
	case DoSkip:
		return Outcome{}, m.SkipCall(ctx, id, c.At, c.Text)
	case DoEditResult:
		return Outcome{}, m.EditResult(ctx, id, c.At, c.Text)
	case DoRestoreFiles:
		return restore(m.RestoreFiles(ctx, id, c.Seq, c.Force))
	case DoUndoRun:
		return restore(m.UndoRun(ctx, id, c.Run, c.Force))
	case DoCompact:
		cp, err := m.Compact(ctx, id)
		if err != nil {
			return Outcome{}, err
		}
		return Outcome{Compaction: &cp}, nil
	}
	return Outcome{}, fmt.Errorf("unknown command %q", c.Do)
}

// Answer approves or denies the call a session's run asks about, and
// remembers the answer for the scope: once, for the session, or always for
// the workspace.
func (m *Manager) Answer(id, callID string, allow bool, scope permission.Scope) error {
	if m.broker == nil {
		return errors.New("nobody can be asked here: the run answers its questions itself")
	}
	return m.broker.Reply(id, callID, allow, scope)
}

// StopCall stops one running call of the session's run (a command that
// takes too long, say) and lets the run go on: the call's result says
// that the user stopped it, with the output so far. A call that is not
// running is refused, and so is a session with no run going here.
func (m *Manager) StopCall(id, callID string) error {
	if callID == "" {
		return errors.New("stop_call: which call? (call_id is empty)")
	}
	m.mu.Lock()
	r := m.running[id]
	m.mu.Unlock()
	if r == nil || r.ag == nil {
		return fmt.Errorf("%w: this session has no run going", agent.ErrNotRunning)
	}
	return r.ag.StopCall(callID)
}

// runs reports whether this manager runs the session's run.
func (m *Manager) runs(id string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.running[id]
	return ok
}
