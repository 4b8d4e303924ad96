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

// While Quiet waits it says how many it waits for, each time that changes
// (what the window shows as "Waiting for 2 commands to end"), and 0 once
// it goes on or stops waiting.
func TestQuietSaysHowManyCommandsItWaitsFor(t *testing.T) {
	ctx := context.Background()
	ws := t.TempDir()
	heard := make(chan int, 16)
	report := WithWaitReport(ctx, func(n int) { heard <- n })
	next := func(want int) {
		t.Helper()
		select {
		case n := <-heard:
			if n != want {
				t.Fatalf("Quiet said it waits for %d, want %d", n, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("Quiet said nothing; want %d", want)
		}
	}
	for _, running := range []string{ws, filepath.Join(ws, "pkg")} {
		if err := commandStarted(ctx, running); err != nil {
			t.Fatal(err)
		}
	}
	got := make(chan func(), 1)
	go func() {
		release, err := Quiet(report, ws)
		if err != nil {
			t.Error(err)
		}
		got <- release
	}()
	next(2)
	commandEnded(ws)
	next(1)
	commandEnded(filepath.Join(ws, "pkg"))
	next(0)
	(<-got)()

	// Stopped while it waits: it says 0 and gives the context's error.
	if err := commandStarted(ctx, ws); err != nil {
		t.Fatal(err)
	}
	c, cancel := context.WithCancel(report)
	done := make(chan error, 1)
	go func() {
		_, err := Quiet(c, ws)
		done <- err
	}()
	next(1)
	cancel()
	next(0)
	if err := <-done; err == nil {
		t.Error("Quiet stopped waiting without an error")
	}
	commandEnded(ws)

	// Nothing to wait for: nothing said.
	release, err := Quiet(report, ws)
	if err != nil {
		t.Fatal(err)
	}
	release()
	select {
	case n := <-heard:
		t.Errorf("Quiet waited for nothing and said %d", n)
	default:
	}
}
