package trace

import "fmt"

// RunState is where a session's last run stands, read from its log.
type RunState struct {
	// Open is true until the run's run_end.
	Open  bool
	Run   int
	Round int
	// Paused is the checkpoint an open run waits at, or nil, with the
	// edits made there applied (Checkpoint.WithEdit); PausedSeq is its
	// event.
	Paused    *Checkpoint
	PausedSeq int64
	// BadEdit is why an edit the log holds after the pause could not be
	// applied to it (a log written by hand, or damaged): Paused is then as
	// the edits before it left it, which is not what the run did.
	BadEdit error
	// Asking are the open run's questions to the user not answered yet,
	// by call id.
	Asking map[string]Permission
}

// What a session's open run waits for, as the session list shows it.
const (
	StandingPaused = "paused" // at a checkpoint, for Step or Continue
	StandingAsking = "asking" // for the user's answer to a question
)

// Standing says what the run waits for: StandingPaused, StandingAsking,
// or "" when it waits for nothing.
func (st RunState) Standing() string {
	switch {
	case !st.Open:
		return ""
	case st.Paused != nil:
		return StandingPaused
	case len(st.Asking) > 0:
		return StandingAsking
	}
	return ""
}

// StateOf reads where the log's last run stands.
// A sub-agent's events are no part of it: its parent's run stands where
// its own events leave it.
func StateOf(events []Event) RunState {
	events = Loop(events)
	var st RunState
	for _, e := range events {
		switch e.Kind {
		case KindUserMessage:
			st = RunState{Open: true, Run: e.Run}
		case KindRunEnd:
			st.Open, st.Paused, st.PausedSeq, st.Asking, st.BadEdit = false, nil, 0, nil, nil
		case KindPermission:
			p, err := Decode[Permission](e)
			if err != nil {
				continue
			}
			if p.Decision == Ask {
				if st.Asking == nil {
					st.Asking = map[string]Permission{}
				}
				st.Asking[p.CallID] = p
			} else {
				delete(st.Asking, p.CallID)
			}
		case KindToolResult:
			if r, err := Decode[ToolResult](e); err == nil {
				delete(st.Asking, r.CallID)
			}
		case KindModelRequest:
			st.Round = e.Round
		case KindCheckpoint:
			cp, err := Decode[Checkpoint](e)
			if err != nil {
				continue
			}
			if cp.State == Paused {
				st.Paused, st.PausedSeq = &cp, e.Seq
				if cp.Point == PointBeforeTool {
					// Before a call nothing is decided about it: a question
					// the log holds for it before this pause (a fork made
					// at that question) is asked again when it goes on.
					delete(st.Asking, cp.CallID)
				}
				// A pause before a request comes before the request is
				// recorded: its round is the one about to be sent.
				st.Round = e.Round
				if cp.Point == PointBeforeRequest {
					st.Round = e.Round - 1
				}
			} else {
				st.Paused, st.PausedSeq = nil, 0
			}
			st.BadEdit = nil
		case KindEdit:
			if st.Paused == nil || st.BadEdit != nil {
				continue
			}
			ed, err := Decode[Edit](e)
			if err == nil {
				var next Checkpoint
				if next, err = st.Paused.WithEdit(ed); err == nil {
					st.Paused = &next
				}
			}
			if err != nil {
				st.BadEdit = fmt.Errorf("event %d: %w", e.Seq, err)
			}
		}
	}
	return st
}
