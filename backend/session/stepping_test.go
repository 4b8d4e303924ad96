package session

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
)

// Where a session's gate stops a run: every checkpoint while stepping
// (except in the run Continue let go), the breakpoints' checkpoints and
// tools otherwise; its Step mode and breakpoints are saved with the
// session and read again by a new process's gate; a deleted session's
// gate goes.
func TestSteppingStopsWhereItIsToldAndKeepsIt(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "loupe.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	sess, err := st.CreateSession(ctx, store.Session{Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	nobody := func(string) bool { return false }
	s := newStepping(st, nobody, func(context.Context, string) error { return nil })
	if err := s.setBreakpoints(ctx, sess.ID, Breakpoints{Points: []string{trace.PointAfterResult}, Tools: []string{"run_command"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.setBreakpoints(ctx, sess.ID, Breakpoints{Points: []string{"whenever"}}); err == nil {
		t.Fatal("an unknown checkpoint was taken")
	}
	g, err := s.gate(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	stops := func(c agent.Checkpoint) string {
		stop, breakpoint := g.Stops(c)
		switch {
		case stop && breakpoint:
			return "breakpoint"
		case stop:
			return "step"
		}
		return "on"
	}
	for _, c := range []struct {
		cp   agent.Checkpoint
		want string
	}{
		{agent.Checkpoint{Point: trace.PointBeforeRequest, Run: 1}, "on"},
		{agent.Checkpoint{Point: trace.PointAfterResult, Run: 1}, "breakpoint"},
		{agent.Checkpoint{Point: trace.PointBeforeTool, Run: 1, Tool: "read_file"}, "on"},
		{agent.Checkpoint{Point: trace.PointBeforeTool, Run: 1, Tool: "run_command"}, "breakpoint"},
	} {
		if got := stops(c.cp); got != c.want {
			t.Errorf("%+v: %s, want %s", c.cp, got, c.want)
		}
	}
	if err := s.set(ctx, sess.ID, true); err != nil {
		t.Fatal(err)
	}
	if got := stops(agent.Checkpoint{Point: trace.PointBeforeRequest, Run: 1}); got != "step" {
		t.Errorf("stepping: %s, want step", got)
	}
	// Continue lets run 1 go: stepping stops it no more, its breakpoints
	// still do, and run 2 steps again.
	g.mu.Lock()
	g.free = 1
	g.mu.Unlock()
	for _, c := range []struct {
		cp   agent.Checkpoint
		want string
	}{
		{agent.Checkpoint{Point: trace.PointBeforeRequest, Run: 1}, "on"},
		{agent.Checkpoint{Point: trace.PointAfterResult, Run: 1}, "breakpoint"},
		{agent.Checkpoint{Point: trace.PointBeforeRequest, Run: 2}, "step"},
	} {
		if got := stops(c.cp); got != c.want {
			t.Errorf("after Continue, %+v: %s, want %s", c.cp, got, c.want)
		}
	}

	// Another process reads the session's stepping as it was left, and
	// reading it (as listing the sessions does) keeps nothing in memory.
	other := newStepping(st, nobody, nil)
	on, bp, err := other.state(ctx, sess.ID)
	if err != nil || !on || len(bp.Points) != 1 || bp.Tools[0] != "run_command" {
		t.Fatalf("read again: %v %+v %v", on, bp, err)
	}
	if len(other.gates) != 0 {
		t.Fatalf("reading how a session steps made %d gates", len(other.gates))
	}
	// A command to a session whose run waits nowhere is refused at once.
	if err := other.goOn(ctx, sess.ID, 0, trace.ActionStep, nil); !errors.Is(err, ErrNotPaused) {
		t.Fatalf("step with no pause: %v", err)
	}
	s.forget(sess.ID)
	s.mu.Lock()
	n := len(s.gates)
	s.mu.Unlock()
	if n != 0 {
		t.Fatal("a deleted session's gate stays")
	}
}
