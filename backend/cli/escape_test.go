package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/cli"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/viewer"
	"github.com/loupe-dev/loupe/backend/visible/visibletest"
)

// hostileScript is a run in which every hostile sequence comes back from
// every side: round i's answer holds sequence i in its thinking and its
// text, and asks for a command that prints it (its argument holds it
// too), for the file that holds it, and for a tool whose name holds it;
// the last answer holds them all.
func hostileScript(t *testing.T, ws string) []ollamatest.Reply {
	t.Helper()
	var replies []ollamatest.Reply
	for i, s := range visibletest.Sequences {
		file := fmt.Sprintf("hostile-%d.txt", i)
		if err := os.WriteFile(filepath.Join(ws, file), []byte("file says "+s.Raw+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		args := func(v map[string]string) string {
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		replies = append(replies, ollamatest.Reply{
			Chunks: []ollamatest.Chunk{{Thinking: "thinks " + s.Raw}, {Content: "says " + s.Raw}},
			ToolCalls: []ollamatest.Call{
				{ID: fmt.Sprintf("cmd%d", i), Name: "run_command", Args: args(map[string]string{"command": "printf '%s\\n' 'prints " + s.Raw + "'"})},
				{ID: fmt.Sprintf("read%d", i), Name: "read_file", Args: args(map[string]string{"path": file})},
				{ID: fmt.Sprintf("bad%d", i), Name: "tool" + s.Raw, Args: `{}`},
			},
		})
	}
	return append(replies, ollamatest.Text("All done: "+visibletest.All()))
}

// embeddedSession is the text of the shared replay's session data element.
func embeddedSession(t *testing.T, where, page string) string {
	t.Helper()
	start := `<script type="application/json" id="` + viewer.SessionID + `">`
	i := strings.Index(page, start)
	if i < 0 {
		t.Fatalf("%s: the page holds no session data", where)
	}
	rest := page[i+len(start):]
	return rest[:strings.Index(rest, "</script>")]
}

// noRaw fails the test for each character of out a terminal would obey.
func noRaw(t *testing.T, where, out string) {
	t.Helper()
	if raw := visibletest.RawControls(out); len(raw) > 0 {
		t.Errorf("%s: %d raw control characters reach it, the first: %s", where, len(raw), strings.Join(raw[:min(len(raw), 3)], "; "))
	}
}

// shows fails the test for each sequence whose escaped form out lacks,
// count times over at least.
func shows(t *testing.T, where, out string, count int) {
	t.Helper()
	for _, s := range visibletest.Sequences {
		if n := strings.Count(out, s.Shown); n < count {
			t.Errorf("%s: %s is shown escaped (%s) %d times, want %d or more", where, s.Name, s.Shown, n, count)
		}
	}
}

// Whatever the model answers, a command prints, a file holds, a server
// says or a session's title is, nothing Loupe prints or exports obeys a
// control character in it: every one reaches the output escaped, visibly,
// on every path (the timeline, --json, each export format on standard
// output and to a file, loupe pull's progress and errors, the errors of
// loupe run). --json and the JSON export stay JSON, with the text as it
// was.
func TestNoTextFromTheModelOrACommandControlsTheTerminal(t *testing.T) {
	e := setup(t)
	// A context no round fills: every scripted answer answers a round,
	// none a compaction.
	e.srv.AddModel(ollamatest.ModelSpec{Name: "wide", ContextLength: 131072})
	prompt := "Check the files " + visibletest.All()

	// The timeline, as loupe run prints it.
	e.srv.Script(hostileScript(t, e.ws)...)
	code, out, stderr := e.run("run", "--workspace", e.ws, "--model", "wide", "--host", e.srv.URL(), "--db", e.db, "--auto", prompt)
	if code != cli.ExitAnswered {
		t.Fatalf("exit %d: %s\n%s", code, stderr, out)
	}
	noRaw(t, "loupe run", out+stderr)
	// The prompt, each round's answer, its command's argument, its output,
	// the file it read, the tool name it made up, and the last answer.
	shows(t, "loupe run", out, 6)

	// The same run as JSON lines: each line an event, its text intact.
	e.srv.Script(hostileScript(t, e.ws)...)
	code, out, stderr = e.run("run", "--workspace", e.ws, "--model", "wide", "--host", e.srv.URL(), "--db", e.db, "--auto", "--json", prompt)
	if code != cli.ExitAnswered {
		t.Fatalf("--json: exit %d: %s", code, stderr)
	}
	noRaw(t, "loupe run --json", out+stderr)
	var text strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("--json: a line is not JSON (%v): %q", err, line)
		}
		fmt.Fprintf(&text, "%v\n", ev)
	}
	for _, s := range visibletest.Sequences {
		if n := strings.Count(text.String(), s.Raw); n < 6 {
			t.Errorf("--json: %s is in the events %d times, want 6 or more: the text was changed", s.Name, n)
		}
	}

	// Each export, on standard output and to a file.
	st, err := store.Open(e.db)
	if err != nil {
		t.Fatal(err)
	}
	ss, err := st.ListSessions(context.Background())
	st.Close()
	if err != nil || len(ss) != 2 {
		t.Fatalf("sessions: %d, %v", len(ss), err)
	}
	for _, format := range []string{"md", "html", "json"} {
		for _, toFile := range []bool{false, true} {
			where := "loupe export --format " + format
			args := []string{"export", ss[0].ID, "--db", e.db, "--format", format}
			file := filepath.Join(t.TempDir(), "export."+format)
			if toFile {
				where += " --out"
				args = append(args, "--out", file)
			}
			code, out, stderr := e.run(args...)
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", where, code, stderr)
			}
			if toFile {
				b, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				out = string(b)
			}
			noRaw(t, where, out+stderr)
			if format == "md" {
				// The title, the prompt, each answer and its thinking, each
				// command's argument and output, each file, each tool name,
				// the last answer.
				shows(t, where, out, 7)
				continue
			}
			if format == "html" {
				// The shared replay embeds the JSON export, which the page
				// shows as the window does (e2e/share.test.mjs): the same
				// value, its controls written as JSON escapes.
				out = embeddedSession(t, where, out)
			}
			var doc struct {
				Session struct {
					Title string `json:"title"`
				} `json:"session"`
				Events []json.RawMessage `json:"events"`
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("%s: not JSON: %v", where, err)
			}
			if !strings.Contains(doc.Session.Title, visibletest.Sequences[0].Raw) {
				t.Errorf("%s: the title lost its text: %q", where, doc.Session.Title)
			}
		}
	}

	// An error from Ollama, as the run records it and as loupe run says it.
	body, _ := json.Marshal(map[string]string{"error": "model says " + visibletest.All()})
	e.srv.Script(ollamatest.Reply{Fault: ollamatest.HTTPStatus(500, string(body))})
	code, out, stderr = e.run("run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "hi")
	if code != cli.ExitEnded {
		t.Fatalf("a model error: exit %d: %s", code, stderr)
	}
	noRaw(t, "loupe run, an error from Ollama", out+stderr)
	shows(t, "loupe run, an error from Ollama", out+stderr, 1)

	// A model name loupe run cannot find.
	for _, s := range visibletest.Sequences {
		code, out, stderr = e.run("run", "--workspace", e.ws, "--model", "qwen"+s.Raw, "--host", e.srv.URL(), "--db", e.db, "hi")
		if code != cli.ExitFailed {
			t.Fatalf("an unknown model: exit %d: %s", code, stderr)
		}
		noRaw(t, "loupe run, an unknown model named with "+s.Name, out+stderr)
	}

	// loupe pull: the model's name in its progress and errors, and the
	// words of a registry that fails.
	for _, s := range visibletest.Sequences {
		name := "qwen" + s.Raw
		e.srv.AddPullable(ollamatest.Pullable{Model: ollamatest.ModelSpec{Name: name}, Layers: []int64{1_000}})
		code, out, stderr := e.run("pull", name, "--host", e.srv.URL(), "--db", e.db)
		noRaw(t, "loupe pull of a name with "+s.Name, out+stderr)
		if code == 0 && !strings.Contains(out, "qwen"+s.Shown) {
			t.Errorf("loupe pull of a name with %s: the name is not shown escaped:\n%s", s.Name, out)
		}
	}
	e.srv.AddPullable(ollamatest.Pullable{Model: ollamatest.ModelSpec{Name: "evil.example/x/model"}, Fail: "registry says " + visibletest.All()})
	code, out, stderr = e.run("pull", "evil.example/x/model", "--host", e.srv.URL(), "--db", e.db)
	if code != cli.ExitEnded {
		t.Fatalf("a failing registry: exit %d: %s", code, stderr)
	}
	noRaw(t, "loupe pull, a registry's error", out+stderr)
	shows(t, "loupe pull, a registry's error", stderr, 1)
}
