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
	opened := make(chan Request, 1)
	b.OnOpen = func(r Request) { opened <- r }
	done := make(chan Answer, 1)
	go func() {
		a, err := b.Request(context.Background(), Request{SessionID: "s", CallID: "c"})
		if err != nil {
			t.Error(err)
		}
		done <- a
	}()
	r := <-opened
	if got := b.Pending("s"); len(got) != 1 || got[0].ID != r.ID {
		t.Fatalf("pending = %+v", got)
	}
	if err := b.Reply(r.ID, false, ScopeOnce); err != nil {
		t.Fatal(err)
	}
	if err := b.Reply(r.ID, true, ScopeOnce); !errors.Is(err, ErrUnknownRequest) {
		t.Fatalf("second answer err = %v", err)
	}
	if a := <-done; a.Allow || a.By != "you" {
		t.Fatalf("answer = %+v, want the first (deny) by you", a)
	}
	if len(b.Pending("s")) != 0 {
		t.Fatal("answered request still pending")
	}
}

func TestRequestEndsWithContext(t *testing.T) {
	b := NewBroker()
	closed := make(chan string, 1)
	b.OnClose = func(id, d string) { closed <- d }
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := b.Request(ctx, Request{SessionID: "s"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	if d := <-closed; d != "cancelled" {
		t.Fatalf("closed as %q", d)
	}
	if len(b.Pending("s")) != 0 {
		t.Fatal("withdrawn request still pending")
	}
}
