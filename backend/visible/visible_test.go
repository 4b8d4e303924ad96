package visible_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/loupe-dev/loupe/backend/visible"
	"github.com/loupe-dev/loupe/backend/visible/visibletest"
)

func TestTextShowsEachHostileSequenceEscaped(t *testing.T) {
	for _, s := range visibletest.Sequences {
		got := visible.Text("before " + s.Raw + " after")
		if want := "before " + s.Shown + " after"; got != want {
			t.Errorf("%s: Text = %q, want %q", s.Name, got, want)
		}
		if raw := visibletest.RawControls(got); len(raw) > 0 {
			t.Errorf("%s: raw in the output: %v", s.Name, raw)
		}
	}
}

func TestTextKeepsLineBreaksAndLineEscapesThem(t *testing.T) {
	for _, c := range []struct{ in, text, line string }{
		{"a\nb\tc", "a\nb\tc", `a\nb\tc`},
		{"dos\r\nline\r\n", "dos\r\nline\r\n", `dos\r\nline\r\n`},
		{"cr at the end\r", `cr at the end\r`, `cr at the end\r`},
		{"\r\r\n", "\\r\r\n", `\r\r\n`},
		{"nul\x00 vt\v ff\f", `nul\x00 vt\x0b ff\f`, `nul\x00 vt\x0b ff\f`},
		{"marks \u200e\u200f\u061c", `marks \u200e\u200f\u061c`, `marks \u200e\u200f\u061c`},
		{"not utf-8 \x9b2J \xff", `not utf-8 \x9b2J \xff`, `not utf-8 \x9b2J \xff`},
		{"a path C:\\x1b and é ü 漢字 🙂", "a path C:\\x1b and é ü 漢字 🙂", "a path C:\\x1b and é ü 漢字 🙂"},
		{"", "", ""},
	} {
		if got := visible.Text(c.in); got != c.text {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.text)
		}
		if got := visible.Line(c.in); got != c.line {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.line)
		}
		if visible.Safe(c.in) != (visible.Text(c.in) == c.in) {
			t.Errorf("Safe(%q) = %v, but Text changes it: %v", c.in, visible.Safe(c.in), visible.Text(c.in) != c.in)
		}
		if got := visible.Text(visible.Text(c.in)); got != visible.Text(c.in) {
			t.Errorf("Text is not the same twice over for %q: %q", c.in, got)
		}
	}
}

// JSON escapes the C0 controls itself; what visible escapes besides stays
// a JSON string with the same value.
func TestTextOfJSONIsTheSameJSON(t *testing.T) {
	value := map[string]string{"all": visibletest.All(), "plain": "x"}
	b, err := json.Marshal(value)
	if err != nil {
		t.Fatal(err)
	}
	shown := visible.Text(string(b))
	if raw := visibletest.RawControls(shown); len(raw) > 0 {
		t.Fatalf("raw in the JSON: %v", raw)
	}
	var back map[string]string
	if err := json.Unmarshal([]byte(shown), &back); err != nil {
		t.Fatalf("not JSON once escaped: %v\n%s", err, shown)
	}
	if back["all"] != value["all"] || back["plain"] != "x" {
		t.Fatalf("the value changed:\n%q\nwant\n%q", back["all"], value["all"])
	}
}

// A stream escaped piece by piece is as safe as whole, wherever it is cut:
// an escape sequence cut in two still has its ESC escaped, and a character
// cut in two shows as its bytes.
func TestWriterIsSafeWhereverTheTextIsCut(t *testing.T) {
	all := visibletest.All()
	for cut := 0; cut <= len(all); cut++ {
		var out bytes.Buffer
		w := visible.Writer(&out)
		for _, piece := range []string{all[:cut], all[cut:]} {
			if n, err := w.Write([]byte(piece)); err != nil || n != len(piece) {
				t.Fatalf("Write = %d, %v; want %d", n, err, len(piece))
			}
		}
		if raw := visibletest.RawControls(out.String()); len(raw) > 0 {
			t.Fatalf("cut at %d: raw in the output: %v", cut, raw)
		}
		if cut == 0 && out.String() != visible.Text(all) {
			t.Fatalf("whole, the writer writes %q, not Text's %q", out.String(), visible.Text(all))
		}
	}
}
