package realjaeger_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/loupe-dev/loupe/backend/cli"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/testkit/realjaeger"
)

// jaegerTrace is a trace as Jaeger's query API (GET /api/traces/ID) gives it.
type jaegerTrace struct {
	TraceID string `json:"traceID"`
	Spans   []struct {
		SpanID        string `json:"spanID"`
		OperationName string `json:"operationName"`
		References    []struct {
			RefType string `json:"refType"`
			SpanID  string `json:"spanID"`
		} `json:"references"`
		Tags []struct {
			Key   string `json:"key"`
			Value any    `json:"value"`
		} `json:"tags"`
		Logs []struct {
			Fields []struct {
				Key   string `json:"key"`
				Value any    `json:"value"`
			} `json:"fields"`
		} `json:"logs"`
		ProcessID string `json:"processID"`
	} `json:"spans"`
	Processes map[string]struct {
		ServiceName string `json:"serviceName"`
	} `json:"processes"`
}

// getTrace reads a trace back from Jaeger, waiting a little for it to be
// stored.
func getTrace(t *testing.T, j *realjaeger.Jaeger, id string) jaegerTrace {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(j.Query + "/api/traces/" + id)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Data []jaegerTrace `json:"data"`
		}
		err = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if err == nil && resp.StatusCode == http.StatusOK && len(body.Data) == 1 {
			return body.Data[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("Jaeger has no trace %s: HTTP %d, %v", id, resp.StatusCode, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// A session recorded by loupe run (a read that runs, a write that is
// denied, an answer), sent by loupe export --otlp-endpoint to a real
// Jaeger, reads back from Jaeger's query API as the export wrote it: each
// span with its name, its parent, its attributes and its events, under
// the service loupe. Sent a second time, it is still one trace with the
// same spans, not two copies.
func TestJaegerStoresTheExportedSession(t *testing.T) {
	realjaeger.Require(t)
	j := realjaeger.Start(t)

	srv := ollamatest.New(t)
	srv.AddModel(ollamatest.ModelSpec{Name: "scripted", ContextLength: 4096})
	srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{ID: "c1", Name: "read_file", Args: `{"path":"README.md"}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{ID: "c2", Name: "write_file", Args: `{"path":"new.txt","content":"x"}`}}},
		ollamatest.Text("I read it; I may not write."),
	)
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "README.md"), []byte("hello\n"), 0o644)
	db := filepath.Join(t.TempDir(), "loupe.db")
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := cli.Main(args, &out, &errb)
		return code, out.String(), errb.String()
	}
	code, _, stderr := run("run", "--workspace", ws, "--model", "scripted", "--host", srv.URL(), "--db", db, "Read the README, then write new.txt")
	if code != cli.ExitAnswered {
		t.Fatalf("run: exit %d, %s", code, stderr)
	}
	id := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(stderr), "session"))

	code, file, stderr := run("export", id, "--db", db, "--format", "otlp")
	if code != 0 {
		t.Fatalf("export: exit %d, %s", code, stderr)
	}
	td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces([]byte(strings.TrimSpace(file)))
	if err != nil {
		t.Fatal(err)
	}
	rs := td.ResourceSpans().At(0)
	spans := rs.ScopeSpans().At(0).Spans()
	if spans.Len() != 6 {
		t.Fatalf("the export has %d spans, want 6 (the run, 3 model requests, 2 tool calls)", spans.Len())
	}
	traceID := spans.At(0).TraceID().String()

	for _, proto := range []string{"http/protobuf", "http/json"} {
		code, _, stderr = run("export", id, "--db", db, "--otlp-endpoint", j.OTLP, "--otlp-protocol", proto)
		if want := fmt.Sprintf("loupe: sent 6 spans of session %s to %s/v1/traces\n", id, j.OTLP); code != 0 || stderr != want {
			t.Fatalf("%s push: exit %d, stderr %q; want 0, %q", proto, code, stderr, want)
		}
		got := getTrace(t, j, traceID)
		checkTrace(t, proto, got, traceID, spans)
	}
}

// checkTrace compares the trace Jaeger gives back with the spans sent.
func checkTrace(t *testing.T, proto string, got jaegerTrace, traceID string, sent ptrace.SpanSlice) {
	t.Helper()
	if got.TraceID != traceID {
		t.Errorf("%s: Jaeger's trace is %s, want %s", proto, got.TraceID, traceID)
	}
	// Jaeger stores a span sent twice once (the same ids).
	if len(got.Spans) != sent.Len() {
		t.Fatalf("%s: Jaeger has %d spans, want %d", proto, len(got.Spans), sent.Len())
	}
	byID := map[string]int{}
	for i, sp := range got.Spans {
		byID[sp.SpanID] = i
		if p := got.Processes[sp.ProcessID]; p.ServiceName != "loupe" {
			t.Errorf("%s: span %s is of service %q, want loupe", proto, sp.OperationName, p.ServiceName)
		}
	}
	names := map[string]bool{}
	for i := 0; i < sent.Len(); i++ {
		s := sent.At(i)
		names[s.Name()] = true
		k, ok := byID[s.SpanID().String()]
		if !ok {
			t.Errorf("%s: Jaeger has no span %s (%s)", proto, s.SpanID(), s.Name())
			continue
		}
		g := got.Spans[k]
		if g.OperationName != s.Name() {
			t.Errorf("%s: span %s is named %q in Jaeger, want %q", proto, s.SpanID(), g.OperationName, s.Name())
		}
		var parent string
		for _, r := range g.References {
			if r.RefType == "CHILD_OF" {
				parent = r.SpanID
			}
		}
		if want := s.ParentSpanID(); !want.IsEmpty() && parent != want.String() {
			t.Errorf("%s: %s's parent is %q in Jaeger, want %s", proto, s.Name(), parent, want)
		}
		tags := map[string]any{}
		for _, tg := range g.Tags {
			tags[tg.Key] = tg.Value
		}
		s.Attributes().Range(func(k string, v pcommon.Value) bool {
			gv, ok := tags[k]
			switch {
			case !ok:
				t.Errorf("%s: %s has no tag %s in Jaeger", proto, s.Name(), k)
			case v.Type() == pcommon.ValueTypeStr && gv != v.Str():
				t.Errorf("%s: %s's %s is %q in Jaeger, want %q", proto, s.Name(), k, gv, v.Str())
			case v.Type() == pcommon.ValueTypeInt && gv != float64(v.Int()):
				t.Errorf("%s: %s's %s is %v in Jaeger, want %d", proto, s.Name(), k, gv, v.Int())
			}
			return true
		})
		var events []string
		for _, l := range g.Logs {
			for _, f := range l.Fields {
				if f.Key == "event" {
					events = append(events, fmt.Sprint(f.Value))
				}
			}
		}
		var want []string
		for e := 0; e < s.Events().Len(); e++ {
			want = append(want, s.Events().At(e).Name())
		}
		if strings.Join(events, " ") != strings.Join(want, " ") {
			t.Errorf("%s: %s's events in Jaeger are %q, want %q", proto, s.Name(), events, want)
		}
	}
	for _, n := range []string{"invoke_agent loupe", "chat scripted", "execute_tool read_file", "execute_tool write_file"} {
		if !names[n] {
			t.Errorf("%s: no span %q was sent (%v)", proto, n, names)
		}
	}
}
