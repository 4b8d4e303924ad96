package cli_test

import (
	"context"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/loupe-dev/loupe/backend/cli"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/otlp/otlptest"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
)

func saveOTLP(t *testing.T, db, endpoint string) {
	t.Helper()
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := settings.Defaults()
	s.OTLPEndpoint = endpoint
	if err := settings.Save(context.Background(), st, s); err != nil {
		t.Fatal(err)
	}
}

// loupe run sends its finished run to the collector Settings names before
// it exits; a collector that is down is said on the run, and the run's
// exit code is the same.
func TestRunSendsItsTraceToTheSettingsCollector(t *testing.T) {
	e := setup(t)
	rc := otlptest.New(t)
	saveOTLP(t, e.db, rc.URL)
	id := otlpSession(t, e)
	got := rc.Traces()
	if len(got) != 1 {
		t.Fatalf("the collector got %d traces when loupe run exited, want 1", len(got))
	}
	names := spanNames(got[0])
	slices.Sort(names)
	if want := []string{"chat scripted", "chat scripted", "execute_tool read_file", "invoke_agent loupe"}; !slices.Equal(names, want) {
		t.Fatalf("spans %q, want %q", names, want)
	}
	if id == "" {
		t.Fatal("no session id")
	}

	down := otlptest.Down(t)
	saveOTLP(t, e.db, down)
	e.srv.Script(ollamatest.Text("Hi."))
	code, out, stderr := e.run("run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "hi")
	if code != cli.ExitAnswered {
		t.Fatalf("with the collector down: exit %d, stderr %s", code, stderr)
	}
	if all := out + stderr; !strings.Contains(all, "was not sent") || !strings.Contains(all, down+"/v1/traces is not reachable") {
		t.Errorf("loupe run did not say the trace was not sent:\nstdout %s\nstderr %s", out, stderr)
	}
}

// The run loupe run closes because its process was killed is sent to the
// Settings collector too, as interrupted, before loupe run exits: the
// collector has it and the new run's trace.
func TestRunSendsTheRunItClosedToTheSettingsCollector(t *testing.T) {
	e := setup(t)
	e.srv.Script(ollamatest.Reply{Chunks: slices50("word "), Delay: 20 * time.Millisecond})
	p := startLoupe(t, "run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "--json", "work slowly")
	p.waitFor(t, trace.KindModelRequest)
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.wait(t, 5*time.Second)
	killed := onlySessionLog(t, e.db)[0].SessionID

	rc := otlptest.New(t)
	saveOTLP(t, e.db, rc.URL)
	e.srv.Script(ollamatest.Text("Hello."))
	if code, _, stderr := e.run("run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "hi"); code != cli.ExitAnswered {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var reasons []string
	for _, td := range rc.Traces() {
		body, _ := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
		if strings.Contains(string(body), killed) {
			reasons = append(reasons, "killed:"+endReason(td))
		} else {
			reasons = append(reasons, "new:"+endReason(td))
		}
	}
	slices.Sort(reasons)
	if want := []string{"killed:" + trace.EndInterrupted, "new:" + trace.EndAnswered}; !slices.Equal(reasons, want) {
		t.Fatalf("the collector got %q, want %q", reasons, want)
	}
}

// endReason is what the invoke_agent span of td says of how its run ended.
func endReason(td ptrace.Traces) string {
	for i := 0; i < td.ResourceSpans().Len(); i++ {
		ss := td.ResourceSpans().At(i).ScopeSpans()
		for j := 0; j < ss.Len(); j++ {
			for k := 0; k < ss.At(j).Spans().Len(); k++ {
				if v, ok := ss.At(j).Spans().At(k).Attributes().Get("loupe.run.end_reason"); ok {
					return v.Str()
				}
			}
		}
	}
	return ""
}
