//go:build !linux

package store

// Without /proc a lease's process cannot be looked at: its heartbeat
// decides (see LeaseOwner.Gone).

func bootID() string       { return "" }
func pidNamespace() string { return "" }

func processStart(int) (alive bool, started int64, known bool) { return false, 0, false }
