package hands

import "testing"

// walkOnly makes the test resolve every path with the component walk, as
// a kernel without openat2 (or one that filters it) does.
func walkOnly(t *testing.T) {
	t.Helper()
	was := noOpenat2.Load()
	noOpenat2.Store(true)
	t.Cleanup(func() { noOpenat2.Store(was) })
}

// bothResolvers runs f with openat2 and with the walk.
func bothResolvers(t *testing.T, f func(t *testing.T)) {
	t.Run("openat2", func(t *testing.T) {
		if noOpenat2.Load() {
			t.Skip("openat2 is missing or filtered on this kernel; the walk subtest covers it")
		}
		f(t)
	})
	t.Run("walk", func(t *testing.T) {
		walkOnly(t)
		f(t)
	})
}
