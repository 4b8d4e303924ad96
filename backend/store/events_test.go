package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/trace"
)

func TestAppendAssignsSeqAndTime(t *testing.T) {
	s := openTemp(t)
	clock := newFakeClock()
	s.now = clock.Now
	ctx := t.Context()
	sess := mustCreate(t, s, Session{})

	e1 := ev(sess.ID, trace.KindUserMessage, `{"text":"hi"}`)
	e1.Seq = 77 // ignored: the store numbers events
	got1 := mustAppend(t, s, e1)

	given := time.Date(2026, 1, 1, 9, 0, 0, 42, time.FixedZone("CET", 3600))
	e2 := ev(sess.ID, trace.KindModelRequest, `{"model":"m"}`)
	e2.Time = given
	got2 := mustAppend(t, s, e2)

	got3 := mustAppend(t, s, in(sess.ID, trace.New(trace.KindNotice, 1, 2, trace.Notice{Code: "c", Message: "m"})))

	if got := []int64{got1.Seq, got2.Seq, got3.Seq}; !slices.Equal(got, dense(3)) {
		t.Errorf("seqs = %v", got)
	}
	if got1.Time.IsZero() || got1.Time.Location() != time.UTC {
		t.Errorf("zero time became %v, want now in UTC", got1.Time)
	}
	if !got2.Time.Equal(given) || got2.Time.Location() != time.UTC {
		t.Errorf("given time became %v, want %v in UTC", got2.Time, given)
	}
	if got3.Run != 1 || got3.Round != 2 || got3.Kind != trace.KindNotice {
		t.Errorf("event 3 = %+v", got3)
	}

	stored, err := s.Events(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := []trace.Event{got1, got2, got3}; !reflect.DeepEqual(stored, want) {
		t.Errorf("Events:\n got %+v\nwant %+v", stored, want)
	}
	after, _ := s.GetSession(ctx, sess.ID)
	if after.EventCount != 3 || !after.UpdatedAt.Equal(got3.Time) {
		t.Errorf("session after appends: %+v (last event at %v)", after, got3.Time)
	}
}

func TestAppendReturnsItsOwnPayloadCopy(t *testing.T) {
	s := openTemp(t)
	sess := mustCreate(t, s, Session{})
	in := ev(sess.ID, trace.KindNotice, `{"code":"a"}`)
	out := mustAppend(t, s, in)
	in.Payload[9] = 'X' // the caller reuses its buffer
	if string(out.Payload) != `{"code":"a"}` {
		t.Errorf("returned payload aliases the caller's: %s", out.Payload)
	}
}

func TestAppendRejectsBadEvents(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	sess := mustCreate(t, s, Session{})
	for name, e := range map[string]trace.Event{
		"no session":       ev("", trace.KindNotice, `{}`),
		"no kind":          ev(sess.ID, "", `{}`),
		"no payload":       {SessionID: sess.ID, Kind: trace.KindNotice},
		"invalid JSON":     ev(sess.ID, trace.KindNotice, `{"a":`),
		"two values":       ev(sess.ID, trace.KindNotice, `{} {}`),
		"run_end mismatch": ev(sess.ID, trace.KindRunEnd, `{"reason":5}`),
		"time out of range": func() trace.Event {
			e := ev(sess.ID, trace.KindNotice, `{}`)
			e.Time = time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC) // beyond int64 nanoseconds
			return e
		}(),
	} {
		if _, err := s.Append(ctx, e); err == nil {
			t.Errorf("%s: Append succeeded", name)
		}
	}
	if got, _ := s.GetSession(ctx, sess.ID); got.EventCount != 0 {
		t.Errorf("%d events stored by failed appends", got.EventCount)
	}
}

func TestAppendTracksLastReasonAndOpenRun(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	sess := mustCreate(t, s, Session{})
	other := mustCreate(t, s, Session{})
	steps := []struct {
		event trace.Event
		want  string
		open  int
	}{
		{trace.New(trace.KindUserMessage, 1, 0, trace.UserMessage{Text: "go"}), "", 1},
		{trace.New(trace.KindModelRequest, 1, 1, trace.ModelRequest{Model: "m"}), "", 1},
		{trace.New(trace.KindRunEnd, 1, 1, trace.RunEnd{Reason: trace.EndAnswered}), trace.EndAnswered, 0},
		{trace.New(trace.KindNotice, 1, 1, trace.Notice{Code: "x"}), trace.EndAnswered, 0},
		{trace.New(trace.KindUserMessage, 2, 0, trace.UserMessage{Text: "again"}), "", 2},
		{trace.New(trace.KindNotice, 2, 1, trace.Notice{Code: "x"}), "", 2},
		{trace.New(trace.KindRunEnd, 2, 3, trace.RunEnd{Reason: trace.EndRoundCap}), trace.EndRoundCap, 0},
		{trace.New(trace.KindUserMessage, 3, 0, trace.UserMessage{Text: "left open"}), "", 3},
	}
	for i, step := range steps {
		mustAppend(t, s, in(sess.ID, step.event))
		got, _ := s.GetSession(ctx, sess.ID)
		if got.LastReason != step.want || got.OpenRun != step.open {
			t.Errorf("after event %d (%s): last_reason %q, open run %d; want %q, %d", i+1, step.event.Kind, got.LastReason, got.OpenRun, step.want, step.open)
		}
	}
	// Only the session with a run open is listed for recovery.
	mustAppend(t, s, in(other.ID, trace.New(trace.KindUserMessage, 1, 0, trace.UserMessage{Text: "x"})))
	mustAppend(t, s, in(other.ID, trace.New(trace.KindRunEnd, 1, 0, trace.RunEnd{Reason: trace.EndAnswered})))
	open, err := s.OpenSessions(ctx)
	if err != nil || len(open) != 1 || open[0].ID != sess.ID || open[0].OpenRun != 3 {
		t.Fatalf("OpenSessions = %+v, %v; want only %s with run 3", open, err, sess.ID)
	}
}

func TestAppendWithDoneContextStoresNothing(t *testing.T) {
	s := openTemp(t)
	sess := mustCreate(t, s, Session{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := s.Append(ctx, ev(sess.ID, trace.KindNotice, `{}`)); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if got, _ := s.GetSession(t.Context(), sess.ID); got.EventCount != 0 {
		t.Errorf("%d events stored", got.EventCount)
	}
}

func TestEventsInSeqOrder(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	sess := mustCreate(t, s, Session{})
	other := mustCreate(t, s, Session{})
	if got, err := s.Events(ctx, sess.ID); err != nil || got == nil || len(got) != 0 {
		t.Fatalf("empty log: %v, %v (want an empty, non-nil list)", got, err)
	}
	for i := range 5 {
		mustAppend(t, s, ev(sess.ID, trace.KindNotice, fmt.Sprint(i+1)))
		mustAppend(t, s, ev(other.ID, trace.KindNotice, `0`))
	}
	got, err := s.Events(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seqs(got), dense(5)) {
		t.Errorf("seqs %v, want %v", seqs(got), dense(5))
	}
	for _, e := range got {
		if string(e.Payload) != fmt.Sprint(e.Seq) || e.SessionID != sess.ID {
			t.Errorf("event %d: %+v", e.Seq, e)
		}
	}
}

func TestConcurrentAppendsGetDenseUniqueSeqs(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	sessions := []string{mustCreate(t, s, Session{}).ID, mustCreate(t, s, Session{}).ID}
	const workers, each = 8, 25

	type key struct{ W, I int }
	var mu sync.Mutex
	seqOf := map[string]map[key]int64{sessions[0]: {}, sessions[1]: {}}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			last := map[string]int64{}
			for i := range each {
				id := sessions[(w+i)%2]
				payload, _ := json.Marshal(key{w, i})
				e, err := s.Append(ctx, trace.Event{SessionID: id, Kind: trace.KindNotice, Payload: payload})
				if err != nil {
					t.Error(err)
					return
				}
				// One goroutine's events appear in the order it appended them.
				if e.Seq <= last[id] {
					t.Errorf("worker %d: seq %d after %d", w, e.Seq, last[id])
				}
				last[id] = e.Seq
				mu.Lock()
				seqOf[id][key{w, i}] = e.Seq
				mu.Unlock()
			}
		})
	}
	wg.Wait()

	total := 0
	for _, id := range sessions {
		events, err := s.Events(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		total += len(events)
		if !slices.Equal(seqs(events), dense(len(seqOf[id]))) {
			t.Errorf("session %s: seqs %v are not 1..%d", id, seqs(events), len(seqOf[id]))
		}
		// Each stored event is the one its Append was told it was.
		for _, e := range events {
			var k key
			json.Unmarshal(e.Payload, &k)
			if seqOf[id][k] != e.Seq {
				t.Errorf("session %s seq %d holds %+v, whose Append returned seq %d", id, e.Seq, k, seqOf[id][k])
			}
		}
		if sess, _ := s.GetSession(ctx, id); sess.EventCount != len(events) {
			t.Errorf("EventCount %d, %d events", sess.EventCount, len(events))
		}
	}
	if total != workers*each {
		t.Errorf("%d events stored, want %d", total, workers*each)
	}
}

func TestHotQueriesUseKeys(t *testing.T) {
	// An append or a read of a log must find its rows by key, never by
	// scanning a table or sorting: that is what keeps Append's cost flat.
	// Every statement here has at least one plan step, each a SEARCH. The
	// INSERT of an event has no plan to check (an INSERT … VALUES writes at
	// its primary key); BenchmarkAppend watches its cost.
	s := openTemp(t)
	for name, q := range map[string]struct {
		sql  string
		args int
	}{
		"next seq": {nextSeqSQL, 4},
		// What the events_unindexed trigger looks up for each event.
		"doc of event": {docOfEventSQL, 2},
		"events":       {eventsSQL, 1},
		// The other statements every run makes (see statements.go).
		"get session":    {getSessionSQL, 1},
		"update session": {updateSessionSQL, 5},
		"get setting":    {getSettingSQL, 1},
		// Recovery at start-up, and the tool set a run offers.
		"open sessions": {openSessionsSQL, 0},
		"find tool set": {findToolSetSQL, 2},
		"tool sets":     {toolSetsSQL, 1},
		// One event fetched whole for the window.
		"one event": {eventSQL, 2},
	} {
		rows, err := s.w.QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+q.sql, make([]any, q.args)...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		steps := 0
		for ; rows.Next(); steps++ {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(detail, "SEARCH") {
				t.Errorf("%s: query plan step %q", name, detail)
			}
		}
		rows.Close()
		if steps == 0 {
			t.Errorf("%s: no query plan steps", name)
		}
	}
}

func TestEventReadsOneEventAsStored(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	sess := mustCreate(t, s, Session{})
	mustAppend(t, s, ev(sess.ID, trace.KindUserMessage, `{"text":"first"}`))
	want := mustAppend(t, s, ev(sess.ID, trace.KindNotice, `{"code":"c","message":"a \u003c b"}`))
	got, err := s.Event(ctx, sess.ID, want.Seq)
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Payload) != string(want.Payload) || got.Kind != want.Kind || got.Seq != want.Seq || !got.Time.Equal(want.Time) {
		t.Errorf("Event = %+v (%s), want %+v (%s)", got, got.Payload, want, want.Payload)
	}
	for _, c := range []struct {
		id  string
		seq int64
	}{{sess.ID, 3}, {sess.ID, 0}, {"nobody", 1}} {
		if _, err := s.Event(ctx, c.id, c.seq); !errors.Is(err, ErrNotFound) {
			t.Errorf("Event(%q, %d): err = %v, want ErrNotFound", c.id, c.seq, err)
		}
	}
}
