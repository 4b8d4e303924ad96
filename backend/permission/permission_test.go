package permission

import (
	"context"
	"errors"
	"testing"
	"time"
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
	if err := b.Reply("s", "", "c", true, ScopeOnce); !errors.Is(err, ErrUnknownRequest) {
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
	if err := b.Reply("s", "", "other", true, ScopeOnce); !errors.Is(err, ErrUnknownRequest) {
		t.Fatalf("an answer to another call: %v", err)
	}
	if err := b.Reply("s", "", "c", false, ScopeOnce); err != nil {
		t.Fatal(err)
	}
	if err := b.Reply("s", "", "c", true, ScopeOnce); !errors.Is(err, ErrUnknownRequest) {
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
	if err := b.Reply("s", "", "c", true, ScopeOnce); !errors.Is(err, ErrUnknownRequest) {
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
	if err := b.Reply("s", "", "c", true, ScopeOnce); !errors.Is(err, ErrUnknownRequest) {
		t.Fatalf("an unrecorded question took an answer: %v", err)
	}
}

// Two loops of one session (the run and a sub-agent of it) may ask about
// calls of one id at once: each question stays open until its own loop's
// answer, and an answer names the loop.
func TestQuestionsOfTwoLoopsAboutOneCallIDAreApart(t *testing.T) {
	b := NewBroker()
	got := map[string]chan Answer{"": make(chan Answer, 1), "call_2": make(chan Answer, 1)}
	asked := make(chan struct{}, 2)
	for agent, ch := range got {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			a, err := b.Request(ctx, Request{SessionID: "s", Agent: agent, CallID: "call_1"}, func() error { asked <- struct{}{}; return nil })
			if err != nil {
				t.Error(err)
			}
			ch <- a
		}()
	}
	<-asked
	<-asked
	if err := b.Reply("s", "call_2", "call_1", false, ScopeOnce); err != nil {
		t.Fatal(err)
	}
	if a := <-got["call_2"]; a.Allow {
		t.Error("the sub-agent's question got an allow; it was denied")
	}
	if err := b.Reply("s", "", "call_1", true, ScopeOnce); err != nil {
		t.Fatalf("the run's own question was lost: %v", err)
	}
	if a := <-got[""]; !a.Allow {
		t.Error("the run's own question got a deny; it was allowed")
	}
	if err := b.Reply("s", "call_9", "call_1", true, ScopeOnce); !errors.Is(err, ErrUnknownRequest) {
		t.Errorf("an answer for a loop that asks nothing: %v", err)
	}
}
