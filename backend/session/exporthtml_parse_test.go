package session_test

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/loupe-dev/loupe/backend/interop"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/viewer"
)

// markup is what would end a script element early or change how a browser
// reads the rest of it: a closing tag, a comment opener followed by an
// opening tag (which keeps the next </script> from closing anything), and
// the line separators old JavaScript took for line ends.
const markup = "</script><!--<script>\u2028\u2029</SCRIPT ><script"

// A session with that markup in the model's text, a tool's output and a
// file's name, made here or imported from a Claude Code file: a browser's
// parser (golang.org/x/net/html, as the HTML standard reads a page) finds
// exactly the page's script and one element for each of the data, and the
// session's element is JSON that gives back the export and those strings
// exactly.
func TestSharedReplayDataIsOneScriptElementWhateverTheSessionHolds(t *testing.T) {
	ctx := context.Background()
	name := "notes " + markup + ".txt" // two folders and a file: it holds two slashes
	answer := "Done: " + markup

	t.Run("made here", func(t *testing.T) {
		h := newHarness(t, permission.ModeAuto, nil)
		h.srv.Script(
			calls(call("call_1", "write_file", `{"path":`+jsonString(name)+`,"content":`+jsonString(markup+"\n")+`}`)),
			calls(call("call_2", "read_file", `{"path":`+jsonString(name)+`}`)),
			ollamatest.Text(answer),
		)
		h.run("Write it down.")
		out := results(t, h.events())
		if len(out) != 2 || !strings.Contains(out[1].Content, markup) {
			t.Fatalf("the file was not written and read back: %+v", out)
		}
		checkReplayData(t, h, h.id, answer, name, markup)

		// The same value from an encoder that leaves the markup and the
		// line separators as they are (Go's escapes them; another's, or
		// a payload kept as it came, need not): the page's escape is what
		// keeps the element whole.
		var js bytes.Buffer
		if err := session.Export(ctx, h.st, h.id, "json", &js); err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(js.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		plain := strings.NewReplacer(`\u2028`, "\u2028", `\u2029`, "\u2029").Replace(rawJSONString(v))
		if !strings.Contains(plain, markup) {
			t.Fatal("the JSON does not hold the markup as it is: the case is not real")
		}
		var page bytes.Buffer
		if err := viewer.Write(&page, "x", []byte(plain), []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
		checkPage(t, page.String(), v, answer, name, markup)
	})

	t.Run("imported from Claude Code", func(t *testing.T) {
		h := newHarness(t, permission.ModeAuto, nil)
		in := string(agentFixture(t, "claude-code.jsonl"))
		path := "/home/ada/greet/" + name
		// The model's text and the file it reads, then what reading it
		// gave.
		for old, repl := range map[string]string{
			`"Let me look at the test."`:      rawJSONString(answer),
			`"/home/ada/greet/greet_test.go"`: rawJSONString(path),
		} {
			if !strings.Contains(in, old) {
				t.Fatalf("the fixture no longer holds %s", old)
			}
			in = strings.ReplaceAll(in, old, repl)
		}
		in = replaceToolResult(t, in, "toolu_01", markup+"\n")
		res, err := session.ImportFrom(ctx, h.st, strings.NewReader(in), interop.ClaudeCode, session.ImportAsNew, session.ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		checkReplayData(t, h, res.Session.ID, answer, path, markup)
	})
}

// rawJSONString is v as JSON with its markup as it is (not as \u003c), as
// a file another program wrote may hold it.
func rawJSONString(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// replaceToolResult is the Claude Code file in with the content of the
// result of tool call id replaced by content.
func replaceToolResult(t *testing.T, in, id, content string) string {
	t.Helper()
	lines := strings.Split(in, "\n")
	for i, l := range lines {
		if !strings.Contains(l, `"tool_use_id":"`+id+`"`) {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		for _, c := range rec["message"].(map[string]any)["content"].([]any) {
			if c := c.(map[string]any); c["tool_use_id"] == id {
				c["content"] = content
			}
		}
		lines[i] = rawJSONString(rec)
		return strings.Join(lines, "\n")
	}
	t.Fatalf("the fixture has no result of %s", id)
	return ""
}

// checkReplayData checks session id's shared replay (checkPage) against
// its JSON export.
func checkReplayData(t *testing.T, h *harness, id, answer, name, output string) {
	t.Helper()
	var js bytes.Buffer
	if err := session.Export(context.Background(), h.st, id, "json", &js); err != nil {
		t.Fatal(err)
	}
	var want any
	if err := json.Unmarshal(js.Bytes(), &want); err != nil {
		t.Fatal(err)
	}
	checkPage(t, exportHTML(t, h, id), want, answer, name, output)
}

// checkPage parses a shared replay as a browser does: it must have the
// page's own script and one element for each of the data, the session's
// must read back as want, holding answer and name as they are and a
// string with output in it.
func checkPage(t *testing.T, page string, want any, answer, name, output string) {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var scripts []*html.Node
	for n := range doc.Descendants() {
		if n.Type == html.ElementNode && n.Data == "script" {
			scripts = append(scripts, n)
		}
	}
	byID := map[string][]*html.Node{}
	for _, s := range scripts {
		for _, a := range s.Attr {
			if a.Key == "id" {
				byID[a.Val] = append(byID[a.Val], s)
			}
		}
	}
	if len(scripts) != 3 || len(byID[viewer.SessionID]) != 1 || len(byID[viewer.RawID]) != 1 {
		t.Fatalf("a browser reads %d script elements (%d of the session, %d of the bodies), want the page's own and one for each of the data", len(scripts), len(byID[viewer.SessionID]), len(byID[viewer.RawID]))
	}
	text := func(n *html.Node) string {
		var b strings.Builder
		for c := range n.ChildNodes() {
			if c.Type != html.TextNode {
				t.Fatalf("the data element holds a %v node, not only text", c.Type)
			}
			b.WriteString(c.Data)
		}
		return b.String()
	}
	var got any
	if err := json.Unmarshal([]byte(text(byID[viewer.SessionID][0])), &got); err != nil {
		t.Fatalf("the session's element does not read back as JSON: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("the session's element reads back as another value than the JSON export")
	}
	all := map[string]bool{}
	collectStrings(got, all)
	if !all[answer] {
		t.Errorf("the model's text %q is not in the page's data as it was", answer)
	}
	if !all[name] {
		t.Errorf("the file name %q is not in the page's data as it was", name)
	}
	found := false
	for s := range all {
		found = found || strings.Contains(s, output)
	}
	if !found {
		t.Errorf("the tool's output %q is not in the page's data as it was", output)
	}
	var raw any
	if err := json.Unmarshal([]byte(text(byID[viewer.RawID][0])), &raw); err != nil {
		t.Fatalf("the bodies' element does not read back as JSON: %v", err)
	}
}

// collectStrings adds every string v holds to out, and those of every
// string that is itself a JSON document (a tool call's arguments).
func collectStrings(v any, out map[string]bool) {
	switch v := v.(type) {
	case string:
		out[v] = true
		var inner any
		if t := strings.TrimSpace(v); (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && json.Unmarshal([]byte(t), &inner) == nil {
			collectStrings(inner, out)
		}
	case []any:
		for _, e := range v {
			collectStrings(e, out)
		}
	case map[string]any:
		for _, e := range v {
			collectStrings(e, out)
		}
	}
}
