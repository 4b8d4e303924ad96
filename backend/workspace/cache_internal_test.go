package workspace

import (
	"path/filepath"
	"testing"
)

// Two workspaces never share a writable cache, however alike their paths
// (a cache keyed by the end of the path once let two share one).
func TestCacheDirIsKeyedByTheWholePath(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	tail := "/src/a-long-project-name-that-ends-the-same"
	a, b := cacheDir("/home/alice"+tail), cacheDir("/home/bob"+tail)
	if a == "" || b == "" || a == b {
		t.Fatalf("cacheDir = %q and %q", a, b)
	}
	if again := cacheDir("/home/alice" + tail); again != a {
		t.Errorf("the same workspace got another cache: %q, then %q", a, again)
	}
	if filepath.Dir(a) != filepath.Dir(b) {
		t.Errorf("caches in different places: %q, %q", a, b)
	}
}
