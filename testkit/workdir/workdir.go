// Package workdir makes the workspace folders of tests that compare logs
// with goldens. The system prompt names the workspace, so its path's
// length goes into every count and estimate: t.TempDir's varies with the
// test's name and a random number, these do not.
package workdir

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

// Fixed makes an empty folder whose path always has the same length,
// removed when the test ends.
func Fixed(t testing.TB) string {
	t.Helper()
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(os.TempDir(), "loupe-ws-"+hex.EncodeToString(b[:]))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
