package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/loupe-dev/loupe/backend/llm"
)

// WithEdit is the paused checkpoint cp as the edit ed, made at that pause,
// leaves it: the pending request with its system prompt, options, tools
// or one message changed (before_request), the call's arguments (before_tool),
// the result's content (after_result). It is the one place an edit
// changes what a paused run will do: the loop records each edit with what
// it returns (Edit.Pause) and goes on from that, a restored run and the
// rendering of a pending request read the pause through StateOf, which
// folds the pause's edits with it, and the window shows Edit.Pause. An
// edit that does not fit the pause is an error, and cp is left as it was.
func (cp Checkpoint) WithEdit(ed Edit) (Checkpoint, error) {
	if cp.State != Paused {
		return cp, fmt.Errorf("trace: a %s edit of a checkpoint that is not paused", ed.Target)
	}
	switch ed.Target {
	case EditSystem, EditOptions, EditTools, EditMessage:
		if cp.Point != PointBeforeRequest || cp.Request == nil {
			return cp, fmt.Errorf("trace: a %s edit at a %s pause: only the request before it is sent has one", ed.Target, cp.Point)
		}
		req := *cp.Request
		switch ed.Target {
		case EditSystem:
			if err := json.Unmarshal(ed.After, &req.System); err != nil {
				return cp, fmt.Errorf("trace: system edit: %w", err)
			}
		case EditOptions:
			var o llm.Options
			if err := json.Unmarshal(ed.After, &o); err != nil {
				return cp, fmt.Errorf("trace: options edit: %w", err)
			}
			req.Options = o
		case EditTools:
			var names []string
			if err := json.Unmarshal(ed.After, &names); err != nil || names == nil {
				return cp, fmt.Errorf("tools not changed: a tools edit is a list of tool names, like [\"read_file\"]")
			}
			tools, err := req.chooseTools(names)
			if err != nil {
				return cp, err
			}
			req.Tools = tools
		case EditMessage:
			var content string
			if err := json.Unmarshal(ed.After, &content); err != nil {
				return cp, fmt.Errorf("trace: message edit: %w", err)
			}
			i := slices.IndexFunc(req.Messages, func(m PendingMessage) bool { return m.Seq == ed.Seq })
			if i < 0 {
				return cp, fmt.Errorf("message %d is not part of this request", ed.Seq)
			}
			req.Messages = slices.Clone(req.Messages)
			req.Messages[i].Content = content
		}
		cp.Request = &req
	case EditArgs:
		if cp.Point != PointBeforeTool || ed.CallID != cp.CallID {
			return cp, fmt.Errorf("trace: an edit of the arguments of call %s at a %s pause of call %s", ed.CallID, cp.Point, cp.CallID)
		}
		var args map[string]any
		if err := json.Unmarshal(ed.After, &args); err != nil || args == nil {
			return cp, fmt.Errorf("trace: the edited arguments of call %s are not a JSON object", ed.CallID)
		}
		cp.Args = slices.Clone(ed.After)
	case EditResult:
		if cp.Point != PointAfterResult || ed.CallID != cp.CallID {
			return cp, fmt.Errorf("trace: an edit of the result of call %s at a %s pause of call %s", ed.CallID, cp.Point, cp.CallID)
		}
		var content string
		if err := json.Unmarshal(ed.After, &content); err != nil {
			return cp, fmt.Errorf("trace: result edit: %w", err)
		}
		cp.Result = &content
	default:
		return cp, fmt.Errorf("trace: unknown edit target %q", ed.Target)
	}
	return cp, nil
}

// chooseTools is the tools the pending request offers once a tools edit
// chose names, in the order the run offers them. A pause may narrow what
// the run offers or give back what it left out, within what the run can
// offer at all: a name the run has no tool of is refused, and so is
// switching on one it withholds (set to never, denied in this session).
func (p Pending) chooseTools(names []string) ([]string, error) {
	var unknown, withheld []string
	for _, n := range names {
		switch {
		case !slices.Contains(p.Offer, n):
			unknown = append(unknown, n)
		case slices.Contains(p.Tools, n):
		case p.Withheld[n] != "":
			withheld = append(withheld, n+" ("+p.Withheld[n]+")")
		}
	}
	if len(unknown) > 0 {
		can := "it offers no tools"
		if len(p.Offer) > 0 {
			can = "choose among " + strings.Join(p.Offer, ", ")
		}
		return nil, fmt.Errorf("tools not changed: this run has no tool named %s (%s; the session's tools are chosen before a run starts)", strings.Join(unknown, ", "), can)
	}
	if len(withheld) > 0 {
		return nil, fmt.Errorf("tools not changed: %s cannot be switched on in this run; change that in Settings or in the session's tools before its next run", strings.Join(withheld, ", "))
	}
	out := []string{}
	for _, n := range p.Offer {
		if slices.Contains(names, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// FillEditPauses gives each edit event of a log written before edits
// carried their pause (Edit.Pause) the pause it left, folded as StateOf
// folds it, so that the window, which shows an edit's pause, reads old
// logs as it reads new ones. A log whose edits all carry it is left as it
// is, read once.
func FillEditPauses(evs []Event) {
	old := false
	for _, e := range evs {
		if e.Kind == KindEdit && !bytes.Contains(e.Payload, []byte(`"pause":`)) {
			old = true
			break
		}
	}
	if !old {
		return
	}
	var pause *Checkpoint
	for i, e := range evs {
		switch e.Kind {
		case KindUserMessage, KindRunEnd:
			pause = nil
		case KindCheckpoint:
			pause = nil
			if cp, err := Decode[Checkpoint](e); err == nil && cp.State == Paused {
				pause = &cp
			}
		case KindEdit:
			ed, err := Decode[Edit](e)
			if err != nil || pause == nil {
				continue
			}
			next, err := pause.WithEdit(ed)
			if err != nil {
				pause = nil // StateOf says why, to whoever takes the pause up
				continue
			}
			pause = &next
			if ed.Pause == nil {
				ed.Pause = &next
				if b, err := json.Marshal(ed); err == nil {
					evs[i].Payload = b
				}
			}
		}
	}
}
