package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/visible/visibletest"
)

// On a terminal the progress is one line rewritten in place: each update
// starts with a carriage return, blanks what a longer line left, and the
// end of the pull moves to a new line once.
func TestPullBarRewritesOneLineOnATerminal(t *testing.T) {
	var out bytes.Buffer
	b := &pullBar{term: &out, tty: true}
	b.show(ollama.PullProgress{Model: "qwen3", Status: "pulling manifest"})
	b.show(ollama.PullProgress{Model: "qwen3", Status: "pulling 6a0746a1ec1a", Completed: 1_200_000_000, Total: 5_000_000_000, Percent: 24})
	b.show(ollama.PullProgress{Model: "qwen3", Status: "success", Completed: 5_000_000_000, Total: 5_000_000_000, Percent: 100, Done: true})
	b.end()
	got := out.String()
	want := "\rqwen3: pulling manifest" +
		"\rqwen3: pulling 1.1 GB of 4.7 GB (24%)" +
		"\rqwen3: success" + strings.Repeat(" ", len("qwen3: pulling 1.1 GB of 4.7 GB (24%)")-len("qwen3: success")) + "\n"
	if got != want {
		t.Errorf("terminal output\n%q\nwant\n%q", got, want)
	}
}

func TestBytesText(t *testing.T) {
	for n, want := range map[int64]string{999: "999 B", 1_536: "1.5 KB", 5_225_374_208: "4.9 GB", 1_572_864: "1.5 MB"} {
		if got := bytesText(n); got != want {
			t.Errorf("bytesText(%d) = %q, want %q", n, got, want)
		}
	}
}

// On a terminal the bar writes the terminal itself, for its carriage
// return: what it shows of the model's name and Ollama's words is escaped
// there, and its own carriage returns are the only raw control.
func TestPullBarOnATerminalShowsTheServersWordsEscaped(t *testing.T) {
	for _, s := range visibletest.Sequences {
		var out bytes.Buffer
		b := &pullBar{term: &out, tty: true}
		b.show(ollama.PullProgress{Model: "qwen3" + s.Raw, Status: "pulling manifest"})
		b.show(ollama.PullProgress{Model: "qwen3" + s.Raw, Status: s.Raw})
		b.end()
		got := strings.ReplaceAll(out.String(), "\r", "")
		if raw := visibletest.RawControls(got); len(raw) > 0 {
			t.Errorf("%s: raw on the terminal: %v", s.Name, raw)
		}
		if n := strings.Count(got, s.Shown); n != 3 {
			t.Errorf("%s: shown escaped %d times, want 3: %q", s.Name, n, got)
		}
	}
}
