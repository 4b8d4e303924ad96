package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"sync"
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

// commandStarted notes a command starting in the workspace ws ("" when the
// runner does not know it: it counts for every workspace). It first waits
// until Loupe's own process changes no folder that overlaps ws (Quiet),
// or until ctx is done.
func commandStarted(ctx context.Context, ws string) error {
	activity.Lock()
	for counted(activity.quiet, ws)+counted(activity.wanted, ws) > 0 {
		ch := activity.changed
		activity.Unlock()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
		}
		activity.Lock()
	}
	defer activity.Unlock()
	activity.count++
	activity.running[ws]++
	wake()
	return nil
}

// commandEnded notes the end of a command commandStarted noted.
func commandEnded(ws string) {
	activity.Lock()
	defer activity.Unlock()
	activity.count++
	if activity.running[ws]--; activity.running[ws] <= 0 {
		delete(activity.running, ws)
	}
	wake()
}

// Quiet is how Loupe's own process changes the files of the folder dir
// (undo and restore, a fork's copy, the clean-up of a crashed write): it
// waits until no command runs in a workspace that holds dir, lies in it or
// is dir, whichever session it is of, and until no other change of Loupe's
// to such a folder is under way; then, until release is called, no such
// command starts (each waits in commandStarted). What Loupe judges of the
// folder (is this a repository, is this a link) stays true while it acts
// on it. ctx ends the wait; while it waits, the report WithWaitReport put
// in ctx hears how many it waits for.
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
	activity.Lock()
	activity.wanted[ws]++
	for {
		n := counted(activity.running, ws) + counted(activity.quiet, ws)
		if n == 0 {
			break
		}
		ch := activity.changed
		activity.Unlock()
		tell(n)
		select {
		case <-ctx.Done():
			activity.Lock()
			unmark(activity.wanted, ws)
			wake()
			activity.Unlock()
			tell(0)
			return nil, ctx.Err()
		case <-ch:
		}
		activity.Lock()
	}
	unmark(activity.wanted, ws)
	defer tell(0)
	activity.quiet[ws]++
	activity.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			activity.Lock()
			defer activity.Unlock()
			unmark(activity.quiet, ws)
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
