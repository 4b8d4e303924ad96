package store

import (
	"errors"
	"maps"
	"testing"
)

// A tool set is stored once per session: the same bytes get the same id,
// other bytes the next id, and another session numbers its own.
func TestToolSetsAreStoredOnce(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	a, b := mustCreate(t, s, Session{}), mustCreate(t, s, Session{})
	put := func(session, tools string) int {
		t.Helper()
		id, err := s.PutToolSet(ctx, session, []byte(tools))
		if err != nil {
			t.Fatalf("PutToolSet(%s, %s): %v", session, tools, err)
		}
		return id
	}
	full, plain := `[{"name":"read_file"},{"name":"list_dir"}]`, `[{"name":"read_file"}]`
	if got := []int{put(a.ID, full), put(a.ID, full), put(a.ID, plain), put(a.ID, full), put(b.ID, plain)}; got[0] != 1 || got[1] != 1 || got[2] != 2 || got[3] != 1 || got[4] != 1 {
		t.Fatalf("ids = %v, want [1 1 2 1 1]", got)
	}
	sets, err := s.ToolSets(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]string{}
	for id, b := range sets {
		got[id] = string(b)
	}
	if want := map[int]string{1: full, 2: plain}; !maps.Equal(got, want) {
		t.Fatalf("ToolSets = %v, want %v", got, want)
	}
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM tool_sets`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("%d rows in tool_sets (%v), want 3", n, err)
	}

	if _, err := s.PutToolSet(ctx, "nope", []byte(full)); !errors.Is(err, ErrNotFound) {
		t.Errorf("PutToolSet on a missing session: %v, want ErrNotFound", err)
	}
	if _, err := s.PutToolSet(ctx, a.ID, []byte(`[{`)); err == nil {
		t.Error("PutToolSet took invalid JSON")
	}
	// Deleting a session deletes its tool sets.
	if err := s.DeleteSession(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if sets, err := s.ToolSets(ctx, a.ID); err != nil || len(sets) != 0 {
		t.Fatalf("tool sets after delete: %v, %v", sets, err)
	}
}
