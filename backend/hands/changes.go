package hands

import "sync/atomic"

// changes counts the changes Loupe's own process has made to workspace
// files: every write, removal, rename and new directory made here, and
// those the tools make through their own handle (they call Changed). What
// is worked out from a workspace's files and kept (the git layout the file
// tools' decisions need, backend/sandbox FactsOf) is kept only while this
// count stays the same.
var changes atomic.Uint64

// Changes is how many changes Loupe's process has made so far.
func Changes() uint64 { return changes.Load() }

// Changed notes a change to a workspace file. Call it after the change is
// made: something worked out while the change was under way then counts
// as stale.
func Changed() { changes.Add(1) }
