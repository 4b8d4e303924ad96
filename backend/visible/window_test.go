package visible_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/loupe-dev/loupe/backend/visible"
	"github.com/loupe-dev/loupe/backend/visible/visibletest"
)

var update = flag.Bool("update", false, "rewrite frontend/src/lib/replay/visible.json")

// windowTable is where the window's specs read what Text makes of each
// hostile sequence: the window shows text with its own function
// (frontend/src/lib/timeline/visible.ts), and its spec checks it against
// this table, so that the two say the same.
const windowTable = "../../frontend/src/lib/replay/visible.json"

type windowCase struct {
	Name  string `json:"name"`
	Raw   string `json:"raw"`
	Shown string `json:"shown"`
}

// The table is Text's own output, current. Regenerate with
// go test ./backend/visible -run WindowTable -update.
func TestWindowTableIsCurrent(t *testing.T) {
	var cases []windowCase
	for _, s := range visibletest.Sequences {
		cases = append(cases, windowCase{s.Name, s.Raw, visible.Text(s.Raw)})
	}
	for _, s := range []string{"a\nb\tc", "dos\r\nline\r\n", "cr at the end\r", "\r\r\n", "nul\x00 vt\v ff\f", "marks \u200e\u200f\u061c", "plain é ü 漢字 🙂 C:\\x1b"} {
		cases = append(cases, windowCase{"plain " + s, s, visible.Text(s)})
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(cases); err != nil {
		t.Fatal(err)
	}
	// Escaped itself, so the file holds no raw bidi control either.
	want := []byte(visible.Text(b.String()))
	if *update {
		if err := os.WriteFile(windowTable, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(windowTable)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%s is not what Text makes of the sequences (%v): run go test ./backend/visible -run WindowTable -update", windowTable, err)
	}
}
