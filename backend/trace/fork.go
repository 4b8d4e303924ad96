package trace

import (
	"encoding/json"
	"fmt"
)

// A fork at event at holds the log's events up to and including at, and
// goes on from there. Where the log's last run stands at that point says
// how: a run that has ended waits for the next message; a run paused there
// (with the edits made at the pause) waits at its pause; a run cut in the
// middle waits at the checkpoint the loop reaches next, which the fork
// records as its first event of its own (ForkPoint), so that the fork is a
// paused run like any other until the user goes on.

// ForkStand is where a fork at an event stands.
type ForkStand struct {
	// Pause is the paused checkpoint the fork records after the copied
	// events, nil when the run has ended or already waits at a pause.
	Pause *Checkpoint
	// Run and Round are that checkpoint's event's.
	Run, Round int
}

// UnfinishedError says that a fork point lies inside something that had
// not finished there: a request whose answer is not in the log yet, a
// call that was allowed and running, an answer cut off, a compaction
// under way. Start is the event that began it; Done the event that
// finished it later in the log (0: none).
type UnfinishedError struct {
	At    int64
	Start int64
	Done  int64
	What  string
	// Before is the last event before Start, where a fork would do it
	// again.
	Before int64
}

func (e *UnfinishedError) Error() string {
	msg := fmt.Sprintf("event %d is inside an unfinished step: %s", e.At, e.What)
	switch {
	case e.Done > 0 && e.Before > 0:
		msg += fmt.Sprintf(". Fork at %d (once it finished) or at %d (to do it again)", e.Done, e.Before)
	case e.Done > 0:
		msg += fmt.Sprintf(". Fork at %d, once it finished", e.Done)
	case e.Before > 0:
		msg += fmt.Sprintf(". Fork at %d, to do it again", e.Before)
	}
	return msg
}

// callStand is what the log up to a fork point holds of one call of the
// round's answer.
type callStand struct {
	call     ForkCall
	checked  bool
	readOnly bool
	decision string // Allow or Deny ("" for none, or a question only)
	decided  int64
	result   int64
}

// ForkCall is a call of the answer a fork point lies in.
type ForkCall struct {
	ID, Name string
	Args     json.RawMessage
}

// ForkPoint says where a fork of evs at event at stands, or why there is
// no fork there: an event the log does not hold, a point inside an
// unfinished step (*UnfinishedError), a pause whose edits do not fit it.
// evs is the whole log; only its events up to at decide the stand, the
// later ones only say where an unfinished step finished.
func ForkPoint(evs []Event, at int64) (ForkStand, error) {
	if at < 1 || at > int64(len(evs)) || evs[at-1].Seq != at {
		return ForkStand{}, fmt.Errorf("the log has no event %d (it has %d)", at, len(evs))
	}
	prefix := evs[:at]
	st := StateOf(prefix)
	if !st.Open {
		return ForkStand{}, nil
	}
	if st.Paused != nil {
		if st.BadEdit != nil {
			return ForkStand{}, fmt.Errorf("the pause at event %d cannot be taken up: %w", st.PausedSeq, st.BadEdit)
		}
		return ForkStand{}, nil
	}
	// The open run's events, from its message.
	begin := len(prefix) - 1
	for begin > 0 && prefix[begin].Kind != KindUserMessage {
		begin--
	}
	run := prefix[begin:]
	var (
		req, compactReq, compactResp int64
		reqRound                     int
		answer                       *ModelResponse
		answerSeq                    int64
		answerRound                  int
		calls                        []*callStand
		afterCompaction              bool
	)
	byID := map[string]*callStand{}
	for _, e := range run {
		switch e.Kind {
		case KindModelRequest:
			mr, err := Decode[ModelRequest](e)
			if err != nil {
				return ForkStand{}, err
			}
			if mr.Purpose == PurposeCompaction {
				compactReq, compactResp = e.Seq, 0
				continue
			}
			req, reqRound, answer, calls, byID, afterCompaction = e.Seq, e.Round, nil, nil, map[string]*callStand{}, false
		case KindModelResponse:
			p, err := Decode[ModelResponse](e)
			if err != nil {
				return ForkStand{}, err
			}
			if compactReq != 0 && p.RequestSeq == compactReq {
				compactResp = e.Seq
				continue
			}
			if p.RequestSeq != req {
				continue
			}
			req, answer, answerSeq, answerRound = 0, &p, e.Seq, e.Round
			for _, c := range p.ToolCalls {
				cs := &callStand{call: ForkCall{ID: c.ID, Name: c.Name, Args: c.Args}}
				calls = append(calls, cs)
				byID[c.ID] = cs
			}
		case KindCompaction:
			compactReq, compactResp, afterCompaction = 0, 0, true
			answer, calls, byID = nil, nil, map[string]*callStand{}
		case KindToolCall:
			if p, err := Decode[ToolCall](e); err == nil && byID[p.CallID] != nil {
				byID[p.CallID].checked, byID[p.CallID].readOnly = true, p.ReadOnly && p.Valid
				byID[p.CallID].call.Args = p.Args
			}
		case KindEdit:
			if p, err := Decode[Edit](e); err == nil && p.Target == EditArgs && byID[p.CallID] != nil {
				byID[p.CallID].call.Args = p.After
			}
		case KindPermission:
			if p, err := Decode[Permission](e); err == nil && byID[p.CallID] != nil && p.Decision != Ask {
				byID[p.CallID].decision, byID[p.CallID].decided = p.Decision, e.Seq
			}
		case KindToolResult:
			if p, err := Decode[ToolResult](e); err == nil && byID[p.CallID] != nil {
				byID[p.CallID].result = e.Seq
			}
		}
	}
	later := evs[at:]
	unfinished := func(start int64, what string, done func(Event) bool) error {
		u := &UnfinishedError{At: at, Start: start, What: what, Before: start - 1}
		for _, e := range later {
			if done(e) {
				u.Done = e.Seq
				break
			}
		}
		return u
	}
	answers := func(reqSeq int64) func(Event) bool {
		return func(e Event) bool {
			if e.Kind != KindModelResponse {
				return false
			}
			p, err := Decode[ModelResponse](e)
			return err == nil && p.RequestSeq == reqSeq
		}
	}
	switch {
	case compactReq != 0 && compactResp == 0:
		return ForkStand{}, unfinished(compactReq, fmt.Sprintf("the request for a summary at %d has no answer up to %d", compactReq, at), answers(compactReq))
	case compactReq != 0:
		return ForkStand{}, unfinished(compactReq, fmt.Sprintf("the compaction that began at %d is not recorded up to %d", compactReq, at),
			func(e Event) bool { return e.Kind == KindCompaction })
	case req != 0:
		return ForkStand{}, unfinished(req, fmt.Sprintf("the request at %d has no answer up to %d", req, at), answers(req))
	case answer == nil:
		// No request in this run yet, or a compaction just made: the
		// next step is the round's request.
		round := reqRound + 1
		if afterCompaction {
			round = max(reqRound, prefix[len(prefix)-1].Round)
		}
		return ForkStand{Pause: &Checkpoint{Point: PointBeforeRequest, State: Paused}, Run: st.Run, Round: round}, nil
	case answer.Incomplete:
		return ForkStand{}, &UnfinishedError{At: at, Start: answerSeq, Before: answerSeq - 1,
			What: fmt.Sprintf("the answer at %d was cut off, and the calls of a cut answer never run", answerSeq)}
	}
	for _, c := range calls {
		if c.decision == Allow && c.result == 0 && !c.readOnly {
			id := c.call.ID
			return ForkStand{}, unfinished(c.decided, fmt.Sprintf("call %s (%s) was allowed at %d and was running; its result is not in the log up to %d", id, c.call.Name, c.decided, at),
				func(e Event) bool {
					if e.Kind != KindToolResult {
						return false
					}
					p, err := Decode[ToolResult](e)
					return err == nil && p.CallID == id
				})
		}
	}
	pause := func(cp Checkpoint) (ForkStand, error) {
		cp.State = Paused
		return ForkStand{Pause: &cp, Run: st.Run, Round: answerRound}, nil
	}
	for _, c := range calls {
		if !c.checked {
			// The calls are recorded all together after the answer's
			// checkpoint: this point lies there.
			return pause(Checkpoint{Point: PointAfterResponse})
		}
	}
	if last := prefix[len(prefix)-1]; last.Kind == KindToolResult {
		if p, err := Decode[ToolResult](last); err == nil && byID[p.CallID] != nil {
			return pause(Checkpoint{Point: PointAfterResult, CallID: p.CallID, Tool: p.Name})
		}
	}
	var answered *callStand
	for _, c := range calls {
		if c.result == 0 && c.decision != Deny && c.decision != Allow {
			return pause(Checkpoint{Point: PointBeforeTool, CallID: c.call.ID, Tool: c.call.Name, Args: argsOf(c.call.Args)})
		}
		if c.result != 0 && (answered == nil || c.result > answered.result) {
			answered = c
		}
	}
	if answered != nil {
		return pause(Checkpoint{Point: PointAfterResult, CallID: answered.call.ID, Tool: answered.call.Name})
	}
	return pause(Checkpoint{Point: PointAfterResponse})
}

func argsOf(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("{}")
	}
	return raw
}
