package trace

import (
	"testing"
)

func TestRestorePlan(t *testing.T) {
	s := func(v string) *string { return &v }
	at := func(seq int64, e Event) Event { e.Seq = seq; return e }
	evs := []Event{
		at(1, New(KindUserMessage, 1, 0, UserMessage{Text: "a"})),
		// Before the restore point: only b.txt's later content counts.
		at(2, New(KindToolResult, 1, 1, ToolResult{Changes: []FileChange{{Path: "b.txt", Before: nil, After: s("b1")}}})),
		at(3, New(KindUserMessage, 2, 0, UserMessage{Text: "b"})),
		at(4, New(KindToolResult, 2, 1, ToolResult{Changes: []FileChange{{Path: "b.txt", Before: s("b1"), After: s("b2")}, {Path: "a.txt", Before: nil, After: s("a1")}}})),
		at(5, New(KindToolResult, 2, 2, ToolResult{Changes: []FileChange{{Path: "b.txt", Before: s("b2"), After: s("b3")}}})),
		at(6, New(KindRestore, 2, 0, Restore{ToSeq: 5, Changes: []FileChange{{Path: "a.txt", Before: s("a1"), After: nil}}})),
	}
	plan, err := RestorePlan(evs, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan) != 2 || plan[0].Path != "a.txt" || plan[1].Path != "b.txt" {
		t.Fatalf("plan = %+v, want a.txt then b.txt", plan)
	}
	a, b := plan[0], plan[1]
	if a.Before != nil || a.Last != nil {
		t.Errorf("a.txt: before %v last %v; want both nil (made in range, then removed by a restore)", a.Before, a.Last)
	}
	if b.Before == nil || *b.Before != "b1" || b.Last == nil || *b.Last != "b3" {
		t.Errorf("b.txt: %+v; want back to b1, last written b3", b)
	}
	for _, tc := range []struct {
		f      FileRestore
		cur    string
		exists bool
		want   string
	}{
		{b, "b3", true, ""},
		{b, "edited", true, "it was changed outside Loupe"},
		{b, "", false, "it was deleted outside Loupe"},
		{a, "", false, ""},
		{a, "new", true, "it was created again outside Loupe"},
	} {
		if got := tc.f.Conflict([]byte(tc.cur), tc.exists); got != tc.want {
			t.Errorf("%s now %q (exists %v): %q, want %q", tc.f.Path, tc.cur, tc.exists, got, tc.want)
		}
	}
	if plan, _ := RestorePlan(evs, 7); len(plan) != 0 {
		t.Errorf("nothing changed after the log's end, plan %+v", plan)
	}
	if seq, ok := RunStart(evs, 2); !ok || seq != 3 {
		t.Errorf("RunStart(2) = %d, %v", seq, ok)
	}
	if _, ok := RunStart(evs, 9); ok {
		t.Error("RunStart found a run the log does not have")
	}
}
