package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/cli"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
)

type env struct {
	srv *ollamatest.Server
	db  string
	ws  string
}

func setup(t *testing.T) env {
	srv := ollamatest.New(t)
	srv.AddModel(ollamatest.ModelSpec{Name: "scripted", ContextLength: 4096})
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "README.md"), []byte("hello\n"), 0o644)
	return env{srv: srv, db: filepath.Join(t.TempDir(), "loupe.db"), ws: ws}
}

func (e env) run(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := cli.Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestRunPrintsJSONEventsAndExitsZeroWhenAnswered(t *testing.T) {
	e := setup(t)
	e.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{ID: "c1", Name: "read_file", Args: `{"path":"README.md"}`}}},
		ollamatest.Text("It says hello."),
	)
	code, out, stderr := e.run("run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "--json", "What does the README say?")
	if code != cli.ExitAnswered {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	var kinds []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev trace.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("line is not an event: %q", line)
		}
		kinds = append(kinds, string(ev.Kind))
	}
	want := "user_message model_request model_response tool_call permission tool_result model_request model_response run_end"
	if strings.Join(kinds, " ") != want {
		t.Fatalf("events = %s\nwant     %s", strings.Join(kinds, " "), want)
	}
}

func TestRunDeniesWhatWouldAskUnlessAuto(t *testing.T) {
	for _, auto := range []bool{false, true} {
		e := setup(t)
		e.srv.Script(
			ollamatest.Reply{ToolCalls: []ollamatest.Call{{ID: "c1", Name: "write_file", Args: `{"path":"new.txt","content":"x"}`}}},
			ollamatest.Text("Done."),
		)
		args := []string{"run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db}
		if auto {
			args = append(args, "--auto")
		}
		code, out, stderr := e.run(append(args, "write new.txt")...)
		if code != cli.ExitAnswered {
			t.Fatalf("auto=%v exit %d: %s", auto, code, stderr)
		}
		_, err := os.Stat(filepath.Join(e.ws, "new.txt"))
		if auto != (err == nil) {
			t.Fatalf("auto=%v: file written = %v\n%s", auto, err == nil, out)
		}
		if !auto && !strings.Contains(out, "use --auto") {
			t.Fatalf("the denial does not say how to allow it:\n%s", out)
		}
	}
}

func TestRunExitCodes(t *testing.T) {
	e := setup(t)
	if code, _, _ := e.run("run", "--model", "scripted"); code != cli.ExitUsage {
		t.Fatalf("no prompt: exit %d", code)
	}
	code, _, stderr := e.run("run", "--workspace", e.ws, "--model", "missing", "--host", e.srv.URL(), "--db", e.db, "hi")
	if code != cli.ExitFailed || !strings.Contains(stderr, "ollama pull missing") {
		t.Fatalf("unknown model: exit %d, %s", code, stderr)
	}
	// Nothing half-written: the session that could not start is gone.
	st, err := store.Open(e.db)
	if err != nil {
		t.Fatal(err)
	}
	ss, err := st.ListSessions(context.Background())
	st.Close()
	if err != nil || len(ss) != 0 {
		t.Fatalf("sessions after a run that could not start: %+v %v", ss, err)
	}
	code, out, _ := e.run("export", "--db", e.db, "--format", "json", "nope")
	if code != cli.ExitFailed || out != "" {
		t.Fatalf("export of a missing session: exit %d", code)
	}
	e.srv.Script(ollamatest.Reply{Fault: ollamatest.HTTPStatus(500, `{"error":"boom"}`)})
	code, _, _ = e.run("run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "hi")
	if code != cli.ExitEnded {
		t.Fatalf("model error: exit %d, want %d", code, cli.ExitEnded)
	}
}

func TestExport(t *testing.T) {
	e := setup(t)
	e.srv.Script(ollamatest.Text("Hello **there**."))
	code, _, stderr := e.run("run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "hi")
	if code != 0 {
		t.Fatal(stderr)
	}
	id := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(stderr), "session"))
	code, out, stderr := e.run("export", id, "--db", e.db, "--format", "json")
	if code != 0 {
		t.Fatal(stderr)
	}
	var x session.Exported
	if err := json.Unmarshal([]byte(out), &x); err != nil || x.Format != "loupe-session" || len(x.Events) != 4 || x.Session.ID != id {
		t.Fatalf("export = %+v err=%v", x, err)
	}
	_, md, _ := e.run("export", id, "--db", e.db, "--format", "md")
	if !strings.Contains(md, "**You:** hi") || !strings.Contains(md, "Hello **there**.") {
		t.Fatalf("markdown export:\n%s", md)
	}
	// The shared replay holds the session as data (the page renders it),
	// never as markup Go wrote.
	_, html, _ := e.run("export", id, "--db", e.db, "--format", "html")
	if !strings.HasPrefix(html, "<!doctype html>") || !strings.Contains(embeddedSession(t, "html", html), "Hello **there**.") || strings.Contains(html, "<strong>there") {
		t.Fatalf("html export is not the shared replay of the session:\n%.2000s", html)
	}
	if code, _, _ := e.run("export", id, "--db", e.db, "--format", "pdf"); code != cli.ExitUsage {
		t.Fatalf("unknown format: exit %d", code)
	}
	// --out writes the file; an export that fails leaves none.
	file := filepath.Join(t.TempDir(), "out.md")
	if code, _, stderr := e.run("export", id, "--db", e.db, "--format", "md", "--out", file); code != 0 {
		t.Fatal(stderr)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != md {
		t.Fatalf("--out wrote %q (%v), want the markdown export", b, err)
	}
	for _, args := range [][]string{{"export", "nope", "--format", "md"}, {"export", id, "--format", "pdf"}} {
		missing := filepath.Join(t.TempDir(), "out")
		if code, _, _ := e.run(append(args, "--db", e.db, "--out", missing)...); code == 0 {
			t.Fatalf("%v succeeded", args)
		}
		if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%v left a file behind: %v", args, err)
		}
	}
}

// Step mode for new sessions is the window's: a headless run, with no one
// to press Step, never pauses.
func TestRunIgnoresStepModeForNewSessions(t *testing.T) {
	e := setup(t)
	st, err := store.Open(e.db)
	if err != nil {
		t.Fatal(err)
	}
	set := settings.Defaults()
	set.StepMode = true
	if err := settings.Save(context.Background(), st, set); err != nil {
		t.Fatal(err)
	}
	st.Close()
	e.srv.Script(ollamatest.Text("Hi."))
	done := make(chan int, 1)
	go func() {
		code, _, _ := e.run("run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "hi")
		done <- code
	}()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("loupe run waits at a pause no one can step")
	}
}
