package permission

import (
	"context"
	"errors"
	"testing"
)

func TestModeAlone(t *testing.T) {
	for _, tc := range []struct {
		mode     Mode
		readOnly bool
		want     Verdict
	}{
		{ModeAsk, true, Run},
		{ModeAsk, false, Ask},
		{ModeAuto, false, Run},
		{ModeAuto, true, Run},
	} {
		if d := (Policy{Mode: tc.mode}).Decide(Call{ReadOnly: tc.readOnly}); d.Verdict != tc.want || d.By == "" && d.Verdict == Run {
			t.Errorf("mode %s, read-only %v: %v %q", tc.mode, tc.readOnly, d.Verdict, d.By)
		}
	}
}

func TestFirstAnswerWins(t *testing.T) {
	b := NewBroker()
	if err := b.Reply("s", "c", true, ScopeOnce); !errors.Is(err, ErrUnknownRequest) {
		t.Fatalf("an answer before the question: %v", err)
	}
	opened := make(chan struct{})
	done := make(chan Answer, 1)
	go func() {
		a, err := b.Request(context.Background(), Request{SessionID: "s", CallID: "c"}, func() error { close(opened); return nil })
		if err != nil {
			t.Error(err)
		}
		done <- a
	}()
	<-opened
	// The question is open from the moment it is recorded.
	if err := b.Reply("s", "other", true, ScopeOnce); !errors.Is(err, ErrUnknownRequest) {
		t.Fatalf("an answer to another call: %v", err)
	}
	if err := b.Reply("s", "c", false, ScopeOnce); err != nil {
		t.Fatal(err)
	}
	if err := b.Reply("s", "c", true, ScopeOnce); !errors.Is(err, ErrUnknownRequest) {
		t.Fatalf("second answer err = %v", err)
	}
	if a := <-done; a.Allow || a.By != "you" {
		t.Fatalf("answer = %+v, want the first (deny) by you", a)
	}
}

func TestRequestEndsWithContext(t *testing.T) {
	b := NewBroker()
	ctx, cancel := context.WithCancel(context.Background())
	_, err := b.Request(ctx, Request{SessionID: "s", CallID: "c"}, func() error { cancel(); return nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if err := b.Reply("s", "c", true, ScopeOnce); !errors.Is(err, ErrUnknownRequest) {
		t.Fatalf("a withdrawn question took an answer: %v", err)
	}
}

// A question that could not be recorded is not asked.
func TestRequestNotRecordedIsNotAsked(t *testing.T) {
	b := NewBroker()
	_, err := b.Request(context.Background(), Request{SessionID: "s", CallID: "c"}, func() error { return errors.New("disk full") })
	if err == nil || err.Error() != "disk full" {
		t.Fatalf("err = %v", err)
	}
	if err := b.Reply("s", "c", true, ScopeOnce); !errors.Is(err, ErrUnknownRequest) {
		t.Fatalf("an unrecorded question took an answer: %v", err)
	}
}
