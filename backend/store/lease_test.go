package store

import (
	"bytes"
	"errors"
	"log"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/procs"
)

// child starts a process that lives until the test ends and returns it as
// a lease owner (another process of this boot).
func child(t *testing.T) LeaseOwner {
	t.Helper()
	return ownerFor(t, procs.Live(t))
}

// ownerFor is the owner the process pid would write: on this boot, in this
// pid namespace, started when it did.
func ownerFor(t *testing.T, pid int) LeaseOwner {
	t.Helper()
	me := self()
	o := LeaseOwner{Owner: randomHex(8), PID: pid, BootID: me.BootID, PIDNS: me.PIDNS, Heartbeat: time.Now()}
	if alive, started, known := processStart(pid); alive && known {
		o.Started = started
	}
	return o
}

func TestLeaseOwnerGone(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("processes are looked at through /proc, which only Linux has here")
	}
	me := self()
	if me.BootID == "" || me.PIDNS == "" || me.Started == 0 {
		t.Fatalf("this process is not known as an owner: %+v", me)
	}
	now := time.Now()
	live := child(t)
	stale := now.Add(-StaleAfter - time.Second)
	with := func(o LeaseOwner, f func(*LeaseOwner)) LeaseOwner { f(&o); return o }
	for _, c := range []struct {
		name string
		o    LeaseOwner
		gone bool
	}{
		{"this process", me, false},
		{"this process, its heartbeat late", with(me, func(o *LeaseOwner) { o.Heartbeat = stale }), false},
		{"a live process", live, false},
		// A process stopped with Ctrl-Z, or a machine that slept, misses
		// beats: it is alive, and its run is its own.
		{"a live process whose heartbeat is late", with(live, func(o *LeaseOwner) { o.Heartbeat = stale }), false},
		{"a process that has exited", ownerFor(t, procs.Exited(t)), true},
		{"a pid now another process's", with(live, func(o *LeaseOwner) { o.Started++ }), true},
		{"another boot", with(live, func(o *LeaseOwner) { o.BootID = "another-boot" }), true},
		// Where the process cannot be looked at, the heartbeat decides.
		{"another pid namespace, beating", with(live, func(o *LeaseOwner) { o.PIDNS = "pid:[1]"; o.PID = 999999999 }), false},
		{"another pid namespace, silent", with(live, func(o *LeaseOwner) { o.PIDNS = "pid:[1]"; o.PID = 999999999; o.Heartbeat = stale }), true},
		{"no boot id (another system), beating", with(live, func(o *LeaseOwner) { o.BootID = ""; o.PID = 999999999 }), false},
		{"no boot id (another system), silent", with(live, func(o *LeaseOwner) { o.BootID = ""; o.Heartbeat = stale }), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			gone, why := c.o.Gone(now)
			if gone != c.gone {
				t.Fatalf("Gone = %v (%q), want %v", gone, why, c.gone)
			}
			if gone && why == "" {
				t.Error("no reason given")
			}
		})
	}
}

// take takes the session's lease for this process.
func take(t *testing.T, s *Store, id string) *Lease {
	t.Helper()
	l, err := s.TakeLease(t.Context(), id)
	if err != nil {
		t.Fatalf("TakeLease(%s): %v", id, err)
	}
	return l
}

// beating reports whether the heartbeat goroutine runs.
func beating() bool {
	beats.mu.Lock()
	defer beats.mu.Unlock()
	return beats.stop != nil
}

// putLease stores a lease as another process would have.
func putLease(t *testing.T, s *Store, id string, o LeaseOwner) {
	t.Helper()
	if _, err := s.w.Exec(putLeaseSQL, id, o.Owner, "their-token", o.PID, o.BootID, o.PIDNS, o.Started, o.Heartbeat.UnixNano(), o.Heartbeat.UnixNano()); err != nil {
		t.Fatal(err)
	}
}

func TestTakeLease(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the owners here are told apart through /proc")
	}
	s := openTemp(t)
	ctx := t.Context()
	sess := mustCreate(t, s, Session{Title: "t"})
	mustAppend(t, s, in(sess.ID, trace.New(trace.KindUserMessage, 1, 0, trace.UserMessage{Text: "hi"})))

	// A live process holds it: refused, and the error names it.
	live := child(t)
	putLease(t, s, sess.ID, live)
	_, err := s.TakeLease(ctx, sess.ID)
	var held *LeaseHeldError
	if !errors.As(err, &held) || !errors.Is(err, ErrLeaseHeld) || held.By.PID != live.PID {
		t.Fatalf("take a live owner's lease: %v", err)
	}

	// Its owner is gone: taken over, with the run it left open.
	dead := ownerFor(t, procs.Exited(t))
	putLease(t, s, sess.ID, dead)
	l := take(t, s, sess.ID)
	if l.OpenRun != 1 || !l.Orphan || l.From == nil || l.From.PID != dead.PID {
		t.Fatalf("lease = open run %d, orphan %v, from %+v", l.OpenRun, l.Orphan, l.From)
	}
	o, ok, err := s.LeaseOf(ctx, sess.ID)
	if me := self(); err != nil || !ok || o.Owner != me.Owner || o.PID != os.Getpid() {
		t.Fatalf("lease of the session = %+v %v %v, want this process's", o, ok, err)
	}

	// Taken again by this process (recovery hands a paused run to its
	// resumed run): the first Release then leaves the second's lease.
	l2 := take(t, s, sess.ID)
	if l2.Orphan || l2.From != nil {
		t.Fatalf("a run open under this process's own lease taken for an orphan: %+v", l2)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.LeaseOf(ctx, sess.ID); !ok {
		t.Fatal("an old lease's release removed the newer one")
	}
	if err := l2.Release(); err != nil {
		t.Fatal(err)
	}
	if err := l2.Release(); err != nil {
		t.Fatalf("second release: %v", err)
	}
	if _, ok, _ := s.LeaseOf(ctx, sess.ID); ok {
		t.Fatal("the lease is still there after its release")
	}
	if beating() {
		t.Error("the heartbeat goes on with no lease held")
	}

	// An open run with no lease at all (written before leases, or its
	// owner released it without its run_end) has no owner.
	l3, err := s.TakeLease(ctx, sess.ID)
	if err != nil || !l3.Orphan {
		t.Fatalf("open run without a lease: %+v, %v; want an orphan", l3, err)
	}
	l3.Release()

	if _, err := s.TakeLease(ctx, "missing"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("lease on a missing session: %v", err)
	}
}

// A beat renews every lease of this process in the store, and no other
// process's.
func TestHeartbeatRenewsOwnLeases(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	clock := newFakeClock()
	s.now = clock.Now
	a := mustCreate(t, s, Session{Title: "a"})
	b := mustCreate(t, s, Session{Title: "b"})
	defer take(t, s, a.ID).Release()
	other := LeaseOwner{Owner: "other", PID: 1, Heartbeat: clock.Now()}
	putLease(t, s, b.ID, other)
	before, _, _ := s.LeaseOf(ctx, a.ID)
	clock.Now() // the fake clock steps on each reading
	s.renew()
	mine, _, _ := s.LeaseOf(ctx, a.ID)
	theirs, _, _ := s.LeaseOf(ctx, b.ID)
	if !mine.Heartbeat.After(before.Heartbeat) {
		t.Errorf("heartbeat %v, not after %v", mine.Heartbeat, before.Heartbeat)
	}
	if !theirs.Heartbeat.Equal(other.Heartbeat) {
		t.Errorf("another owner's heartbeat moved: %v → %v", other.Heartbeat, theirs.Heartbeat)
	}
}

// Deleting a session drops its lease.
func TestLeaseGoesWithItsSession(t *testing.T) {
	s := openTemp(t)
	sess := mustCreate(t, s, Session{Title: "t"})
	defer take(t, s, sess.ID).Release()
	if err := s.DeleteSession(t.Context(), sess.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.LeaseOf(t.Context(), sess.ID); ok || err != nil {
		t.Fatalf("lease of a deleted session: %v %v", ok, err)
	}
}

// While a lease is held its heartbeat goes on by itself; once none is, the
// beating stops.
func TestHeartbeatBeatsWhileALeaseIsHeld(t *testing.T) {
	beatEvery.Store(int64(10 * time.Millisecond))
	defer beatEvery.Store(0)
	s := openTemp(t)
	sess := mustCreate(t, s, Session{Title: "t"})
	l := take(t, s, sess.ID)
	first, _, _ := s.LeaseOf(t.Context(), sess.ID)
	// A beat already going (another lease held) keeps its own pace.
	deadline := time.Now().Add(HeartbeatEvery + 2*time.Second)
	for {
		o, _, _ := s.LeaseOf(t.Context(), sess.ID)
		if o.Heartbeat.After(first.Heartbeat) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the heartbeat was not renewed")
		}
		time.Sleep(5 * time.Millisecond)
	}
	l.Release()
	if beating() {
		t.Error("the heartbeat goes on with no lease held")
	}
}

// A heartbeat the database refuses is said in the process log, once while
// it goes on failing, and again when it is saved once more: before, the
// error was dropped, and a process whose beats never reached the disk
// looked alive to itself and crashed to a Loupe that cannot see it.
func TestAHeartbeatThatCannotBeSavedIsLogged(t *testing.T) {
	var logged bytes.Buffer
	log.SetOutput(&logged)
	defer log.SetOutput(os.Stderr)
	s := openTemp(t)
	sess := mustCreate(t, s, Session{Title: "t"})
	defer take(t, s, sess.ID).Release()
	refuse := `CREATE TRIGGER refuse_beats BEFORE UPDATE OF heartbeat ON run_leases BEGIN SELECT RAISE(ABORT, 'the disk is full'); END`
	if _, err := s.w.Exec(refuse); err != nil {
		t.Fatal(err)
	}
	s.renew()
	s.renew()
	if n := strings.Count(logged.String(), "could not be saved (constraint failed: the disk is full"); n != 1 {
		t.Fatalf("%d lines say the heartbeat failed, want 1:\n%s", n, logged.String())
	}
	if _, err := s.w.Exec(`DROP TRIGGER refuse_beats`); err != nil {
		t.Fatal(err)
	}
	s.renew()
	s.renew()
	if n := strings.Count(logged.String(), "is saved again"); n != 1 {
		t.Fatalf("%d lines say the heartbeat works again, want 1:\n%s", n, logged.String())
	}
}
