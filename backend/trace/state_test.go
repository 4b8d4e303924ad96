package trace

import "testing"

// Where a run stands, and what it waits for, is read from its log alone.
func TestStandingFromTheLog(t *testing.T) {
	var log []Event
	add := func(kind Kind, p any) {
		e := New(kind, 1, 1, p)
		e.Seq = int64(len(log) + 1)
		log = append(log, e)
	}
	want := func(standing string, pausedSeq int64) {
		t.Helper()
		st := StateOf(log)
		if st.Standing() != standing || st.PausedSeq != pausedSeq {
			t.Fatalf("after %s: standing %q paused at %d, want %q at %d", log[len(log)-1].Kind, st.Standing(), st.PausedSeq, standing, pausedSeq)
		}
	}
	add(KindUserMessage, UserMessage{Text: "go"})
	want("", 0)
	add(KindCheckpoint, Checkpoint{Point: PointBeforeRequest, State: Paused})
	want(StandingPaused, 2)
	add(KindEdit, Edit{Target: EditSystem})
	want(StandingPaused, 2)
	add(KindCheckpoint, Checkpoint{Point: PointBeforeRequest, State: Resumed, Action: ActionStep})
	want("", 0)
	add(KindPermission, Permission{CallID: "a", Decision: Ask})
	add(KindPermission, Permission{CallID: "b", Decision: Allow})
	want(StandingAsking, 0)
	add(KindToolResult, ToolResult{CallID: "b"})
	want(StandingAsking, 0)
	add(KindPermission, Permission{CallID: "a", Decision: Deny})
	want("", 0)
	add(KindPermission, Permission{CallID: "c", Decision: Ask})
	want(StandingAsking, 0)
	// Stopped while asking: the call is answered, the run ends.
	add(KindToolResult, ToolResult{CallID: "c", ErrorKind: ErrCancelled})
	want("", 0)
	add(KindCheckpoint, Checkpoint{Point: PointAfterResponse, State: Paused})
	add(KindRunEnd, RunEnd{Reason: EndCancelled})
	want("", 0)
}
