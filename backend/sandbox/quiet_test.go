package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Quiet, what Loupe's own changes of a workspace's files take: it waits
// for every command running in a workspace that is the folder, holds it
// or lies in it, however it is spelled (through a link too), and none of those starts until it is let go; a command
// beside it is neither waited for nor held back; a command that wants to
// start while Quiet waits lets it in first; its wait ends with its
// context.
func TestQuietWaitsForEveryOverlappingCommandAndHoldsTheirStart(t *testing.T) {
	ctx := context.Background()
	ws := t.TempDir()
	inner, beside := filepath.Join(ws, "pkg"), t.TempDir()
	short := func() (context.Context, context.CancelFunc) { return context.WithTimeout(ctx, 150*time.Millisecond) }
	link := filepath.Join(t.TempDir(), "ws")
	if err := os.Symlink(ws, link); err != nil {
		t.Fatal(err)
	}

	for _, running := range []string{ws, inner, filepath.Dir(ws), link, filepath.Join(link, "pkg")} {
		if err := commandStarted(ctx, running); err != nil {
			t.Fatal(err)
		}
		c, cancel := short()
		if _, err := Quiet(c, ws); err == nil {
			t.Fatalf("Quiet of %s did not wait for the command of %s", ws, running)
		}
		cancel()
		got := make(chan func(), 1)
		go func() {
			release, err := Quiet(ctx, ws)
			if err == nil {
				got <- release
			}
		}()
		time.Sleep(50 * time.Millisecond)
		// Wanted: a command of an overlapping folder waits; one beside
		// does not.
		c, cancel = short()
		if err := commandStarted(c, inner); err == nil {
			t.Fatalf("a command of %s started while Loupe waited to change %s", inner, ws)
		}
		cancel()
		if err := commandStarted(ctx, beside); err != nil {
			t.Fatalf("a command beside was held back: %v", err)
		}
		commandEnded(beside)
		commandEnded(running)
		var release func()
		select {
		case release = <-got:
		case <-time.After(5 * time.Second):
			t.Fatal("Quiet did not go on once the command ended")
		}
		c, cancel = short()
		if err := commandStarted(c, ws); err == nil {
			t.Fatal("a command started while Loupe changed the workspace")
		}
		cancel()
		release()
		if err := commandStarted(ctx, ws); err != nil {
			t.Fatalf("a command could not start once Loupe let go: %v", err)
		}
		commandEnded(ws)
	}
	// A command whose workspace is not known counts for every one.
	if err := commandStarted(ctx, ""); err != nil {
		t.Fatal(err)
	}
	c, cancel := short()
	defer cancel()
	if _, err := Quiet(c, beside); err == nil {
		t.Fatal("Quiet did not wait for a command of a workspace not known")
	}
	commandEnded("")
}
