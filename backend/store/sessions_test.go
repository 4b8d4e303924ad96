package store

import (
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/trace"
)

func TestCreateSession(t *testing.T) {
	s := openTemp(t)
	clock := newFakeClock()
	s.now = clock.Now
	ctx := t.Context()

	got := mustCreate(t, s, Session{Title: "fix the bug", Workspace: "/src/x", Model: "qwen3", EventCount: 7})
	if !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(got.ID) {
		t.Errorf("generated ID %q is not 16 hex characters", got.ID)
	}
	if got.CreatedAt.IsZero() || got.CreatedAt.Location() != time.UTC || !got.UpdatedAt.Equal(got.CreatedAt) {
		t.Errorf("timestamps: created %v, updated %v", got.CreatedAt, got.UpdatedAt)
	}
	if got.EventCount != 0 {
		t.Errorf("EventCount = %d for a new session", got.EventCount)
	}
	stored, err := s.GetSession(ctx, got.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(stored, got) {
		t.Errorf("GetSession = %+v\nCreateSession returned %+v", stored, got)
	}

	if other := mustCreate(t, s, Session{}); other.ID == got.ID {
		t.Error("two generated IDs are equal")
	}

	// Given IDs and times are kept (imports).
	created := time.Date(2024, 1, 2, 3, 4, 5, 6, time.FixedZone("x", -7200))
	imp := mustCreate(t, s, Session{ID: "imported", CreatedAt: created, LastReason: trace.EndAnswered})
	if imp.ID != "imported" || !imp.CreatedAt.Equal(created) || !imp.UpdatedAt.Equal(created) || imp.LastReason != trace.EndAnswered {
		t.Errorf("import = %+v", imp)
	}
	if _, err := s.CreateSession(ctx, Session{ID: "imported", Title: "again"}); !errors.Is(err, ErrExists) {
		t.Errorf("duplicate ID: err = %v, want ErrExists", err)
	}
	if again, _ := s.GetSession(ctx, "imported"); again.Title != "" {
		t.Errorf("duplicate create changed the session: %+v", again)
	}
}

func TestSessionJSONNames(t *testing.T) {
	b, err := json.Marshal(Session{})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	want := []string{"created_at", "event_count", "id", "last_reason", "model", "open_run", "pinned", "rounds", "title", "updated_at", "workspace"}
	if !slices.Equal(keys, want) {
		t.Errorf("JSON keys = %v, want %v", keys, want)
	}
}

func TestMissingSessionIsNotFound(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	title := "x"
	for name, err := range map[string]error{
		"GetSession":    second(s.GetSession(ctx, "nope")),
		"UpdateSession": second(s.UpdateSession(ctx, "nope", SessionUpdate{Title: &title})),
		"DeleteSession": s.DeleteSession(ctx, "nope"),
		"Append":        second(s.Append(ctx, ev("nope", trace.KindNotice, `{}`))),
		"Events":        second(s.Events(ctx, "nope")),
	} {
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("%s: err = %v, want ErrNotFound", name, err)
		}
	}
}

func second[T any](_ T, err error) error { return err }

func TestListSessionsMostRecentFirst(t *testing.T) {
	s := openTemp(t)
	s.now = newFakeClock().Now
	ctx := t.Context()

	list, err := s.ListSessions(ctx)
	if err != nil || list == nil || len(list) != 0 {
		t.Fatalf("empty database: %v, %v (want an empty, non-nil list)", list, err)
	}
	a := mustCreate(t, s, Session{ID: "a"})
	mustCreate(t, s, Session{ID: "b"})
	mustCreate(t, s, Session{ID: "c"})
	check := func(want ...string) {
		t.Helper()
		list, err := s.ListSessions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := sessionIDs(list); !slices.Equal(got, want) {
			t.Errorf("order = %v, want %v", got, want)
		}
	}
	check("c", "b", "a")
	e := mustAppend(t, s, ev(a.ID, trace.KindUserMessage, `{"text":"hi"}`))
	check("a", "c", "b")
	got, _ := s.GetSession(ctx, "a")
	if !got.UpdatedAt.Equal(e.Time) {
		t.Errorf("append did not bump updated_at: %v vs event %v", got.UpdatedAt, e.Time)
	}
	if _, err := s.UpdateSession(ctx, "b", SessionUpdate{}); err != nil {
		t.Fatal(err)
	}
	check("b", "a", "c")
}

func TestUpdateSession(t *testing.T) {
	s := openTemp(t)
	s.now = newFakeClock().Now
	ctx := t.Context()
	orig := mustCreate(t, s, Session{Title: "old", Model: "m1", Workspace: "/w"})
	mustAppend(t, s, ev(orig.ID, trace.KindUserMessage, `{"text":"x"}`))

	title := "new title"
	got, err := s.UpdateSession(ctx, orig.ID, SessionUpdate{Title: &title})
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != title || got.Model != "m1" || got.Workspace != "/w" || got.EventCount != 1 || !got.UpdatedAt.After(orig.UpdatedAt) {
		t.Errorf("after title update: %+v", got)
	}
	model, reason := "m2", trace.EndCancelled
	got, err = s.UpdateSession(ctx, orig.ID, SessionUpdate{Model: &model, LastReason: &reason})
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != title || got.Model != model || got.LastReason != reason {
		t.Errorf("after model+reason update: %+v", got)
	}
	// An empty string is a value, not "leave it".
	empty := ""
	got, _ = s.UpdateSession(ctx, orig.ID, SessionUpdate{Title: &empty})
	if got.Title != "" || got.Model != model {
		t.Errorf("after clearing the title: %+v", got)
	}
	stored, _ := s.GetSession(ctx, orig.ID)
	if !reflect.DeepEqual(stored, got) {
		t.Errorf("UpdateSession returned %+v, stored %+v", got, stored)
	}
}

func TestDeleteSessionCascades(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	a := mustCreate(t, s, Session{})
	b := mustCreate(t, s, Session{})
	for range 3 {
		mustAppend(t, s, ev(a.ID, trace.KindNotice, `{}`))
		mustAppend(t, s, ev(b.ID, trace.KindNotice, `{}`))
	}
	if err := s.DeleteSession(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM events WHERE session_id = ?`, a.ID).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d events of the deleted session remain (%v)", n, err)
	}
	if _, err := s.GetSession(ctx, a.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("deleted session: %v", err)
	}
	if got, err := s.Events(ctx, b.ID); err != nil || len(got) != 3 {
		t.Errorf("other session: %d events, %v", len(got), err)
	}
	if err := s.DeleteSession(ctx, a.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("second delete: %v, want ErrNotFound", err)
	}
	// A new session with the old ID starts again at seq 1.
	mustCreate(t, s, Session{ID: a.ID})
	if e := mustAppend(t, s, ev(a.ID, trace.KindNotice, `{}`)); e.Seq != 1 {
		t.Errorf("seq in recreated session = %d", e.Seq)
	}
}

func TestSettings(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	type prefs struct {
		Host    string   `json:"host"`
		NumCtx  int      `json:"num_ctx"`
		Recent  []string `json:"recent"`
		Confirm *bool    `json:"confirm"`
	}
	dst := prefs{Host: "untouched"}
	if ok, err := s.GetSetting(ctx, "prefs", &dst); ok || err != nil || dst.Host != "untouched" {
		t.Fatalf("missing key: ok=%v err=%v dst=%+v", ok, err, dst)
	}
	want := prefs{Host: "http://127.0.0.1:11434", NumCtx: 8192, Recent: []string{"/a", "/b"}, Confirm: new(true)}
	if err := s.PutSetting(ctx, "prefs", want); err != nil {
		t.Fatal(err)
	}
	var got prefs
	if ok, err := s.GetSetting(ctx, "prefs", &got); !ok || err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("roundtrip: ok=%v err=%v got=%+v", ok, err, got)
	}
	// Overwrite with another type.
	if err := s.PutSetting(ctx, "prefs", 42); err != nil {
		t.Fatal(err)
	}
	var n int
	if ok, err := s.GetSetting(ctx, "prefs", &n); !ok || err != nil || n != 42 {
		t.Errorf("overwrite: ok=%v err=%v n=%d", ok, err, n)
	}
	// A value that does not fit dst is an error, and says the key exists.
	var str string
	if ok, err := s.GetSetting(ctx, "prefs", &str); !ok || err == nil {
		t.Errorf("decode into wrong type: ok=%v err=%v", ok, err)
	}
	if err := s.PutSetting(ctx, "bad", func() {}); err == nil {
		t.Error("PutSetting of a func succeeded")
	}
}

func TestCreateSessionWithItsFirstEvent(t *testing.T) {
	s := openTemp(t)
	clock := newFakeClock()
	s.now = clock.Now
	ctx := t.Context()

	first := trace.New(trace.KindUserMessage, 1, 0, trace.UserMessage{Text: "fix the bug"})
	sess, e, lease, err := s.CreateSessionWith(ctx, Session{Title: "fix the bug", Workspace: "/src/x", Model: "qwen3"}, first)
	if err != nil {
		t.Fatal(err)
	}
	// The run it opens is this process's: its lease came with it.
	if owner, held, err := s.LeaseOf(ctx, sess.ID); err != nil || !held || owner.Owner != self().Owner || lease == nil || lease.SessionID != sess.ID {
		t.Errorf("lease after CreateSessionWith: %+v, held %v, %v; returned %+v", owner, held, err, lease)
	}
	if err := lease.Release(); err != nil {
		t.Fatal(err)
	}
	if _, held, _ := s.LeaseOf(ctx, sess.ID); held {
		t.Error("the lease is still held after Release")
	}
	if e.SessionID != sess.ID || e.Seq != 1 || e.Kind != trace.KindUserMessage {
		t.Errorf("first event as stored = %+v", e)
	}
	// The session as stored after its first event: counted, its run open.
	if sess.EventCount != 1 || sess.OpenRun != 1 || !sess.UpdatedAt.After(sess.CreatedAt) {
		t.Errorf("session = %+v", sess)
	}
	stored, err := s.GetSession(ctx, sess.ID)
	if err != nil || !reflect.DeepEqual(stored, sess) {
		t.Errorf("GetSession = %+v, %v\nCreateSessionWith returned %+v", stored, err, sess)
	}
	evs, err := s.Events(ctx, sess.ID)
	if err != nil || len(evs) != 1 || !reflect.DeepEqual(evs[0], e) {
		t.Errorf("log = %+v, %v; want just %+v", evs, err, e)
	}
	// The log goes on from it.
	if next := mustAppend(t, s, in(sess.ID, trace.New(trace.KindNotice, 1, 0, trace.Notice{Code: "x"}))); next.Seq != 2 {
		t.Errorf("next seq = %d", next.Seq)
	}

	// What would be refused stores nothing: an ID in use, a bad first
	// event, a first event for another session.
	for name, c := range map[string]struct {
		in    Session
		first trace.Event
	}{
		"ID in use":            {Session{ID: sess.ID}, first},
		"no kind":              {Session{ID: "new1"}, trace.Event{Payload: []byte(`{}`)}},
		"payload not JSON":     {Session{ID: "new2"}, trace.Event{Kind: trace.KindNotice, Payload: []byte(`{`)}},
		"for another session":  {Session{ID: "new3"}, in("other", first)},
		"session ID not given": {Session{}, in("other", first)},
	} {
		if _, _, _, err := s.CreateSessionWith(ctx, c.in, c.first); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, _, _, err := s.CreateSessionWith(ctx, Session{ID: sess.ID}, first); !errors.Is(err, ErrExists) {
		t.Errorf("ID in use: err = %v, want ErrExists", err)
	}
	list, err := s.ListSessions(ctx)
	if err != nil || !slices.Equal(sessionIDs(list), []string{sess.ID}) {
		t.Errorf("sessions = %v, %v; want only %s", sessionIDs(list), err, sess.ID)
	}
	if evs, _ := s.Events(ctx, sess.ID); len(evs) != 2 {
		t.Errorf("the session in use got %d events, want 2", len(evs))
	}

	// A first event that opens no run comes without a lease.
	other, _, lease, err := s.CreateSessionWith(ctx, Session{}, trace.New(trace.KindNotice, 0, 0, trace.Notice{Code: "imported"}))
	if err != nil || lease != nil || other.OpenRun != 0 {
		t.Errorf("notice first: session %+v, lease %+v, %v", other, lease, err)
	}
	if _, held, _ := s.LeaseOf(ctx, other.ID); held {
		t.Error("a session whose first event opens no run has a lease")
	}
}

func TestCreateSessionWithIsOneTransaction(t *testing.T) {
	// The worst moment: the session's row is inserted and its first event
	// fails (here a trigger refuses it, as a full disk or a kill would cut
	// the write short). Neither is left: no empty session.
	s := openTemp(t)
	ctx := t.Context()
	if _, err := s.w.ExecContext(ctx, `CREATE TRIGGER refuse_events BEFORE INSERT ON events
		BEGIN SELECT RAISE(ABORT, 'injected failure'); END`); err != nil {
		t.Fatal(err)
	}
	first := trace.New(trace.KindUserMessage, 1, 0, trace.UserMessage{Text: "hi"})
	_, _, _, err := s.CreateSessionWith(ctx, Session{ID: "half", Title: "hi"}, first)
	if err == nil || !strings.Contains(err.Error(), "injected failure") {
		t.Fatalf("CreateSessionWith err = %v, want the injected failure", err)
	}
	if _, err := s.GetSession(ctx, "half"); !errors.Is(err, ErrNotFound) {
		t.Errorf("the session without its first event was stored: GetSession err = %v", err)
	}
	if list, err := s.ListSessions(ctx); err != nil || len(list) != 0 {
		t.Errorf("sessions = %v, %v; want none", sessionIDs(list), err)
	}
	if _, held, err := s.LeaseOf(ctx, "half"); held || err != nil {
		t.Errorf("a lease was left for the session that was not stored (%v)", err)
	}
	// The same failure through CreateSession and Append, the way loupe
	// run used to start: the empty session stays. (This is what the
	// transaction is for; if this part fails, the trigger did not fire.)
	if _, err := s.CreateSession(ctx, Session{ID: "empty"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, in("empty", first)); err == nil {
		t.Fatal("Append succeeded; the injected failure did not fire")
	}
	if got, err := s.GetSession(ctx, "empty"); err != nil || got.EventCount != 0 {
		t.Errorf("two steps: session %+v, %v; want it stored, empty", got, err)
	}
}
