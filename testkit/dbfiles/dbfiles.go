// Package dbfiles copies a SQLite database's files as they are on disk,
// for tests of what a killed process leaves behind.
package dbfiles

import (
	"os"
	"path/filepath"
	"testing"
)

// CopyAside copies the database at path, its -wal and (if keepSHM) its
// -shm into a new temporary folder and returns the copy's path. Called
// while a connection that never checkpoints holds them open, it makes
// the files a process killed after a commit, before any checkpoint, leaves.
func CopyAside(t testing.TB, path string, keepSHM bool) string {
	t.Helper()
	copyPath := filepath.Join(t.TempDir(), filepath.Base(path))
	suffixes := []string{"", "-wal"}
	if keepSHM {
		suffixes = append(suffixes, "-shm")
	}
	for _, suffix := range suffixes {
		b, err := os.ReadFile(path + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(copyPath+suffix, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return copyPath
}
