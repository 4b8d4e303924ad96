package sandbox

import (
	"os"
	"sync"
)

// activity is what this process knows of the commands it runs: how many
// started or ended (a command changes the workspace as it likes, so what
// FactsOf keeps is stale after one), and how many run now in each
// workspace (what Loupe made to hold a path for a command is removed only
// once no command runs that may see it, heldFor: removed while one still
// ran, the kernel would take its mount away with it, and it could make the
// path).
var activity = struct {
	sync.Mutex
	count   uint64
	running map[string]int
	pending []pendingHold
	// live are the placeholders this process holds (made, or taken up
	// from another process, adoptHolds), by device and inode.
	live map[[2]uint64]*hold
}{running: map[string]int{}, live: map[[2]uint64]*hold{}}

// hold is this process's hold of one placeholder: the shared lock on its
// note (holds_unix.go), and how many of the commands' lists of
// placeholders (pending or running) name it.
type hold struct {
	f    *os.File
	refs int
}

// commandStarted notes a command starting in the workspace ws ("" when the
// runner does not know it: it counts for every workspace).
func commandStarted(ws string) {
	activity.Lock()
	defer activity.Unlock()
	activity.count++
	activity.running[ws]++
}

// commandEnded notes the end of a command commandStarted noted.
func commandEnded(ws string) {
	activity.Lock()
	defer activity.Unlock()
	activity.count++
	if activity.running[ws]--; activity.running[ws] <= 0 {
		delete(activity.running, ws)
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
