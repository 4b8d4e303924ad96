package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// failWrites makes this process's activity file unwritable (a full disk,
// a quota) until the returned function is called.
func failWrites(t *testing.T) (restore func()) {
	t.Helper()
	activity.Lock()
	defer activity.Unlock()
	if err := shareActivity(changed); err != nil {
		t.Fatal(err)
	}
	good := activityFile
	fd, err := unix.Open(filepath.Join(activityDir, good.Name()), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	activityFile = os.NewFile(uintptr(fd), good.Name())
	return func() {
		activity.Lock()
		defer activity.Unlock()
		activityFile.Close()
		activityFile = good
	}
}

// What the other Loupe processes cannot be told does not count here
// either: a command whose start could not be told did not run and holds
// nothing up; a Quiet that could not be told changed nothing and holds
// nothing; once writes work again, both go on at once.
func TestAnActivityNobodyHeardOfHoldsNothingUp(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ws := t.TempDir()
	ctx := context.Background()
	restore := failWrites(t)
	if err := commandStarted(ctx, ws); err == nil {
		t.Fatal("a command started though no other Loupe process could hear of it")
	}
	if _, err := Quiet(ctx, ws); err == nil {
		t.Fatal("Quiet went on though no other Loupe process could hear of it")
	}
	restore()
	short, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	release, err := Quiet(short, ws)
	if err != nil {
		t.Fatalf("Quiet waits for a command that never ran, or a quiet that never was: %v", err)
	}
	release()
	if err := commandStarted(short, ws); err != nil {
		t.Fatalf("a command waits for a quiet that never was: %v", err)
	}
	commandEnded(ws)
}

// A live Loupe process whose file cannot be read (its last write stopped
// half way) may be doing anything anywhere: Quiet waits for it, and goes
// on once it is gone.
func TestAnUnreadableLiveProcessIsWaitedFor(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ws := t.TempDir()
	dir, err := stateFolder("activity")
	if err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(filepath.Join(dir, "other"), unix.O_RDWR|unix.O_CREAT|unix.O_CLOEXEC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := unix.Write(fd, []byte(`{"running":{`)); err != nil {
		t.Fatal(err)
	}
	// Another open file description holds the lock, as another process would.
	if err := unix.Flock(fd, unix.LOCK_SH); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := Quiet(short, ws); err == nil {
		t.Fatal("Quiet did not wait for a live process whose counts cannot be read")
	}
	unix.Close(fd)
	release, err := Quiet(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	release()
}
