package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/sandbox"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
)

// The window's Undo of a turn while a `loupe run` in a terminal runs a
// command in the same folder: the Undo says it waits for that command,
// changes nothing until it has ended, and then takes the turn's file away.
// (Each Loupe process tells the others what it runs where: a command of
// the other process could otherwise swap a file for a link between Undo's
// check and its write.)
func TestAnUndoInTheWindowWaitsForALoupeRunsCommandInTheSameFolder(t *testing.T) {
	if !sandbox.Probe().Sandboxed() {
		t.Skip("commands are not confined here: loupe run would not run one in Auto")
	}
	e := setup(t)
	e.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{ID: "c1", Name: "write_file", Args: `{"path":"a.txt","content":"one\n"}`}}},
		ollamatest.Text("Written."),
	)
	if code, _, stderr := e.run("run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "--auto", "write a.txt"); code != 0 {
		t.Fatalf("the first run: exit %d: %s", code, stderr)
	}
	st, err := store.Open(e.db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	list, err := st.ListSessions(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions: %v %v", list, err)
	}
	written := list[0].ID

	e.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{ID: "c2", Name: "run_command", Args: `{"command":"touch started.txt; sleep 3; touch ended.txt"}`}}},
		ollamatest.Text("Slept."),
	)
	p := startLoupe(t, "run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "--json", "--auto", "sleep")
	p.waitFor(t, trace.KindToolCall)
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(e.ws, "started.txt")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("loupe run's command never started")
		}
		time.Sleep(20 * time.Millisecond)
	}

	window := session.NewManager(st, nil, nil, nil)
	heard := make(chan int, 8)
	if _, err := window.Do(sandbox.WithWaitReport(ctx, func(n int) { heard <- n }), session.UndoRun{Session: written, Run: 1}); err != nil {
		t.Fatalf("Undo: %v", err)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "ended.txt")); err != nil {
		t.Fatal("Undo changed the folder while loupe run's command still ran there")
	}
	select {
	case n := <-heard:
		if n != 1 {
			t.Fatalf("Undo said it waits for %d commands, want 1", n)
		}
	default:
		t.Fatal("Undo waited and said nothing of what it waited for")
	}
	if _, err := os.Stat(filepath.Join(e.ws, "a.txt")); !os.IsNotExist(err) {
		t.Fatalf("Undo did not take a.txt away: %v", err)
	}
	p.wait(t, 20*time.Second)
	if out := p.stderrText(); strings.Contains(out, "panic") {
		t.Fatal(out)
	}
}
