package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loupe-dev/loupe/backend/trace"
)

// resumeAt is where a restored run stands, read once from the log when it
// resumes: the checkpoint it waits at and, when that comes after the
// round's answer, the answer and what the log holds for each of its calls.
type resumeAt struct {
	answer *trace.ModelResponse
	calls  map[string]*logged
}

// logged is what the log holds for one call of the restored round.
type logged struct {
	checked bool
	// args are the arguments as last edited (nil: as the model sent them).
	args      json.RawMessage
	permitted *trace.Permission
	result    *trace.ToolResult
}

// resumePoint reads from the log where its paused run waits, and sets the
// run up to go on from there: its number and round, the system prompt and
// options it was using (the last request's, with any edit since), the
// tools it offers (as its last tools edit left them), and the pause to
// wait at without recording it again.
func (r *run) resumePoint(ctx context.Context, log []trace.Event) (*resumeAt, error) {
	st := trace.StateOf(log)
	if st.Paused == nil {
		return nil, errors.New("agent: the session has no paused run to resume")
	}
	if st.BadEdit != nil {
		return nil, fmt.Errorf("agent: the pause cannot be taken up again: %w", st.BadEdit)
	}
	r.num, r.round, r.restored, r.restoredSeq = st.Run, st.Round, st.Paused, st.PausedSeq
	at := &resumeAt{}
	var answer *trace.ModelResponse
	// pause is the last paused checkpoint of the run, as its edits leave it.
	var pause *trace.Checkpoint
	// chosen are the tools the run's last tools edit offers (nil: none).
	var chosen []string
	for _, e := range log {
		if e.Run != r.num {
			continue
		}
		switch e.Kind {
		case trace.KindModelRequest:
			if mr, err := trace.Decode[trace.ModelRequest](e); err == nil && mr.Purpose != trace.PurposeCompaction {
				r.cfg.System, r.cfg.Instructions = mr.System, mr.Instructions
				if mr.Model == r.cfg.Model {
					// Another model (a fork that goes on with one) runs
					// with the options set up for it: its context length
					// is its own.
					r.cfg.Options = mr.Options
				}
			}
		case trace.KindModelResponse:
			if p, err := trace.Decode[trace.ModelResponse](e); err == nil {
				answer = &p
				at.calls = map[string]*logged{}
				for _, c := range p.ToolCalls {
					at.calls[c.ID] = &logged{}
				}
			}
		case trace.KindCheckpoint:
			if cp, err := trace.Decode[trace.Checkpoint](e); err == nil && cp.State == trace.Paused {
				pause = &cp
			}
		case trace.KindEdit:
			// An edit of a call's arguments was made at that call's
			// pause, which may be behind the one the run waits at:
			// what the call runs with is what the edit left there.
			ed, err := trace.Decode[trace.Edit](e)
			if err == nil && ed.Target == trace.EditTools {
				// Checked against its pause when it was made (WithEdit),
				// and again by StateOf when it was made at this pause.
				var names []string
				if json.Unmarshal(ed.After, &names) == nil && names != nil {
					chosen = names
				}
			}
			if err != nil || pause == nil || ed.Target != trace.EditArgs {
				continue
			}
			next, err := pause.WithEdit(ed)
			if err != nil {
				return nil, fmt.Errorf("agent: event %d: %w", e.Seq, err)
			}
			pause = &next
			if l := at.calls[ed.CallID]; l != nil {
				l.args = next.Args
			}
		case trace.KindToolCall:
			if p, err := trace.Decode[trace.ToolCall](e); err == nil && at.calls[p.CallID] != nil {
				at.calls[p.CallID].checked = true
			}
		case trace.KindPermission:
			if p, err := trace.Decode[trace.Permission](e); err == nil && p.Decision != trace.Ask && at.calls[p.CallID] != nil {
				at.calls[p.CallID].permitted = &p
			}
		case trace.KindToolResult:
			if p, err := trace.Decode[trace.ToolResult](e); err == nil && at.calls[p.CallID] != nil {
				at.calls[p.CallID].result = &p
			}
		}
	}
	if p := st.Paused.Request; p != nil && st.Paused.Point == trace.PointBeforeRequest {
		// The system prompt and options the pause's edits left, for the
		// rest of the run.
		r.cfg.Instructions = r.cfg.Instructions.Kept(r.cfg.System, p.System)
		r.cfg.System, r.cfg.Options = p.System, p.Options
	}
	if chosen != nil {
		reg, id, err := r.toolSet(ctx, chosen)
		if err != nil {
			return nil, unwrapStore(err)
		}
		r.use(reg)
		r.cfg.ToolSet = id
	}
	if st.Paused.Point != trace.PointBeforeRequest {
		if answer == nil {
			return nil, errors.New("agent: the run is paused after an answer its log does not hold")
		}
		at.answer = answer
	}
	return at, nil
}
