package otlp_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/loupe-dev/loupe/backend/otlp"
	"github.com/loupe-dev/loupe/backend/otlp/otlptest"
)

// A push sends each run's trace, in protobuf or JSON, and what the
// collector decodes is what the file holds.
func TestPushSendsEveryRunToTheCollector(t *testing.T) {
	evs := loadRecordings(t)["compaction_button"]
	ts, err := otlp.Build(session("compaction_button"), evs, otlp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, proto := range []string{otlp.ProtoBuf, otlp.JSON} {
		c := otlptest.New(t)
		// A base URL gets the traces path, as OTLP exporters add it.
		if err := otlp.Push(context.Background(), http.DefaultClient, c.URL, proto, ts); err != nil {
			t.Fatalf("%s: %v", proto, err)
		}
		got := c.Traces()
		if len(got) != len(ts) || len(ts) != 2 {
			t.Fatalf("%s: the collector got %d requests for %d runs", proto, len(got), len(ts))
		}
		var m ptrace.JSONMarshaler
		for i := range ts {
			a, _ := m.MarshalTraces(ts[i])
			b, _ := m.MarshalTraces(got[i])
			if string(a) != string(b) {
				t.Errorf("%s: run %d arrived changed", proto, i+1)
			}
		}
		want := map[string]string{otlp.ProtoBuf: "application/x-protobuf", otlp.JSON: "application/json"}[proto]
		if types := c.ContentTypes(); types[0] != want {
			t.Errorf("%s: sent as %s", proto, types[0])
		}
	}
}

// Nothing listening: a PushError that says the collector is not
// reachable, with its address.
func TestPushToADownCollectorSaysSo(t *testing.T) {
	down := otlptest.Down(t)
	ts, _ := otlp.Build(session("single_call"), loadRecordings(t)["single_call"], otlp.Options{})
	err := otlp.Push(context.Background(), http.DefaultClient, down, "", ts)
	var pe *otlp.PushError
	if !errors.As(err, &pe) || !pe.Down {
		t.Fatalf("push to a closed port: %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, down+"/v1/traces is not reachable") || !strings.Contains(msg, "nothing was sent") {
		t.Errorf("message %q", msg)
	}
}

// A collector that refuses (wrong path, overloaded) is told apart from
// one that is down, with what it said.
func TestPushToACollectorThatRefusesSaysWhat(t *testing.T) {
	refusing := otlptest.Refusing(t, http.StatusServiceUnavailable, "queue is full")
	ts, _ := otlp.Build(session("single_call"), loadRecordings(t)["single_call"], otlp.Options{})
	err := otlp.Push(context.Background(), http.DefaultClient, refusing+"/v1/traces", otlp.JSON, ts)
	var pe *otlp.PushError
	if !errors.As(err, &pe) || pe.Down || pe.Status != http.StatusServiceUnavailable {
		t.Fatalf("push: %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "refused the traces: Service Unavailable: queue is full (HTTP 503)") {
		t.Errorf("message %q", msg)
	}
}

func TestEndpointsThatAreNotURLsAreRefused(t *testing.T) {
	for in, want := range map[string]string{
		"http://localhost:4318":             "http://localhost:4318/v1/traces",
		"http://localhost:4318/":            "http://localhost:4318/v1/traces",
		"https://otel.lan/custom/v1/traces": "https://otel.lan/custom/v1/traces",
	} {
		if got, err := otlp.Endpoint(in); err != nil || got != want {
			t.Errorf("Endpoint(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"localhost:4318", "", "ftp://x", "http://"} {
		if _, err := otlp.Endpoint(in); err == nil || !strings.Contains(err.Error(), "is not an http:// or https:// URL") {
			t.Errorf("Endpoint(%q): %v", in, err)
		}
	}
}
