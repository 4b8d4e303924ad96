package permission

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestDecide(t *testing.T) {
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
		if got, by := Decide(tc.mode, tc.readOnly); got != tc.want || by == "" && got == Run {
			t.Errorf("Decide(%s, %v) = %v %q", tc.mode, tc.readOnly, got, by)
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
	if err := b.Answer(r.ID, false); err != nil {
		t.Fatal(err)
	}
	if err := b.Answer(r.ID, true); !errors.Is(err, ErrUnknownRequest) {
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
