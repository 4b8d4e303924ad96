package otlp

import (
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/loupe-dev/loupe/backend/trace"
)

// event records what happened within a run at a moment as a span event: on
// the call's span when it concerns a call (its permission, its pauses, an
// edit of its arguments or result), else on the run's span.
func (r *runTrace) event(e trace.Event) error {
	on := r.root
	var ev ptrace.SpanEvent
	at := func(sp ptrace.Span, name string) ptrace.SpanEvent {
		ev := sp.Events().AppendEmpty()
		ev.SetName(name)
		ev.SetTimestamp(stamp(e.Time))
		ev.Attributes().PutInt("loupe.seq", e.Seq)
		return ev
	}
	forCall := func(id string) ptrace.Span {
		if sp, ok := r.tools[id]; ok && id != "" {
			return sp
		}
		return on
	}
	content := !r.b.opt.NoContent
	switch e.Kind {
	case trace.KindPermission:
		p, err := trace.Decode[trace.Permission](e)
		if err != nil {
			return err
		}
		// An ask opens the wait for a person; the allow or deny that
		// follows closes it, so the wait is the time between the two.
		name := "loupe.permission." + p.Decision
		ev = at(forCall(p.CallID), name)
		a := ev.Attributes()
		a.PutStr("loupe.permission.decision", p.Decision)
		if p.By != "" {
			a.PutStr("loupe.permission.by", p.By)
		}
		if len(p.Reasons) > 0 {
			rs := a.PutEmptySlice("loupe.permission.reasons")
			for _, s := range p.Reasons {
				rs.AppendEmpty().SetStr(s)
			}
		}
		if p.Decision == trace.Ask {
			r.asked[p.CallID] = e.Time
		} else if t, ok := r.asked[p.CallID]; ok {
			a.PutInt("loupe.permission.wait_ms", waitMs(t, e.Time))
			delete(r.asked, p.CallID)
		}
		if content && p.Summary != "" {
			a.PutStr("loupe.permission.summary", p.Summary)
		}
	case trace.KindCheckpoint:
		p, err := trace.Decode[trace.Checkpoint](e)
		if err != nil {
			return err
		}
		name := "loupe.pause"
		if p.State == trace.Resumed {
			name = "loupe.resume"
		}
		ev = at(forCall(p.CallID), name)
		a := ev.Attributes()
		a.PutStr("loupe.pause.point", p.Point)
		a.PutBool("loupe.pause.breakpoint", p.Breakpoint)
		if p.Action != "" {
			a.PutStr("loupe.pause.action", p.Action)
		}
		if p.State == trace.Paused {
			r.paused = e.Time
		} else if !r.paused.IsZero() {
			a.PutInt("loupe.pause.wait_ms", waitMs(r.paused, e.Time))
			r.paused = time.Time{}
		}
	case trace.KindEdit:
		p, err := trace.Decode[trace.Edit](e)
		if err != nil {
			return err
		}
		ev = at(forCall(p.CallID), "loupe.edit")
		a := ev.Attributes()
		a.PutStr("loupe.edit.target", p.Target)
		if p.Seq != 0 {
			a.PutInt("loupe.edit.seq", p.Seq)
		}
		if content {
			a.PutStr("loupe.edit.before", string(p.Before))
			a.PutStr("loupe.edit.after", string(p.After))
		}
	case trace.KindNotice:
		p, err := trace.Decode[trace.Notice](e)
		if err != nil {
			return err
		}
		ev = at(on, "loupe.notice")
		ev.Attributes().PutStr("loupe.notice.code", p.Code)
		ev.Attributes().PutStr("loupe.notice.message", p.Message)
	case trace.KindError:
		p, err := trace.Decode[trace.Error](e)
		if err != nil {
			return err
		}
		// The conventions' name for a failure recorded on a span.
		ev = at(on, "exception")
		ev.Attributes().PutStr("exception.type", p.Code)
		ev.Attributes().PutStr("exception.message", p.Message)
	case trace.KindCompaction:
		p, err := trace.Decode[trace.Compaction](e)
		if err != nil {
			return err
		}
		ev = at(on, "loupe.compaction")
		a := ev.Attributes()
		a.PutStr("loupe.compaction.trigger", p.Trigger)
		a.PutInt("loupe.compaction.messages", int64(p.Messages))
		a.PutInt("loupe.compaction.from_seq", p.From)
		a.PutInt("loupe.compaction.through_seq", p.Through)
		if content {
			a.PutStr("loupe.compaction.summary", p.Summary)
		}
	case trace.KindRestore:
		p, err := trace.Decode[trace.Restore](e)
		if err != nil {
			return err
		}
		ev = at(on, "loupe.restore")
		a := ev.Attributes()
		a.PutInt("loupe.restore.to_seq", p.ToSeq)
		a.PutInt("loupe.restore.files", int64(len(p.Restored)))
		if content {
			fs := a.PutEmptySlice("loupe.restore.paths")
			for _, f := range p.Restored {
				fs.AppendEmpty().SetStr(f)
			}
		}
	default:
		// A kind a span does not stand for (an answer or a result
		// whose span is not in this run): named, so nothing is dropped
		// without a word.
		at(on, "loupe."+string(e.Kind))
	}
	return nil
}

// waitMs is how long a person took, from the question or pause to the
// answer; 0 for a log without times.
func waitMs(from, to time.Time) int64 {
	if from.IsZero() || to.IsZero() {
		return 0
	}
	return to.Sub(from).Milliseconds()
}
