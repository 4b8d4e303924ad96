// Package golden turns session event logs into stable, readable JSON and
// compares them with the golden files that specify them. The expected log
// is the spec: a reviewer reads the file.
package golden

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/trace"
)

// Options say what varies between runs and must be redacted.
type Options struct {
	// Workspace is replaced by $WORKSPACE wherever it appears.
	Workspace string
	// CallIDs, when set, matches random tool-call ids; they become
	// call_1, call_2, … in order of first appearance.
	CallIDs *regexp.Regexp
	// Counts redacts prompt token counts and Loupe's estimate (they follow
	// the length of paths in the system prompt).
	Counts bool
}

// Normalize drops session ids and times, redacts durations (and what
// Options say), and lists offered tools by name only: their schemas are
// the tools package's spec.
func Normalize(t testing.TB, evs []trace.Event, o Options) []byte {
	t.Helper()
	ids := map[string]string{}
	out := make([]map[string]any, 0, len(evs))
	for _, e := range evs {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if o.Workspace != "" {
			b = bytes.ReplaceAll(b, []byte(o.Workspace), []byte("$WORKSPACE"))
		}
		if o.CallIDs != nil {
			b = o.CallIDs.ReplaceAllFunc(b, func(id []byte) []byte {
				s, ok := ids[string(id)]
				if !ok {
					s = fmt.Sprintf("call_%d", len(ids)+1)
					ids[string(id)] = s
				}
				return []byte(s)
			})
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "session_id")
		delete(m, "time")
		if p, ok := m["payload"].(map[string]any); ok {
			redact(p, o)
			if tools, ok := p["tools"].([]any); ok {
				names := make([]any, len(tools))
				for i, tl := range tools {
					names[i] = tl.(map[string]any)["name"]
				}
				p["tools"] = names
			}
		}
		out = append(out, m)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func redact(p map[string]any, o Options) {
	for k, v := range p {
		switch {
		case k == "duration_ms" || k == "time_to_first_token" || strings.HasSuffix(k, "_duration"):
			p[k] = "<duration>"
		case k == "created_at" && o.CallIDs != nil:
			p[k] = "<time>"
		case k == "host":
			// The test server's port differs on every run.
			p[k] = "$OLLAMA"
		case o.Counts && (k == "prompt_eval_count" || k == "prompt_estimate"):
			p[k] = "<count>"
		case o.Counts && (k == "split" || k == "context"):
			// The context meter's sizes and counts follow them too.
			if s, ok := v.(map[string]any); ok {
				redactSizes(s)
			}
		case k == "raw" || k == "metrics":
			if s, ok := v.(map[string]any); ok {
				redact(s, o)
			}
		}
	}
}

// sizes are the context meter's fields that follow the prompt's length.
var sizes = map[string]bool{"system": true, "tools": true, "history": true, "new": true, "bytes": true, "bytes_per_token": true, "prompt": true, "counted": true}

func redactSizes(p map[string]any) {
	for k, v := range p {
		switch {
		case sizes[k]:
			p[k] = "<count>"
		case k == "parts":
			if s, ok := v.(map[string]any); ok {
				redactSizes(s)
			}
		}
	}
}

// Check compares got with the file at path, or writes it when update is
// set. On a difference it writes NAME.got.json beside the golden file and
// names the first line that differs. hint says how to update.
func Check(t testing.TB, path string, got []byte, update bool, hint string) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (%s)", err, hint)
	}
	if !bytes.Equal(got, want) {
		gotPath := strings.TrimSuffix(path, ".json") + ".got.json"
		_ = os.WriteFile(gotPath, got, 0o644)
		t.Errorf("event log differs from %s; got written to %s (%s if the change is meant)\n%s", path, gotPath, hint, firstDiff(string(want), string(got)))
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n  want: %s\n  got:  %s", i+1, x, y)
		}
	}
	return ""
}
