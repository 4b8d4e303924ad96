package main

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/loupe-dev/loupe/backend/session"
)

// Stop waiting ends the waits of that session's Undo, Restore or fork
// copy, and no other session's; once a wait is over there is nothing to
// stop. Undo and Restore, as the window sends them, are the commands that
// wait this way.
func TestStopWaitingEndsThatSessionsWaitsOnly(t *testing.T) {
	a := startApp(t, Flags{})
	first, doneFirst := a.waiting("s1")
	second, doneSecond := a.waiting("s1")
	other, doneOther := a.waiting("s2")
	defer doneOther()
	if !a.StopWaiting("s1") {
		t.Fatal("StopWaiting found no wait of s1")
	}
	for name, ctx := range map[string]context.Context{"first": first, "second": second} {
		if !errors.Is(ctx.Err(), context.Canceled) {
			t.Errorf("the %s wait of s1 goes on after StopWaiting", name)
		}
	}
	if other.Err() != nil {
		t.Error("StopWaiting of s1 ended s2's wait")
	}
	doneFirst()
	doneSecond()
	if a.StopWaiting("s1") {
		t.Error("StopWaiting found a wait of s1 once both were over")
	}
	for _, raw := range []string{`{"do":"undo_run","session":"s1","run":1}`, `{"do":"restore_files","session":"s1","seq":3}`} {
		c, err := session.DecodeCommand(json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		if id, ok := filesOf(c); !ok || id != "s1" {
			t.Errorf("%s: filesOf = %q, %v; want it to wait as s1's files", raw, id, ok)
		}
	}
	if c, err := session.DecodeCommand(json.RawMessage(`{"do":"stop","session":"s1"}`)); err != nil {
		t.Fatal(err)
	} else if _, ok := filesOf(c); ok {
		t.Error("a stop counted as putting files back")
	}
}
