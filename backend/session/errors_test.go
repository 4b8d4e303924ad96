package session_test

import (
	"bytes"
	"context"
	"database/sql"
	"log"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

// lockedBuffer is the process log while a test reads it: runs write to it
// from their own goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// processLog captures what the process logs until the test ends.
func processLog(t *testing.T) *lockedBuffer {
	var b lockedBuffer
	log.SetOutput(&b)
	t.Cleanup(func() { log.SetOutput(os.Stderr) })
	return &b
}

// refuse makes the harness's database refuse writes as a full or broken
// disk would, with a trigger: the store's own statements fail with the
// trigger's message.
func refuse(t *testing.T, h *harness, triggers ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+h.st.Path()+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range triggers {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// A run in the window whose answer the database refuses to save stops;
// before, nothing said why (the error was dropped in the goroutine that ran
// it). Now the process log says it, and so does a notice on the run, which
// the window gets as an event; that its end could not be saved either is
// logged too.
func TestABackgroundRunThatCannotSaveSaysWhy(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	logged := processLog(t)
	h.srv.Script(ollamatest.Text("hello"))
	refuse(t, h,
		`CREATE TRIGGER refuse_answers BEFORE INSERT ON events WHEN NEW.kind = 'model_response'
		 BEGIN SELECT RAISE(ABORT, 'the disk is full'); END`,
		`CREATE TRIGGER refuse_error_end BEFORE UPDATE OF last_reason ON sessions WHEN NEW.last_reason = 'error'
		 BEGIN SELECT RAISE(ABORT, 'the disk is still full'); END`)
	if _, err := h.m.Do(context.Background(), session.Send{Session: h.id, Text: "say hello"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return notices(h.events(), session.CodeRunFailed) == 1 }, "a notice that the run stopped")
	for _, want := range []string{"session " + h.id + ": the run stopped", "the disk is full", "how its run ended could not be saved", "the disk is still full"} {
		if !strings.Contains(logged.String(), want) {
			t.Errorf("the log does not say %q:\n%s", want, logged.String())
		}
	}
	var said string
	h.sink.mu.Lock()
	seen := append([]trace.Event(nil), h.sink.events...)
	h.sink.mu.Unlock()
	for _, e := range seen {
		if p, err := trace.Decode[trace.Notice](e); e.Kind == trace.KindNotice && err == nil && p.Code == session.CodeRunFailed {
			said = p.Message
		}
	}
	if !strings.Contains(said, "the disk is full") {
		t.Errorf("the window was not told why the run stopped: %q", said)
	}
}

// A title the database refuses is logged, and the run goes on.
func TestATitleThatCannotBeSavedIsLogged(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	logged := processLog(t)
	h.srv.Script(ollamatest.Text("hello"))
	refuse(t, h, `CREATE TRIGGER refuse_titles BEFORE UPDATE OF title ON sessions
		BEGIN SELECT RAISE(ABORT, 'titles are refused'); END`)
	if end := h.run("say hello"); end.Reason != trace.EndAnswered {
		t.Fatalf("the run ended %q, want answered", end.Reason)
	}
	if !strings.Contains(logged.String(), "its title could not be saved: ") || !strings.Contains(logged.String(), "titles are refused") {
		t.Errorf("the log does not say that the title was not saved:\n%s", logged.String())
	}
}

// "Allow for this workspace" that the database cannot save: the run says
// so on the timeline, where the person who answered sees it, and the
// answer holds for the rest of the session instead of being forgotten.
func TestAWorkspaceAnswerThatCannotBeSavedIsSaidAndKeptForTheSession(t *testing.T) {
	h := newHarness(t, permission.ModeAsk, nil)
	logged := processLog(t)
	refuse(t, h, `CREATE TRIGGER refuse_workspace BEFORE INSERT ON settings WHEN NEW.key LIKE 'workspace/%'
		BEGIN SELECT RAISE(ABORT, 'the workspace cannot be saved'); END`,
		`CREATE TRIGGER refuse_workspace_update BEFORE UPDATE ON settings WHEN NEW.key LIKE 'workspace/%'
		BEGIN SELECT RAISE(ABORT, 'the workspace cannot be saved'); END`)
	h.srv.Script(
		calls(call("c1", "write_file", `{"path":"a.txt","content":"one"}`)),
		ollamatest.Text("wrote a"),
		calls(call("c2", "write_file", `{"path":"a.txt","content":"two"}`)),
		ollamatest.Text("wrote a again"),
	)
	var asked atomic.Int32
	go func() {
		for a := range h.asks {
			asked.Add(1)
			if _, err := h.m.Do(context.Background(), session.Answer{Session: h.id, CallID: a.CallID, Allow: true, Scope: string(permission.ScopeWorkspace)}); err != nil {
				t.Errorf("answer: %v", err)
			}
		}
	}()
	h.run("write a")
	evs := h.events()
	invariants.Check(t, evs)
	if n := notices(evs, agent.CodeGrantNotKept); n != 1 {
		t.Fatalf("%d notices that the answer was not saved, want 1", n)
	}
	if !strings.Contains(logged.String(), "the workspace cannot be saved") {
		t.Errorf("the log does not say why:\n%s", logged.String())
	}
	// The next run of the session is not asked again.
	h.run("write a again")
	if got, _ := h.read("a.txt"); got != "two" || asked.Load() != 1 {
		t.Fatalf("a.txt = %q after %d questions; want the second write, asked once", got, asked.Load())
	}
}

// A lease the database will not let go of keeps the session reading as
// run by this process until it exits: the log says so.
func TestALeaseThatCannotBeReleasedIsLogged(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	logged := processLog(t)
	h.srv.Script(ollamatest.Text("hello"))
	refuse(t, h, `CREATE TRIGGER keep_leases BEFORE DELETE ON run_leases
		BEGIN SELECT RAISE(ABORT, 'leases cannot be deleted'); END`)
	if end := h.run("say hello"); end.Reason != trace.EndAnswered {
		t.Fatalf("the run ended %q, want answered", end.Reason)
	}
	if !strings.Contains(logged.String(), "session "+h.id+": letting go of its run failed") || !strings.Contains(logged.String(), "leases cannot be deleted") {
		t.Errorf("the log does not say that the lease was kept:\n%s", logged.String())
	}
}
