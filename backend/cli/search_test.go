package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/cli"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/store"
)

// loupe search finds what a loupe run on the same database read and said,
// in text or as JSON, and says when nothing is found.
func TestSearchFindsWhatARunReadAndSaid(t *testing.T) {
	e := setup(t)
	// The file holds a terminal escape: printed raw, it would retitle
	// the user's terminal window.
	os.WriteFile(filepath.Join(e.ws, "README.md"), []byte("hello\nset OPTS from parse_args(argv)\x1b]0;pwned\x07\n"), 0o644)
	e.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{ID: "c1", Name: "read_file", Args: `{"path":"README.md"}`}}},
		ollamatest.Text("It calls parse_args first."),
	)
	if code, _, stderr := e.run("run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "What does the README say?"); code != cli.ExitAnswered {
		t.Fatalf("run: exit %d, %s", code, stderr)
	}

	code, out, stderr := e.run("search", "PARSE_ARGS(", "--db", e.db)
	if code != 0 || stderr != "" {
		t.Fatalf("search: exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{"1 hit in 1 session for \"PARSE_ARGS(\", best first", "What does the README say?", "scripted", "#6 [1.1] tool_result: 1 hello 2 set OPTS from parse_args(argv)\\x1b]0;pwned\\x07\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("search output lacks %q:\n%s", want, out)
		}
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("search printed control characters raw:\n%q", out)
	}

	code, out, _ = e.run("search", "parse_args", "--json", "--db", e.db, "--model", "scripted", "--workspace", e.ws)
	var res store.SearchResults
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 {
		t.Fatalf("--json: exit %d, %v: %s", code, err, out)
	}
	var kinds []string
	for _, sh := range res.Sessions {
		for _, h := range sh.Hits {
			kinds = append(kinds, string(h.Kind))
		}
	}
	// The answer's text, the result, and the run's final text.
	if got := strings.Join(kinds, ","); got != "tool_result,model_response,run_end" || res.Partial {
		t.Errorf("--json hits %s, partial %v", got, res.Partial)
	}

	if code, out, _ := e.run("search", "parse_args", "--db", e.db, "--model", "other"); code != cli.ExitEnded || !strings.Contains(out, "nothing found") {
		t.Errorf("another model: exit %d, %q", code, out)
	}
}

// A query search cannot run is refused before the database is touched.
func TestSearchRefusesABadQueryAndTouchesNothing(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "loupe.db")
	for _, args := range [][]string{{"ab"}, {`""`}, {"   "}, {"abc", "--since", "yesterday"}, {}, {"abc", "def"}} {
		code, out, stderr := setup(t).run(append([]string{"search", "--db", db}, args...)...)
		if code != cli.ExitUsage || out != "" || stderr == "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, stderr)
		}
		if len(args) == 1 && !strings.Contains(stderr, "at least 3 characters") {
			t.Errorf("%q: %q does not say to type at least 3 characters", args, stderr)
		}
	}
	// A good query on a database that is not there creates none.
	if code, _, stderr := setup(t).run("search", "abc", "--db", db); code != cli.ExitFailed || stderr != "loupe: no Loupe database at "+db+"\n" {
		t.Errorf("missing database: exit %d, %q", code, stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("bad queries left %v", entries)
	}
}

// A database of an older schema is indexed by the first search, which says
// so, and then finds its events.
func TestSearchIndexesAnOlderDatabaseFirst(t *testing.T) {
	path := firstSchemaDB(t)
	code, out, stderr := setup(t).run("search", "missing.txt", "--db", path)
	if code != 0 || !strings.Contains(stderr, "older events for search") || !strings.Contains(out, "user_message: Read [") && !strings.Contains(out, "user_message: Read missing.txt") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	code, _, stderr = setup(t).run("search", "missing.txt", "--db", path)
	if code != 0 || stderr != "" {
		t.Fatalf("second search: exit %d, stderr %q (indexed once)", code, stderr)
	}
}
