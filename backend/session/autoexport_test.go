package session_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/otlp"
	"github.com/loupe-dev/loupe/backend/otlp/otlptest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/trace"
)

// spansOf are the names of td's spans, sorted, and the run its
// invoke_agent span says.
func spansOf(t *testing.T, td ptrace.Traces) ([]string, int64) {
	t.Helper()
	var names []string
	run := int64(-1)
	for i := 0; i < td.ResourceSpans().Len(); i++ {
		ss := td.ResourceSpans().At(i).ScopeSpans()
		for j := 0; j < ss.Len(); j++ {
			spans := ss.At(j).Spans()
			for k := 0; k < spans.Len(); k++ {
				sp := spans.At(k)
				names = append(names, sp.Name())
				if v, ok := sp.Attributes().Get("loupe.run"); ok && sp.Name() == "invoke_agent loupe" {
					run = v.Int()
				}
			}
		}
	}
	slices.Sort(names)
	return names, run
}

func exportTo(endpoint string, noContent bool) func(*settings.Settings) {
	return func(s *settings.Settings) { s.OTLPEndpoint, s.OTLPNoContent = endpoint, noContent }
}

func noticesOf(evs []trace.Event, code string) []trace.Notice {
	var out []trace.Notice
	for _, e := range evs {
		if n, err := trace.Decode[trace.Notice](e); err == nil && e.Kind == trace.KindNotice && n.Code == code {
			out = append(out, n)
		}
	}
	return out
}

// With the setting on, each finished run goes to the collector as its own
// trace, that run only, with its spans and what was said in them; the run
// ends without waiting for the collector. With "without content" on, the
// next run's spans come without what was said.
func TestFinishedRunIsSentToTheCollector(t *testing.T) {
	c := otlptest.New(t)
	c.Hold()
	h := newHarness(t, permission.ModeAuto, exportTo(c.URL, false))
	h.srv.Script(
		calls(ollamatest.Call{ID: "c1", Name: "read_file", Args: `{"path":"README.md"}`}),
		ollamatest.Text("It says hello from the workspace."),
	)
	if end := h.run("What does the README say?"); end.Reason != trace.EndAnswered {
		t.Fatalf("run 1 ended %q", end.Reason)
	}
	// The collector holds the request: the run has ended all the same.
	if n := len(c.Traces()); n != 0 {
		t.Fatalf("the collector took %d traces while it was held", n)
	}
	c.Release()
	h.m.WaitExports()
	got := c.Traces()
	if len(got) != 1 {
		t.Fatalf("the collector got %d traces for one run", len(got))
	}
	names, run := spansOf(t, got[0])
	if want := []string{"chat scripted", "chat scripted", "execute_tool read_file", "invoke_agent loupe"}; !slices.Equal(names, want) || run != 1 {
		t.Fatalf("run 1 arrived as %q of run %d, want %q of run 1", names, run, want)
	}
	body, _ := (&ptrace.JSONMarshaler{}).MarshalTraces(got[0])
	for _, s := range []string{"What does the README say?", "hello from the workspace", h.id} {
		if !strings.Contains(string(body), s) {
			t.Errorf("the trace of run 1 does not hold %q", s)
		}
	}

	saveSettings(t, h.st, permission.ModeAuto, exportTo(c.URL, true))
	h.srv.Script(ollamatest.Text("Nothing more to say."))
	h.run("Anything else secret?")
	h.m.WaitExports()
	got = c.Traces()
	if len(got) != 2 {
		t.Fatalf("after run 2 the collector has %d traces, want 2", len(got))
	}
	names, run = spansOf(t, got[1])
	if want := []string{"chat scripted", "invoke_agent loupe"}; !slices.Equal(names, want) || run != 2 {
		t.Fatalf("run 2 arrived as %q of run %d, want only run 2's %q", names, run, want)
	}
	body, _ = (&ptrace.JSONMarshaler{}).MarshalTraces(got[1])
	for _, s := range []string{"Anything else secret?", "Nothing more to say", "gen_ai.input.messages"} {
		if strings.Contains(string(body), s) {
			t.Errorf("without content, run 2's trace still holds %q", s)
		}
	}
	if n := noticesOf(h.events(), session.CodeExportFailed); len(n) != 0 {
		t.Errorf("notices of a collector that took every run: %v", n)
	}
}

// A collector that is down, or that refuses, gives one notice on the
// session saying so, live too; the run ended as it ended, and its log is
// whole.
func TestCollectorDownOrRefusingGivesANotice(t *testing.T) {
	down := otlptest.Down(t)
	refusing := otlptest.Refusing(t, http.StatusServiceUnavailable, "queue is full")
	for _, c := range []struct{ endpoint, says string }{
		{down, "the OTLP collector at " + down + "/v1/traces is not reachable"},
		{refusing, "refused the traces: Service Unavailable: queue is full (HTTP 503)"},
	} {
		h := newHarness(t, permission.ModeAuto, exportTo(c.endpoint, false))
		h.srv.Script(ollamatest.Text("Done."))
		end := h.run("Say done.")
		h.m.WaitExports()
		if end.Reason != trace.EndAnswered || end.FinalText != "Done." {
			t.Fatalf("%s: the run ended %+v", c.endpoint, end)
		}
		evs := h.events()
		got := noticesOf(evs, session.CodeExportFailed)
		if len(got) != 1 || !strings.Contains(got[0].Message, c.says) || !strings.Contains(got[0].Message, "Nothing is lost") {
			t.Fatalf("%s: notices %+v, want one saying %q", c.endpoint, got, c.says)
		}
		last := evs[len(evs)-1]
		if last.Kind != trace.KindNotice || last.Run != 1 || evs[len(evs)-2].Kind != trace.KindRunEnd {
			t.Errorf("%s: the notice is not after run 1's end: %+v", c.endpoint, last)
		}
		s, err := h.st.GetSession(context.Background(), h.id)
		if err != nil || s.LastReason != trace.EndAnswered || s.OpenRun != 0 {
			t.Errorf("%s: the session reads %q, open run %d (%v)", c.endpoint, s.LastReason, s.OpenRun, err)
		}
		// Sent again, the run is the trace that was not taken: the notice
		// is about its delivery, not part of it.
		again := otlptest.New(t)
		if _, err := session.PushOTLP(context.Background(), h.st, h.id, otlp.Options{Run: 1}, again.URL, "", http.DefaultClient); err != nil {
			t.Fatal(err)
		}
		if body, _ := (&ptrace.JSONMarshaler{}).MarshalTraces(again.Traces()[0]); strings.Contains(string(body), session.CodeExportFailed) {
			t.Errorf("%s: the trace sent again holds the notice of its failed send", c.endpoint)
		}
		h.sink.mu.Lock()
		live := noticesOf(h.sink.events, session.CodeExportFailed)
		h.sink.mu.Unlock()
		if len(live) != 1 {
			t.Errorf("%s: the window was told %d times", c.endpoint, len(live))
		}
	}
}

// With the setting empty, nothing is sent.
func TestNoEndpointSendsNothing(t *testing.T) {
	c := otlptest.New(t)
	h := newHarness(t, permission.ModeAuto, nil)
	h.srv.Script(ollamatest.Text("Done."))
	h.run("Say done.")
	h.m.WaitExports()
	if n := len(c.Traces()); n != 0 {
		t.Fatalf("the collector got %d traces with the setting off", n)
	}
	if n := noticesOf(h.events(), session.CodeExportFailed); len(n) != 0 {
		t.Errorf("notices with the setting off: %v", n)
	}
}

// A run that recovery closes (Loupe exited while it went, and was opened
// again) is a finished run too: with the setting on, it goes to the
// collector as its log now holds it, its call ended as interrupted and the
// run as interrupted. Recovered again, it is not sent again.
func TestRunClosedByRecoveryIsSentToTheCollector(t *testing.T) {
	ctx := context.Background()
	c := otlptest.New(t)
	h := newHarness(t, permission.ModeAuto, exportTo(c.URL, false))
	h.crashedDuringCall("run_command", `{"command":"sleep 100"}`)
	// The app opened again: a new manager on the same database.
	m2 := session.NewManager(h.st, ollama.New(h.srv.URL(), nil), permission.NewBroker(), nil)
	if err := m2.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	m2.WaitExports()
	got := c.Traces()
	if len(got) != 1 {
		t.Fatalf("the collector got %d traces for the run recovery closed, want 1", len(got))
	}
	names, run := spansOf(t, got[0])
	if want := []string{"chat scripted", "execute_tool run_command", "invoke_agent loupe"}; !slices.Equal(names, want) || run != 1 {
		t.Fatalf("the closed run arrived as %q of run %d, want %q of run 1", names, run, want)
	}
	body, _ := (&ptrace.JSONMarshaler{}).MarshalTraces(got[0])
	for _, s := range []string{`"key":"loupe.run.end_reason","value":{"stringValue":"` + trace.EndInterrupted + `"}`, "interrupted (app exited)"} {
		if !strings.Contains(string(body), s) {
			t.Errorf("the trace of the closed run does not hold %s:\n%s", s, body)
		}
	}
	if err := m2.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	m2.WaitExports()
	if n := len(c.Traces()); n != 1 {
		t.Errorf("recovered again, the collector has %d traces, want 1", n)
	}
	if n := noticesOf(h.events(), session.CodeExportFailed); len(n) != 0 {
		t.Errorf("notices of a collector that took the run: %v", n)
	}
}
