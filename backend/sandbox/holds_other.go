//go:build !unix

package sandbox

import (
	"errors"
	"os"
)

// Without flock, placeholders are held for this process only: commands are
// confined (and placeholders made) on Linux alone.

func holdsDir() (string, error) { return "", errors.New("sandbox: no placeholders folder here") }

func holdsLock() (string, func(), error) { return "", func() {}, nil }

type holdNote struct {
	Path, Base, Rel string
	Dir             bool
}

func noteHold(string, string, string, uint64, uint64, bool) (*os.File, error) { return nil, nil }

func lastHold(string, *os.File, uint64, uint64) bool { return true }

func forgetHold(string, uint64, uint64) {}

func notedHolds(string) map[string]holdNote { return nil }

func takeHold(string, string) (*os.File, error) { return nil, errors.ErrUnsupported }

func dropStaleHold(string, string) {}
