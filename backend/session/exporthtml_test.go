package session_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/backend/viewer"
)

// hostile is text a model or a command could write that would run as
// script if any part of the page took it for markup.
const hostile = "</script><script>window.__pwned=1</script><!-- <img src=x onerror=\"window.__pwned=2\"> " +
	"[link](javascript:window.__pwned=3) <svg onload=window.__pwned=4> \u2028\u2029 </SCRIPT >"

// exportHTML is the shared replay of a session, failing the test with what
// to do when the binary was built without the viewer's page.
func exportHTML(t *testing.T, h *harness, id string) string {
	t.Helper()
	var b bytes.Buffer
	err := session.Export(context.Background(), h.st, id, "html", &b)
	if errors.Is(err, viewer.ErrNotBuilt) {
		t.Fatalf("the shared replay's page is not built (run `npm run build` in frontend/ first): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// dataOf is the text of the page's data element id.
func dataOf(t *testing.T, page, id string) string {
	t.Helper()
	start := `<script type="application/json" id="` + id + `">`
	i := strings.Index(page, start)
	if i < 0 {
		t.Fatalf("the page has no %s element", id)
	}
	rest := page[i+len(start):]
	return rest[:strings.Index(rest, "</script>")]
}

// A session whose answers, command, file name and output are hostile
// markup: the shared replay holds the JSON export exactly (escaped so that
// nothing can end its element), every request's body exactly as Raw shows
// it, and no markup of the session at all: the page has its own three
// script elements and nothing that could open another.
func TestSharedReplayHoldsTheSessionAndEveryBody(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	ctx := context.Background()
	h.srv.Script(
		calls(call("call_1", "write_file", `{"path":"<img src=x onerror=alert(1)>.txt","content":`+jsonString(hostile)+`}`)),
		calls(call("call_2", "run_command", `{"command":`+jsonString("printf '%s' '"+strings.ReplaceAll(hostile, "'", "")+"'")+`}`)),
		ollamatest.Text("Done: "+hostile),
	)
	h.run("Write " + hostile)
	page := exportHTML(t, h, h.id)

	var js bytes.Buffer
	if err := session.Export(ctx, h.st, h.id, "json", &js); err != nil {
		t.Fatal(err)
	}
	embedded := dataOf(t, page, viewer.SessionID)
	if embedded != string(viewer.EscapeJSON(js.Bytes())) {
		t.Fatal("the page does not hold the session's JSON export")
	}
	var a, b any
	if err := json.Unmarshal([]byte(embedded), &a); err != nil {
		t.Fatalf("the embedded session is not JSON: %v", err)
	}
	if err := json.Unmarshal(js.Bytes(), &b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the embedded session reads back as another value than the JSON export")
	}
	if !strings.Contains(js.String(), "onerror") {
		t.Fatal("the session does not hold the hostile text the test is about")
	}

	low := strings.ToLower(page)
	if n := strings.Count(low, "</script"); n != 3 {
		t.Fatalf("the page has %d closing script tags, want 3 (its script and two data elements)", n)
	}
	for _, m := range []string{"<script>window", "<img src=x", "<svg onload", "</script >"} {
		if strings.Contains(low, m) {
			t.Fatalf("the page holds the session's markup %q as markup", m)
		}
	}
	if strings.Contains(page, "<!--") || strings.ContainsAny(page, "\u2028\u2029") {
		t.Fatal("the page holds a comment opener or a line separator")
	}
	if !strings.Contains(page, `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-`) ||
		!strings.Contains(page, "connect-src 'none'") || strings.Contains(page, "'unsafe-eval'") {
		t.Fatal("the page's policy does not forbid every fetch and name its script")
	}
	if !strings.Contains(page, "<title>Write &lt;/script&gt;") {
		t.Fatal("the page's title is not the session's, escaped")
	}

	var raw session.RawBodies
	if err := json.Unmarshal([]byte(dataOf(t, page, viewer.RawID)), &raw); err != nil {
		t.Fatal(err)
	}
	evs := h.events()
	requests := 0
	var list []int
	for _, e := range evs {
		if e.Kind != trace.KindModelRequest {
			continue
		}
		body := raw.Bodies[requests]
		requests++
		want, err := session.RawRequest(ctx, h.st, h.id, e.Seq)
		if err != nil {
			t.Fatal(err)
		}
		if body.Seq != e.Seq || body.Error != "" {
			t.Fatalf("body %d: %+v", e.Seq, body)
		}
		list = append(list[:body.Keep], body.Add...)
		var got strings.Builder
		for _, n := range list {
			got.WriteString(raw.Pieces[n])
		}
		if got.String() != want {
			t.Fatalf("request %d: the embedded body differs from Raw's:\n%s\n%s", e.Seq, got.String(), want)
		}
		if requests > 1 && body.Keep < 3 {
			t.Fatalf("request %d keeps %d pieces of the one before: bodies are not shared", e.Seq, body.Keep)
		}
	}
	if requests != len(raw.Bodies) || requests < 3 {
		t.Fatalf("%d requests, %d bodies", requests, len(raw.Bodies))
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
