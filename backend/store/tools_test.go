package store

import (
	"context"
	"slices"
	"testing"
)

// A session's offered tools: NULL (every tool), none, or a list, each read
// back as it was stored, also by ListSessions and after an update.
func TestSessionTools(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	all, err := s.CreateSession(ctx, Session{Title: "all"})
	if err != nil {
		t.Fatal(err)
	}
	two := []string{"read_file", "list_dir"}
	some, err := s.CreateSession(ctx, Session{Title: "some", Tools: &two})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.GetSession(ctx, all.ID); got.Tools != nil {
		t.Errorf("every tool read back as %v", *got.Tools)
	}
	if got, _ := s.GetSession(ctx, some.ID); got.Tools == nil || !slices.Equal(*got.Tools, two) {
		t.Errorf("two tools read back as %v", got.Tools)
	}
	none := []string{}
	got, err := s.SetSessionTools(ctx, all.ID, &none)
	if err != nil || got.Tools == nil || len(*got.Tools) != 0 {
		t.Fatalf("none: %+v, %v", got.Tools, err)
	}
	// Renamed: the tools stay.
	title := "renamed"
	if got, err := s.UpdateSession(ctx, some.ID, SessionUpdate{Title: &title}); err != nil || !slices.Equal(*got.Tools, two) {
		t.Fatalf("after rename: %+v, %v", got.Tools, err)
	}
	list, err := s.ListSessions(ctx)
	if err != nil || len(list) != 2 {
		t.Fatal(list, err)
	}
	for _, l := range list {
		if l.Tools == nil {
			t.Errorf("%s lost its tools", l.Title)
		}
	}
	if got, err := s.SetSessionTools(ctx, some.ID, nil); err != nil || got.Tools != nil {
		t.Errorf("back to every tool: %+v, %v", got.Tools, err)
	}
	if _, err := s.SetSessionTools(ctx, "nope", nil); err == nil {
		t.Error("a missing session was updated")
	}
	// A column that is not a list (written by hand) offers no tools, and
	// the session list still reads.
	if _, err := s.w.ExecContext(ctx, `UPDATE sessions SET offered_tools = 'oops' WHERE id = ?`, some.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := s.GetSession(ctx, some.ID); err != nil || got.Tools == nil || len(*got.Tools) != 0 {
		t.Errorf("broken tools column: %+v, %v", got.Tools, err)
	}
	if list, err := s.ListSessions(ctx); err != nil || len(list) != 2 {
		t.Errorf("list with a broken tools column: %v", err)
	}
}
