package session_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/sandbox"
	"github.com/loupe-dev/loupe/backend/session"
)

// Undo waits while another session's command runs in the same folder, and
// says so: the report hears one command. Stopped there (the window's Stop
// waiting), it fails saying nothing was changed, and the file the turn
// wrote is still there. Once the other command has ended, Undo goes on.
func TestUndoSaysWhatItWaitsForAndStopsChangingNothing(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	ctx := context.Background()
	h.srv.Script(
		calls(call("c1", "write_file", `{"path":"a.txt","content":"one\n"}`)),
		ollamatest.Text("done"),
	)
	h.run("write")

	other, err := h.m.Create(ctx, h.ws, testModel)
	if err != nil {
		t.Fatal(err)
	}
	h.srv.Script(
		calls(call("c2", "run_command", `{"command":"touch started.txt; sleep 60"}`)),
		ollamatest.Text("slept"),
	)
	if _, err := h.m.Do(ctx, session.Send{Session: other.ID, Text: "sleep"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { _, ok := h.read("started.txt"); return ok }, "the other session's command to start")

	heard := make(chan int, 8)
	waitCtx, stop := context.WithCancel(sandbox.WithWaitReport(ctx, func(n int) { heard <- n }))
	defer stop()
	done := make(chan error, 1)
	go func() {
		_, err := h.m.Do(waitCtx, session.UndoRun{Session: h.id, Run: 1})
		done <- err
	}()
	select {
	case n := <-heard:
		if n != 1 {
			t.Fatalf("Undo said it waits for %d commands, want 1", n)
		}
	case err := <-done:
		t.Fatalf("Undo did not wait for the other session's command: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("Undo said nothing of what it waits for")
	}
	stop()
	err = <-done
	if err == nil || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("Undo stopped while waiting: %v; want it to say nothing was changed", err)
	}
	if b, ok := h.read("a.txt"); !ok || b != "one\n" {
		t.Fatalf("a.txt after the stopped Undo: %q, %v", b, ok)
	}

	if _, err := h.m.Do(ctx, session.Stop{Session: other.ID}); err != nil {
		t.Fatal(err)
	}
	h.m.Wait(other.ID)
	if _, err := h.m.Do(ctx, session.UndoRun{Session: h.id, Run: 1}); err != nil {
		t.Fatalf("Undo once the other command ended: %v", err)
	}
	if _, ok := h.read("a.txt"); ok {
		t.Error("Undo did not take a.txt away")
	}
}
