package cli_test

import (
	"bufio"
	"net/http"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/loupe-dev/loupe/backend/cli"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/otlp/otlptest"
)

// otlpSession runs a session with a tool call and an answer and returns
// its id: one run, two model requests, one tool call.
func otlpSession(t *testing.T, e env) string {
	t.Helper()
	e.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{ID: "c1", Name: "read_file", Args: `{"path":"README.md"}`}}},
		ollamatest.Text("It says hello, in secret words."),
	)
	code, _, stderr := e.run("run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "--auto", "What does the README say?")
	if code != cli.ExitAnswered {
		t.Fatalf("run: exit %d, stderr %s", code, stderr)
	}
	return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(stderr), "session"))
}

// spanNames are the names of every span of td, in order.
func spanNames(td ptrace.Traces) []string {
	var names []string
	for i := 0; i < td.ResourceSpans().Len(); i++ {
		ss := td.ResourceSpans().At(i).ScopeSpans()
		for j := 0; j < ss.Len(); j++ {
			spans := ss.At(j).Spans()
			for k := 0; k < spans.Len(); k++ {
				names = append(names, spans.At(k).Name())
			}
		}
	}
	return names
}

// parseJSONL reads OTLP JSON Lines: every line is one TracesData.
func parseJSONL(t *testing.T, out string) []ptrace.Traces {
	t.Helper()
	var ts []ptrace.Traces
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<24)
	var u ptrace.JSONUnmarshaler
	for sc.Scan() {
		td, err := u.UnmarshalTraces(sc.Bytes())
		if err != nil {
			t.Fatalf("a line is not OTLP JSON: %v\n%s", err, sc.Text())
		}
		ts = append(ts, td)
	}
	if len(ts) == 0 {
		t.Fatalf("no OTLP line in:\n%s", out)
	}
	return ts
}

// The OTLP export is a trace per run on standard output, one JSON line
// each, that an OTLP reader parses: the run, its two model requests and
// the tool call under the first, named as the GenAI conventions name
// them, with what was said in them. The same export twice is the same
// bytes (ids come from the session).
func TestExportOTLPWritesATracePerRunAsJSONLines(t *testing.T) {
	e := setup(t)
	id := otlpSession(t, e)
	code, out, stderr := e.run("export", id, "--db", e.db, "--format", "otlp")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	ts := parseJSONL(t, out)
	if len(ts) != 1 {
		t.Fatalf("%d traces for one run", len(ts))
	}
	names := spanNames(ts[0])
	slices.Sort(names)
	want := []string{"chat scripted", "chat scripted", "execute_tool read_file", "invoke_agent loupe"}
	if !slices.Equal(names, want) {
		t.Fatalf("spans %q, want %q", names, want)
	}
	for _, s := range []string{"What does the README say?", "in secret words", `README.md`, `"gen_ai.conversation.id"`, id} {
		if !strings.Contains(out, s) {
			t.Errorf("the export does not hold %q:\n%s", s, out)
		}
	}
	if _, again, _ := e.run("export", id, "--db", e.db, "--format", "otlp"); again != out {
		t.Errorf("a second export differs from the first")
	}
}

// --no-content keeps the spans and leaves out what was said: the prompt,
// the answer, the tool's arguments and its result.
func TestExportOTLPNoContentDropsWhatWasSaid(t *testing.T) {
	e := setup(t)
	id := otlpSession(t, e)
	_, full, _ := e.run("export", id, "--db", e.db, "--format", "otlp")
	code, out, stderr := e.run("export", id, "--db", e.db, "--format", "otlp", "--no-content")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	ts := parseJSONL(t, out)
	if a, b := spanNames(ts[0]), spanNames(parseJSONL(t, full)[0]); !slices.Equal(a, b) {
		t.Fatalf("--no-content spans %q, want those of the full export %q", a, b)
	}
	for _, s := range []string{"What does the README say?", "in secret words", "hello\\n", "gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result"} {
		if strings.Contains(out, s) {
			t.Errorf("--no-content still holds %q", s)
		}
	}
	if !strings.Contains(out, "gen_ai.usage.output_tokens") || !strings.Contains(out, "gen_ai.tool.name") {
		t.Errorf("--no-content left out what is not content:\n%s", out)
	}
}

// --otlp-endpoint sends the traces to a collector, in protobuf unless
// --otlp-protocol says http/json, writes nothing on standard output and
// says on standard error how many spans went where. What the collector
// decodes is what --format otlp writes.
func TestExportOTLPEndpointSendsToTheCollector(t *testing.T) {
	e := setup(t)
	id := otlpSession(t, e)
	_, file, _ := e.run("export", id, "--db", e.db, "--format", "otlp")
	for _, c := range []struct{ proto, ctype string }{{"", "application/x-protobuf"}, {"http/protobuf", "application/x-protobuf"}, {"http/json", "application/json"}} {
		rc := otlptest.New(t)
		args := []string{"export", id, "--db", e.db, "--otlp-endpoint", rc.URL}
		if c.proto != "" {
			args = append(args, "--otlp-protocol", c.proto)
		}
		code, out, stderr := e.run(args...)
		rc.Close()
		if code != 0 || out != "" {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q", args, code, out, stderr)
		}
		if want := "loupe: sent 4 spans of session " + id + " to " + rc.URL + "/v1/traces\n"; stderr != want {
			t.Errorf("%v: stderr %q, want %q", args, stderr, want)
		}
		got, types := rc.Traces(), rc.ContentTypes()
		if len(got) != 1 || types[0] != c.ctype {
			t.Fatalf("%v: the collector got %d requests as %v, want 1 as %s", args, len(got), types, c.ctype)
		}
		var m ptrace.JSONMarshaler
		b, _ := m.MarshalTraces(got[0])
		if string(b)+"\n" != file {
			t.Errorf("%v: the collector got\n%s\nnot what --format otlp writes\n%s", args, b, file)
		}
	}
	// --no-content reaches the collector too.
	rc := otlptest.New(t)
	if code, _, stderr := e.run("export", id, "--db", e.db, "--otlp-endpoint", rc.URL+"/v1/traces", "--no-content"); code != 0 || len(rc.Traces()) != 1 {
		t.Fatalf("--no-content push: exit %d, %d requests, stderr %q", code, len(rc.Traces()), stderr)
	}
	var m ptrace.JSONMarshaler
	if b, _ := m.MarshalTraces(rc.Traces()[0]); strings.Contains(string(b), "What does the README say?") {
		t.Errorf("--no-content sent the prompt:\n%s", b)
	}
}

// A collector that is down, or that refuses the traces, is said plainly,
// with where, and loupe export exits 3 with nothing on standard output.
func TestExportOTLPEndpointDownOrRefusingFails(t *testing.T) {
	e := setup(t)
	id := otlpSession(t, e)
	down := otlptest.Down(t)
	code, out, stderr := e.run("export", id, "--db", e.db, "--otlp-endpoint", down)
	if code != cli.ExitFailed || out != "" {
		t.Fatalf("down collector: exit %d, stdout %q; want %d", code, out, cli.ExitFailed)
	}
	if want := "loupe: the OTLP collector at " + down + "/v1/traces is not reachable ("; !strings.HasPrefix(stderr, want) || !strings.HasSuffix(stderr, "); nothing was sent\n") {
		t.Errorf("down collector: stderr %q, want it to start %q", stderr, want)
	}

	refusing := otlptest.Refusing(t, http.StatusTooManyRequests, "tenant over quota")
	code, out, stderr = e.run("export", id, "--db", e.db, "--otlp-endpoint", refusing)
	if code != cli.ExitFailed || out != "" || !strings.Contains(stderr, "refused the traces") || !strings.Contains(stderr, "tenant over quota") || !strings.Contains(stderr, "HTTP 429") {
		t.Errorf("refusing collector: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
}

// A session that is not there is not sent anywhere.
func TestExportOTLPEndpointOfAMissingSessionSendsNothing(t *testing.T) {
	e := setup(t)
	otlpSession(t, e)
	rc := otlptest.New(t)
	code, out, stderr := e.run("export", "nope", "--db", e.db, "--otlp-endpoint", rc.URL)
	if code != cli.ExitFailed || out != "" || len(rc.Traces()) != 0 || !strings.HasPrefix(stderr, "loupe: ") {
		t.Errorf("exit %d, stdout %q, stderr %q, %d requests", code, out, stderr, len(rc.Traces()))
	}
}
