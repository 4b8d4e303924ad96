package cli_test

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/cli"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/trace"
)

// loupe fork SESSION --at SEQ makes a fork that waits at its fork point,
// and loupe run --continue takes it on to its end and then runs the
// message; the parent's export is the same before and after. Bad input
// (an event inside an unfinished request, a missing --at) is refused and
// makes nothing.
func TestForkAndContinueHeadless(t *testing.T) {
	e := setup(t)
	e.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{ID: "call_1", Name: "list_dir", Args: `{"path":"."}`}}},
		ollamatest.Text("Parent done."),
	)
	if code, _, stderr := e.run("run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "--auto", "list"); code != 0 {
		t.Fatal(stderr)
	}
	parentID := onlySession(t, e)
	_, before, _ := e.run("export", parentID, "--format", "json", "--db", e.db)
	var ex session.Exported
	if err := json.Unmarshal([]byte(before), &ex); err != nil {
		t.Fatal(err)
	}
	var result, request int64
	for _, ev := range ex.Events {
		if ev.Kind == trace.KindToolResult {
			result = ev.Seq
		}
		if ev.Kind == trace.KindModelRequest && request == 0 {
			request = ev.Seq
		}
	}

	if code, out, stderr := e.run("fork", parentID, "--at", itoa(request), "--db", e.db); code != cli.ExitFailed || out != "" || !strings.Contains(stderr, "inside an unfinished step") {
		t.Fatalf("fork inside a request: exit %d, %q, %q", code, out, stderr)
	}
	if code, _, stderr := e.run("fork", parentID, "--db", e.db); code != cli.ExitUsage || !strings.Contains(stderr, "--at SEQ") {
		t.Fatalf("fork without --at: exit %d, %q", code, stderr)
	}
	code, out, stderr := e.run("fork", parentID, "--at", itoa(result), "--db", e.db)
	if code != 0 || !strings.Contains(stderr, "it waits there") {
		t.Fatalf("fork: exit %d, %q, %q", code, out, stderr)
	}
	child := strings.TrimSpace(out)

	e.srv.Script(ollamatest.Text("Fork done."), ollamatest.Text("And more."))
	code, out, stderr = e.run("run", "--continue", child, "--host", e.srv.URL(), "--db", e.db, "--json", "and then?")
	if code != 0 {
		t.Fatalf("run --continue: exit %d, %s", code, stderr)
	}
	var ends []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev trace.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatal(err)
		}
		if ev.SessionID != child {
			t.Fatalf("run --continue printed an event of %s", ev.SessionID)
		}
		if ev.Kind == trace.KindRunEnd {
			end, _ := trace.Decode[trace.RunEnd](ev)
			ends = append(ends, end.FinalText)
		}
	}
	if strings.Join(ends, "|") != "Fork done.|And more." {
		t.Fatalf("the runs ended %q", ends)
	}
	if _, after, _ := e.run("export", parentID, "--format", "json", "--db", e.db); !bytes.Equal([]byte(after), []byte(before)) {
		t.Fatalf("the parent's export changed")
	}
}

func onlySession(t *testing.T, e env) string {
	t.Helper()
	return onlySessionLog(t, e.db)[0].SessionID
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
