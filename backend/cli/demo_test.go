package cli_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/cli"
	"github.com/loupe-dev/loupe/backend/demo"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/golden"
)

var update = flag.Bool("update", false, "rewrite the golden event logs in testdata/golden")

// noOllama is a host where nothing listens: the demo must not need one.
const noOllama = "http://127.0.0.1:9"

// demoRun runs `loupe run --model demo` with args, and returns its exit
// code, its printed events, its stderr, and the session as stored.
func demoRun(t *testing.T, args ...string) (int, []trace.Event, string, store.Session, []trace.Event) {
	t.Helper()
	db := filepath.Join(t.TempDir(), "loupe.db")
	e := env{db: db}
	code, out, stderr := e.run(append([]string{"run", "--model", demo.Name, "--host", noOllama, "--db", db, "--json"}, args...)...)
	var printed []trace.Event
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev trace.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("line is not an event: %q (stderr %s)", line, stderr)
		}
		printed = append(printed, ev)
	}
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ss, err := st.ListSessions(context.Background())
	if err != nil || len(ss) != 1 {
		t.Fatalf("sessions after the demo: %+v %v", ss, err)
	}
	stored, err := st.Events(context.Background(), ss[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(ss[0].Workspace) })
	return code, printed, stderr, ss[0], stored
}

func TestDemoRunsHeadlessWithNoOllamaAndFixesItsProject(t *testing.T) {
	code, printed, stderr, s, evs := demoRun(t, "--auto", demo.Task)
	if code != cli.ExitAnswered {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	if len(printed) != len(evs) {
		t.Fatalf("printed %d events, stored %d", len(printed), len(evs))
	}
	// No --workspace: a fresh copy of the project, named on stderr, and
	// fixed by the run.
	if !strings.Contains(s.Workspace, "loupe-demo-") || !strings.Contains(stderr, s.Workspace) || !strings.Contains(stderr, demo.Label) {
		t.Fatalf("workspace %q, stderr %q", s.Workspace, stderr)
	}
	fixed, err := os.ReadFile(filepath.Join(s.Workspace, "slug.sh"))
	if err != nil || !strings.Contains(string(fixed), `-e 's/-$//'`) {
		t.Fatalf("slug.sh after the run: %s %v", fixed, err)
	}
	end, _ := trace.Decode[trace.RunEnd](evs[len(evs)-1])
	if end.Reason != trace.EndAnswered || !strings.Contains(end.FinalText, "all 4 cases passed") {
		t.Fatalf("run end: %+v", end)
	}
	golden.Check(t, filepath.Join("testdata", "golden", "demo.json"),
		golden.Normalize(t, evs, golden.Options{Workspace: s.Workspace, Counts: true}), *update, "run `go test ./backend/cli -run Demo -update`")
}

// Without --auto nobody can be asked, so the test run and the edit are
// denied: the demo says so, and the project stays as it was. Without a
// prompt, the demo is given its task.
func TestDemoHeadlessWithoutAutoIsDeniedAndSaysSo(t *testing.T) {
	code, _, stderr, s, evs := demoRun(t)
	if code != cli.ExitAnswered {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	src, _ := os.ReadFile(filepath.Join(s.Workspace, "slug.sh"))
	orig, _ := demo.ProjectFile("slug.sh")
	if string(src) != orig {
		t.Fatalf("slug.sh changed although the edit was denied:\n%s", src)
	}
	if first, _ := trace.Decode[trace.UserMessage](evs[0]); first.Text != demo.Task {
		t.Fatalf("first message %q, want the demo's task", first.Text)
	}
	end, _ := trace.Decode[trace.RunEnd](evs[len(evs)-1])
	if !strings.Contains(end.FinalText, "You did not let me change `slug.sh`") {
		t.Fatalf("final text: %q", end.FinalText)
	}
	golden.Check(t, filepath.Join("testdata", "golden", "demo_denied.json"),
		golden.Normalize(t, evs, golden.Options{Workspace: s.Workspace, Counts: true}), *update, "run `go test ./backend/cli -run Demo -update`")
}
