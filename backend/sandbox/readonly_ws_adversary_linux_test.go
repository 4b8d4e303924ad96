package sandbox

import (
	"context"
	"os"
	"testing"
	"time"
)

// Attack on a tried hook: the workspace's lasting cache (mounted at
// ~/.cache, read by every later command's build) is outside the
// workspace, so ReadOnlyWorkspace alone would leave it writable; what a
// tried hook writes there would be what later builds run. A server's view
// leaves the cache out for that reason; a tried hook's must too.
func TestAdversaryReadOnlyWorkspaceWritesNoLastingCache(t *testing.T) {
	needs(t, protections(t).Writes)
	for _, tc := range []struct {
		name   string
		adjust func(*probeResult)
	}{{"a view of its own", nil}, {"Landlock alone", func(pr *probeResult) { pr.best.MountNS = false }}} {
		t.Run(tc.name, func(t *testing.T) {
			ws, cache := t.TempDir(), t.TempDir()
			c := Confined{Workspace: ws, CacheDir: cache, ReadOnlyWorkspace: true, BestEffort: true, adjust: tc.adjust}
			out, err := c.Run(context.Background(), Command{Dir: ws, Script: `mkdir -p "$XDG_CACHE_HOME/go-build" "$HOME/.cache/go-build"; echo poison > "$XDG_CACHE_HOME/go-build/x"; echo poison > "$HOME/.cache/go-build/y"; echo tried`, Timeout: 30 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%q", out.Text)
			if ents, _ := os.ReadDir(cache); len(ents) > 0 {
				t.Errorf("a read-only command wrote the workspace's lasting cache: %v", ents)
			}
		})
	}
}
