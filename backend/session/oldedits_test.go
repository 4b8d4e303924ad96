package session_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/trace"
)

// A log written before edit events carried their pause reads as a new one:
// Open and Payload give each edit the pause it left, which is what the
// window shows.
func TestEditsOfAnOlderLogComeWithTheirPause(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	ctx := context.Background()
	after, _ := json.Marshal("be brief")
	for _, e := range []trace.Event{
		trace.New(trace.KindUserMessage, 1, 0, trace.UserMessage{Text: "hi"}),
		trace.New(trace.KindCheckpoint, 1, 1, trace.Checkpoint{Point: trace.PointBeforeRequest, State: trace.Paused,
			Request: &trace.Pending{Model: testModel, System: "sys", Messages: []trace.PendingMessage{{Seq: 1, Role: "user", Content: "hi"}}}}),
		trace.New(trace.KindEdit, 1, 1, trace.Edit{Target: trace.EditSystem, Before: json.RawMessage(`"sys"`), After: after}),
	} {
		e.SessionID = h.id
		if _, err := h.st.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	d, err := h.m.Open(ctx, h.id)
	if err != nil {
		t.Fatal(err)
	}
	payload, err := h.m.Payload(ctx, h.id, 3)
	if err != nil {
		t.Fatal(err)
	}
	for what, raw := range map[string]json.RawMessage{"Open": d.Events[2].Payload, "Payload": json.RawMessage(payload)} {
		var ed trace.Edit
		if err := json.Unmarshal(raw, &ed); err != nil || ed.Pause == nil || ed.Pause.Request.System != "be brief" {
			t.Errorf("%s gives the old edit as %s (%v)", what, raw, err)
		}
	}
}
