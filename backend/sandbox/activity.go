package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// activity is what this process knows of the commands it runs: how many
// started or ended (a command changes the workspace as it likes, so what
// FactsOf keeps is stale after one), and how many run now in each
// workspace (what Loupe made to hold a path for a command is removed only
// once no command runs that may see it, heldFor: removed while one still
// ran, the kernel would take its mount away with it, and it could make the
// path). It also knows which folders Loupe's own process is changing now
// (Quiet): no command of a workspace that overlaps one runs meanwhile.
var activity = struct {
	sync.Mutex
	count   uint64
	running map[string]int
	pending []pendingHold
	// live are the placeholders this process holds (made, or taken up
	// from another process, adoptHolds), by device and inode.
	live map[[2]uint64]*hold
	// quiet are the folders Loupe's process changes now, and wanted
	// those it waits to change (a command that would start in an
	// overlapping workspace waits for both: a stream of commands of
	// other sessions never keeps an undo waiting for good).
	quiet, wanted map[string]int
	// changed is closed, and replaced, whenever a command starts or ends
	// or a folder is let go: whoever waits looks again.
	changed chan struct{}
}{running: map[string]int{}, live: map[[2]uint64]*hold{}, quiet: map[string]int{}, wanted: map[string]int{}, changed: make(chan struct{})}

// wake tells those who wait that something changed (the caller holds
// activity's lock).
func wake() {
	close(activity.changed)
	activity.changed = make(chan struct{})
}

// hold is this process's hold of one placeholder: the shared lock on its
// note (holds_unix.go), and how many of the commands' lists of
// placeholders (pending or running) name it.
type hold struct {
	f    *os.File
	refs int
}

// sharedCounts is what one Loupe process does, by folder, as the others
// see it (activity_shared_unix.go): its commands running, the folders its
// own process changes now, and those it waits to change.
type sharedCounts struct {
	Running map[string]int `json:"running,omitempty"`
	Quiet   map[string]int `json:"quiet,omitempty"`
	Wanted  map[string]int `json:"wanted,omitempty"`
}

// othersPoll is how often a wait held up by another Loupe process looks
// again: nothing wakes it when that process's counts change.
const othersPoll = 100 * time.Millisecond

// commandStarted notes a command starting in the workspace ws ("" when the
// runner does not know it: it counts for every workspace of this process).
// It first waits until no Loupe process (this one or another) changes a
// folder that overlaps ws or waits to (Quiet), or until ctx is done. It
// fails when what other Loupe processes do is unknown (Loupe's state
// folder cannot be used): the command does not run.
func commandStarted(ctx context.Context, ws string) error {
	activity.Lock()
	for {
		n, byOthers := 0, 0
		decide := func(others []sharedCounts) bool {
			for _, o := range others {
				byOthers += counted(o.Quiet, ws) + counted(o.Wanted, ws)
			}
			n = counted(activity.quiet, ws) + counted(activity.wanted, ws) + byOthers
			if n > 0 {
				return false
			}
			activity.count++
			activity.running[ws]++
			return true
		}
		if ws == "" {
			// Its workspace is not known: this process's own affair
			// (writeActivity).
			decide(nil)
		} else if err := shareActivity(decide); err != nil {
			activity.Unlock()
			return fmt.Errorf("%w; the command did not run, because Loupe could not see what other Loupe processes do in its folder", err)
		}
		if n == 0 {
			wake()
			activity.Unlock()
			return nil
		}
		ch := activity.changed
		activity.Unlock()
		if err := await(ctx, ch, byOthers > 0); err != nil {
			return err
		}
		activity.Lock()
	}
}

// await waits until ctx is done (its error), ch is closed, or, when
// another process holds the caller up, for othersPoll.
func await(ctx context.Context, ch <-chan struct{}, others bool) error {
	var poll <-chan time.Time
	if others {
		t := time.NewTimer(othersPoll)
		defer t.Stop()
		poll = t.C
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-ch:
	case <-poll:
	}
	return nil
}

// commandEnded notes the end of a command commandStarted noted. Should
// the other processes not hear of it (the state folder went), they wait
// longer than they need to, never less.
func commandEnded(ws string) {
	activity.Lock()
	defer activity.Unlock()
	activity.count++
	unmark(activity.running, ws)
	if ws != "" {
		_ = shareActivity(changed)
	}
	wake()
}

// changed is a decision of shareActivity's that only tells the others
// what this process changed already.
func changed([]sharedCounts) bool { return true }

// Quiet is how Loupe's own process changes the files of the folder dir
// (undo and restore, a fork's copy, the clean-up of a crashed write): it
// waits until no command runs in a workspace that holds dir, lies in it or
// is dir, whichever session and whichever Loupe process (the window, a
// `loupe run`) it is of, and until no other change of Loupe's to such a
// folder is under way; then, until release is called, no such command
// starts (each waits in commandStarted). What Loupe judges of the folder
// (is this a repository, is this a link) stays true while it acts on it.
// ctx ends the wait; while it waits, the report WithWaitReport put in ctx
// hears how many it waits for. It fails when what other Loupe processes
// do is unknown (Loupe's state folder cannot be used): nothing is changed.
func Quiet(ctx context.Context, dir string) (release func(), err error) {
	ws, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if r, err := filepath.EvalSymlinks(ws); err == nil {
		ws = r
	}
	report, _ := ctx.Value(waitReportKey{}).(func(int))
	told := 0
	tell := func(n int) {
		if report != nil && n != told {
			told = n
			report(n)
		}
	}
	defer tell(0)
	activity.Lock()
	activity.wanted[ws]++
	giveUp := func(err error) error {
		unmark(activity.wanted, ws)
		_ = shareActivity(changed)
		wake()
		activity.Unlock()
		return err
	}
	for first := true; ; first = false {
		n, byOthers := 0, 0
		err := shareActivity(func(others []sharedCounts) bool {
			for _, o := range others {
				byOthers += counted(o.Running, ws) + counted(o.Quiet, ws)
			}
			n = counted(activity.running, ws) + counted(activity.quiet, ws) + byOthers
			if n > 0 {
				// Wanted, which holds back new commands of the
				// others too once they hear of it.
				return first
			}
			unmark(activity.wanted, ws)
			activity.quiet[ws]++
			return true
		})
		if err != nil {
			return nil, giveUp(fmt.Errorf("%w; nothing was changed, because Loupe could not see what other Loupe processes do in %s", err, ws))
		}
		if n == 0 {
			break
		}
		ch := activity.changed
		activity.Unlock()
		tell(n)
		if err := await(ctx, ch, byOthers > 0); err != nil {
			activity.Lock()
			return nil, giveUp(err)
		}
		activity.Lock()
	}
	activity.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			activity.Lock()
			defer activity.Unlock()
			unmark(activity.quiet, ws)
			_ = shareActivity(changed)
			wake()
		})
	}, nil
}

type waitReportKey struct{}

// WithWaitReport gives ctx a report that Quiet tells, while it waits, how
// many commands (and changes of Loupe's own to an overlapping folder) it
// still waits for, each time that number changes, and 0 once it waits no
// more: what the window shows as "Waiting for 2 commands to end".
func WithWaitReport(ctx context.Context, report func(waiting int)) context.Context {
	return context.WithValue(ctx, waitReportKey{}, report)
}

// counted is how many of m's counts (by workspace, "" for one not known)
// are of a folder that overlaps ws ("" overlaps every one). The caller
// holds the lock.
func counted(m map[string]int, ws string) int {
	total := 0
	for w, n := range m {
		if n > 0 && (w == "" || ws == "" || overlaps(w, ws)) {
			total += n
		}
	}
	return total
}

func unmark(m map[string]int, ws string) {
	if m[ws]--; m[ws] <= 0 {
		delete(m, ws)
	}
}

// commandCount is how many commands started or ended so far.
func commandCount() uint64 {
	activity.Lock()
	defer activity.Unlock()
	return activity.count
}

// commandsRunning says whether any command runs now.
func commandsRunning() bool {
	activity.Lock()
	defer activity.Unlock()
	return len(activity.running) > 0
}
