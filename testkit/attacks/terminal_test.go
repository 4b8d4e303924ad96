//go:build linux

package attacks_test

import (
	"bufio"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/backend/visible/visibletest"
	"github.com/loupe-dev/loupe/testkit/gguf"
)

// TestTheTerminalObeysNothingTheModelOrACommandWrites: a model whose
// thinking and answers carry terminal control sequences (clear the screen,
// erase a line, set the title, write the clipboard, a link, a carriage
// return over "FAILED", bidi overrides), and a command and a file that
// print them. Whatever loupe run prints, with and without --json, and what
// loupe export writes in each format, the user's terminal must get none of
// them raw, and see each escaped. The control: the events, read back from
// the JSON, hold the sequences as the model and the command sent them, so
// the attack did reach Loupe.
func TestTheTerminalObeysNothingTheModelOrACommandWrites(t *testing.T) {
	l := newLab(t)
	hostile := visibletest.All()
	name := "attack-terminal"
	l.srv.CreateModel(t, name, gguf.Script{
		CompactTools: true,
		Thinking:     true,
		Steps: []gguf.Step{
			{
				Think:  "thinks " + hostile,
				Answer: "says " + hostile,
				Call: []gguf.Call{
					runCommand("printf '%s\\n' 'prints " + hostile + "'"),
					toolCall("read_file", map[string]any{"path": "notes.txt"}),
				},
			},
			{Answer: "All tests passed. " + hostile},
		},
	})
	sessionLine := regexp.MustCompile(`(?m)^session (\S+)$`)
	for _, md := range modes {
		t.Run(md.name, func(t *testing.T) {
			ws := l.fresh("ws")
			writeFile(t, ws+"/notes.txt", "file says "+hostile+"\n")
			args := []string{"run", "--workspace", ws, "--model", name, "--host", l.srv.URL(), "--db", l.db}
			if md.auto {
				args = append(args, "--auto")
			}

			// --json: the same JSON values, none of it raw.
			code, stdout, stderr := l.exec(t, runTimeout, nil, nil, append(append([]string{}, args...), "--json", "Do the task.")...)
			if code != 0 {
				t.Fatalf("loupe run --json: exit %d: %s", code, tail(stderr, 2000))
			}
			noRawControls(t, "loupe run --json", stdout+stderr)
			evs := parseEvents(t, stdout)
			var answers, results strings.Builder
			for _, e := range evs {
				switch e.Kind {
				case trace.KindModelResponse:
					p, _ := trace.Decode[trace.ModelResponse](e)
					answers.WriteString(p.Thinking + p.Content)
				case trace.KindToolResult:
					p, _ := trace.Decode[trace.ToolResult](e)
					results.WriteString(p.Content)
				}
			}
			for _, s := range visibletest.Sequences {
				// The control: the model's text reached Loupe as it was
				// written (its thinking, two answers), and with --auto the
				// command's output and the file's content too.
				if n := strings.Count(answers.String(), s.Raw); n < 3 {
					t.Errorf("control: the model's %s reached Loupe %d times, want 3: the attack did not happen", s.Name, n)
				}
				if want := map[bool]int{false: 0, true: 2}[md.auto]; strings.Count(results.String(), s.Raw) < want {
					t.Errorf("control: the command's and the file's %s reached the results %d times, want %d", s.Name, strings.Count(results.String(), s.Raw), want)
				}
			}

			// The timeline a person reads.
			code, stdout, stderr = l.exec(t, runTimeout, nil, nil, append(append([]string{}, args...), "Do the task.")...)
			if code != 0 {
				t.Fatalf("loupe run: exit %d: %s", code, tail(stderr, 2000))
			}
			noRawControls(t, "loupe run", stdout+stderr)
			// Each line of the timeline is cut at 160 characters: the first
			// sequence is within them; the exports below hold all.
			if first := visibletest.Sequences[0]; strings.Count(stdout, first.Shown) < 3 {
				t.Errorf("loupe run: %s is shown escaped (%s) %d times, want 3 or more", first.Name, first.Shown, strings.Count(stdout, first.Shown))
			}
			m := sessionLine.FindStringSubmatch(stderr)
			if m == nil {
				t.Fatalf("loupe run named no session: %s", tail(stderr, 400))
			}

			// Each export of it.
			for _, format := range []string{"md", "html", "json"} {
				code, out, stderr := l.exec(t, time.Minute, nil, nil, "export", m[1], "--format", format, "--db", l.db)
				if code != 0 {
					t.Fatalf("loupe export --format %s: exit %d: %s", format, code, stderr)
				}
				noRawControls(t, "loupe export --format "+format, out+stderr)
				// The shared replay (html) holds the JSON export as data,
				// its controls written as JSON escapes, and shows it as the
				// window does (backend/cli's escape test reads that data;
				// e2e/share.test.mjs shows it): only Markdown is read as
				// text.
				if format == "md" {
					showsEscaped(t, "loupe export --format "+format, out)
				}
			}
		})
	}
}

func noRawControls(t *testing.T, where, out string) {
	t.Helper()
	if raw := visibletest.RawControls(out); len(raw) > 0 {
		t.Errorf("%s: %d raw control characters reach the terminal, the first: %s", where, len(raw), strings.Join(raw[:min(3, len(raw))], "; "))
	}
}

func showsEscaped(t *testing.T, where, out string) {
	t.Helper()
	for _, s := range visibletest.Sequences {
		if !strings.Contains(out, s.Shown) {
			t.Errorf("%s: %s is not shown escaped (%s)", where, s.Name, s.Shown)
		}
	}
}

// parseEvents reads --json output, failing the test at a line that is not
// an event.
func parseEvents(t *testing.T, stdout string) []trace.Event {
	t.Helper()
	var evs []trace.Event
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e trace.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("loupe run --json printed a line that is not an event (%v): %.300q", err, sc.Text())
		}
		evs = append(evs, e)
	}
	return evs
}
