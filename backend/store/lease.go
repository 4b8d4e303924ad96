package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"log"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// A live run has an owner: the process working on it holds a lease on its
// session (table run_leases, migration 0003). The lease is taken before the
// run's first event is written and released once its run_end is, so that
// recovery, in any process on the same file, closes a run only when its
// owner is gone.
//
// An owner is gone when (LeaseOwner.Gone):
//   - it ran under another boot of the machine (a process does not survive
//     a reboot);
//   - on the same boot and in the same pid namespace, its pid is not a live
//     process, or is one that started at another time (the pid was reused);
//   - only where its process cannot be looked at (no /proc, another pid
//     namespace), its heartbeat is older than StaleAfter.
//
// A heartbeat never overrides a process that is seen alive: a `loupe run`
// stopped with Ctrl-Z, or a machine that slept, misses beats but goes on
// writing its run the moment it continues.

// HeartbeatEvery is how often a process renews the leases it holds. A beat
// is one small write (and fsync) per process, whatever the number of runs;
// every few seconds costs nothing next to a run's own writes, and keeps
// StaleAfter, the fallback where a process cannot be looked at, short.
const HeartbeatEvery = 5 * time.Second

// StaleAfter is how old a heartbeat must be before its owner counts as gone
// where its process cannot be looked at. It is generous (24 missed beats):
// a live owner can miss several while it waits out another process's write
// lock (busy_timeout is 10 s) or a slow disk.
const StaleAfter = 2 * time.Minute

// LeaseOwner is who holds a lease, as stored.
type LeaseOwner struct {
	Owner     string
	PID       int
	BootID    string
	PIDNS     string
	Started   int64
	TakenAt   time.Time
	Heartbeat time.Time
}

// LeaseHeldError is TakeLease's answer when a live process owns the run.
type LeaseHeldError struct {
	SessionID string
	By        LeaseOwner
}

func (e *LeaseHeldError) Error() string {
	return fmt.Sprintf("session %s is running in another Loupe process (pid %d, the window or loupe run); wait for it or stop it there", e.SessionID, e.By.PID)
}

// ErrLeaseHeld is what a LeaseHeldError unwraps to.
var ErrLeaseHeld = errors.New("run owned by a live process")

func (e *LeaseHeldError) Unwrap() error { return ErrLeaseHeld }

// Lease is a lease this process holds. Release it once the run's run_end is
// written (or the run could not start).
type Lease struct {
	s         *Store
	SessionID string
	token     string
	// OpenRun is the session's open run when the lease was taken (0 if
	// none): a run the lease's previous owner left open, or one this
	// process opened itself.
	OpenRun int
	// From is the owner the lease was taken over from, when a gone process
	// held it.
	From *LeaseOwner
	// Orphan says that OpenRun has no owner but this lease now: no lease
	// was held on it, or its owner is gone. A run open under a lease this
	// process held already (one it opened with the session, see
	// CreateSessionWith) is not an orphan.
	Orphan bool
	once   sync.Once
}

// self is this process as an owner of leases.
var self = sync.OnceValue(func() LeaseOwner {
	me := LeaseOwner{Owner: randomHex(8), PID: os.Getpid(), BootID: bootID(), PIDNS: pidNamespace()}
	if alive, started, known := processStart(me.PID); alive && known {
		me.Started = started
	}
	return me
})

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b)
}

// Gone reports whether the owner o of a lease no longer lives, as seen from
// this process at now, and why. This process's own leases are never gone.
func (o LeaseOwner) Gone(now time.Time) (bool, string) {
	me := self()
	switch {
	case o.Owner == me.Owner:
		return false, ""
	case o.BootID != "" && me.BootID != "" && o.BootID != me.BootID:
		return true, "the machine has restarted since"
	case o.BootID != "" && o.BootID == me.BootID && o.PIDNS != "" && o.PIDNS == me.PIDNS:
		alive, started, known := processStart(o.PID)
		switch {
		case !known:
			// Fall back on the heartbeat.
		case !alive:
			return true, fmt.Sprintf("process %d has exited", o.PID)
		case o.Started != 0 && started != 0 && started != o.Started:
			return true, fmt.Sprintf("process %d has exited (its pid now belongs to another process)", o.PID)
		default:
			return false, ""
		}
	}
	if age := now.Sub(o.Heartbeat); age > StaleAfter {
		return true, fmt.Sprintf("process %d has not renewed its lease for %v", o.PID, age.Round(time.Second))
	}
	return false, ""
}

const (
	leaseSQL = `SELECT owner, pid, boot_id, pid_ns, started, taken_at, heartbeat
		FROM run_leases WHERE session_id = ?`
	putLeaseSQL = `INSERT INTO run_leases
		(session_id, owner, token, pid, boot_id, pid_ns, started, taken_at, heartbeat)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (session_id) DO UPDATE SET
			owner = excluded.owner, token = excluded.token, pid = excluded.pid,
			boot_id = excluded.boot_id, pid_ns = excluded.pid_ns, started = excluded.started,
			taken_at = excluded.taken_at, heartbeat = excluded.heartbeat`
)

// TakeLease makes this process the owner of the session's run: before a
// run starts, and before recovery closes a run left open. It fails with a
// *LeaseHeldError when another live process owns it (see LeaseOwner.Gone),
// and takes it over when its owner is gone. A lease this process already
// holds is taken again (the caller keeps one run per session within a
// process). The check and the take are one IMMEDIATE transaction, so of two
// processes taking the same lease at once, one gets it and the other sees
// it held. The session's open run is read in the same transaction
// (Lease.OpenRun). A missing session is ErrNotFound.
func (s *Store) TakeLease(ctx context.Context, sessionID string) (*Lease, error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("store: take lease: %w", err)
	}
	defer tx.Rollback()
	l, err := s.takeLeaseTx(ctx, tx, sessionID)
	if err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("store: take lease on %q: %w", sessionID, err)
	}
	beats.hold(s)
	return l, nil
}

// takeLeaseTx is TakeLease within tx, a transaction of the writer, for a
// write that opens a run in the same transaction (the caller then calls
// beats.hold(s) once tx is committed). A run must never be open without
// its owner's lease for a moment: another process's recovery would take
// it for a crashed one.
func (s *Store) takeLeaseTx(ctx context.Context, tx *sql.Tx, sessionID string) (*Lease, error) {
	me := self()
	l := &Lease{s: s, SessionID: sessionID, token: randomHex(8)}
	err := tx.QueryRowContext(ctx, `SELECT open_run FROM sessions WHERE id = ?`, sessionID).Scan(&l.OpenRun)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound(sessionID)
	}
	if err != nil {
		return nil, fmt.Errorf("store: take lease on %q: %w", sessionID, err)
	}
	now := s.now()
	var o LeaseOwner
	var taken, beat int64
	err = tx.QueryRowContext(ctx, leaseSQL, sessionID).Scan(&o.Owner, &o.PID, &o.BootID, &o.PIDNS, &o.Started, &taken, &beat)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		l.Orphan = l.OpenRun != 0
	case err != nil:
		return nil, fmt.Errorf("store: take lease on %q: %w", sessionID, err)
	default:
		o.TakenAt, o.Heartbeat = fromNanos(taken), fromNanos(beat)
		if gone, _ := o.Gone(now); !gone {
			if o.Owner != me.Owner {
				return nil, &LeaseHeldError{SessionID: sessionID, By: o}
			}
		} else {
			l.From, l.Orphan = &o, l.OpenRun != 0
		}
	}
	if _, err := tx.ExecContext(ctx, putLeaseSQL, sessionID, me.Owner, l.token, me.PID, me.BootID, me.PIDNS, me.Started, now.UnixNano(), now.UnixNano()); err != nil {
		return nil, fmt.Errorf("store: take lease on %q: %w", sessionID, err)
	}
	return l, nil
}

// Release gives the lease up. It removes the lease row only if it is still
// the one this Lease took (not taken again since); calling it twice is
// harmless. A lease whose release failed is left to its owner's death: a
// run no process works on any more is recovered once this process exits.
func (l *Lease) Release() error {
	var err error
	l.once.Do(func() {
		defer beats.drop(l.s)
		_, err = l.s.w.ExecContext(context.Background(), `DELETE FROM run_leases WHERE session_id = ? AND token = ?`, l.SessionID, l.token)
		if err != nil {
			err = fmt.Errorf("store: release lease on %q: %w", l.SessionID, err)
		}
	})
	return err
}

// LeaseOf returns who holds the session's lease, if anyone.
func (s *Store) LeaseOf(ctx context.Context, sessionID string) (LeaseOwner, bool, error) {
	var o LeaseOwner
	var taken, beat int64
	err := s.r.QueryRowContext(ctx, leaseSQL, sessionID).Scan(&o.Owner, &o.PID, &o.BootID, &o.PIDNS, &o.Started, &taken, &beat)
	if errors.Is(err, sql.ErrNoRows) {
		return LeaseOwner{}, false, nil
	}
	if err != nil {
		return LeaseOwner{}, false, fmt.Errorf("store: lease of %q: %w", sessionID, err)
	}
	o.TakenAt, o.Heartbeat = fromNanos(taken), fromNanos(beat)
	return o, true, nil
}

// beats renews this process's leases every HeartbeatEvery, in every store
// that holds one, while any is held. It runs only while leases are held,
// so a process (or a test) with no run has no goroutine beating.
var beats heart

type heart struct {
	mu   sync.Mutex
	held map[*Store]int
	stop chan struct{}
}

func (h *heart) hold(s *Store) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.held == nil {
		h.held = map[*Store]int{}
	}
	h.held[s]++
	if h.stop == nil {
		h.stop = make(chan struct{})
		go h.beat(h.stop)
	}
}

func (h *heart) drop(s *Store) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.held[s]--; h.held[s] <= 0 {
		delete(h.held, s)
	}
	if len(h.held) == 0 && h.stop != nil {
		close(h.stop)
		h.stop = nil
	}
}

// beatEvery, when set (nanoseconds), replaces HeartbeatEvery: a test
// that watches beats shortens it.
var beatEvery atomic.Int64

func (h *heart) beat(stop chan struct{}) {
	every := HeartbeatEvery
	if d := time.Duration(beatEvery.Load()); d > 0 {
		every = d
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		h.mu.Lock()
		stores := make([]*Store, 0, len(h.held))
		for s := range h.held {
			stores = append(stores, s)
		}
		h.mu.Unlock()
		for _, s := range stores {
			s.renew()
		}
	}
}

// renew sets the heartbeat of this process's leases in s. A beat that
// fails (a lock held past busy_timeout, a disk that refuses writes) only
// makes the heartbeat late, and lateness matters only where a process
// cannot be looked at; but if it goes on failing, such a process would
// take this one's runs for crashed ones, so the process log says when the
// beats start failing and when they work again (once each, not every 5 s).
func (s *Store) renew() {
	if s.closed.Load() {
		return // a store closed under a run: the app is going away
	}
	ctx, cancel := context.WithTimeout(context.Background(), HeartbeatEvery)
	defer cancel()
	_, err := s.w.ExecContext(ctx, `UPDATE run_leases SET heartbeat = ? WHERE owner = ?`, s.now().UnixNano(), self().Owner)
	switch failing := s.beatFailing.Load(); {
	case err != nil && !failing:
		s.beatFailing.Store(true)
		log.Printf("loupe: the heartbeat of this process's runs could not be saved (%v): a Loupe that cannot see this process may take its runs for crashed ones after %s", err, StaleAfter)
	case err == nil && failing:
		s.beatFailing.Store(false)
		log.Printf("loupe: the heartbeat of this process's runs is saved again")
	}
}

// HeldElsewhere says whether another live process owns the session's run,
// as the error TakeLease would give: for a command to a run (Stop, Step, an
// answer) that this process does not hold, so it can say where the run is
// instead of doing nothing.
func (s *Store) HeldElsewhere(ctx context.Context, sessionID string) error {
	o, ok, err := s.LeaseOf(ctx, sessionID)
	if err != nil || !ok || o.Owner == self().Owner {
		return err
	}
	if gone, _ := o.Gone(time.Now()); gone {
		return nil
	}
	return &LeaseHeldError{SessionID: sessionID, By: o}
}
