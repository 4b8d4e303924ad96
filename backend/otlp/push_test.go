package otlp_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/loupe-dev/loupe/backend/otlp"
)

// collector is an OTLP/HTTP receiver: it keeps what was posted to
// /v1/traces, decoded as the content type says.
type collector struct {
	mu    sync.Mutex
	got   []ptrace.Traces
	types []string
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" {
		http.Error(w, "not here", http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var td ptrace.Traces
	var err error
	switch ct := r.Header.Get("Content-Type"); ct {
	case "application/x-protobuf":
		var u ptrace.ProtoUnmarshaler
		td, err = u.UnmarshalTraces(body)
	case "application/json":
		var u ptrace.JSONUnmarshaler
		td, err = u.UnmarshalTraces(body)
	default:
		http.Error(w, "content type "+ct, http.StatusUnsupportedMediaType)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	c.got = append(c.got, td)
	c.types = append(c.types, r.Header.Get("Content-Type"))
	c.mu.Unlock()
	w.Header().Set("Content-Type", r.Header.Get("Content-Type"))
	w.WriteHeader(http.StatusOK)
}

// A push sends each run's trace, in protobuf or JSON, and what the
// collector decodes is what the file holds.
func TestPushSendsEveryRunToTheCollector(t *testing.T) {
	evs := loadRecordings(t)["compaction_button"]
	ts, err := otlp.Build(session("compaction_button"), evs, otlp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, proto := range []string{otlp.ProtoBuf, otlp.JSON} {
		c := &collector{}
		srv := httptest.NewServer(c)
		// A base URL gets the traces path, as OTLP exporters add it.
		if err := otlp.Push(context.Background(), srv.Client(), srv.URL, proto, ts); err != nil {
			t.Fatalf("%s: %v", proto, err)
		}
		srv.Close()
		if len(c.got) != len(ts) || len(ts) != 2 {
			t.Fatalf("%s: the collector got %d requests for %d runs", proto, len(c.got), len(ts))
		}
		var m ptrace.JSONMarshaler
		for i := range ts {
			a, _ := m.MarshalTraces(ts[i])
			b, _ := m.MarshalTraces(c.got[i])
			if string(a) != string(b) {
				t.Errorf("%s: run %d arrived changed", proto, i+1)
			}
		}
		want := map[string]string{otlp.ProtoBuf: "application/x-protobuf", otlp.JSON: "application/json"}[proto]
		if c.types[0] != want {
			t.Errorf("%s: sent as %s", proto, c.types[0])
		}
	}
}

// Nothing listening: a PushError that says the collector is not
// reachable, with its address.
func TestPushToADownCollectorSaysSo(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	ts, _ := otlp.Build(session("single_call"), loadRecordings(t)["single_call"], otlp.Options{})
	err = otlp.Push(context.Background(), http.DefaultClient, "http://"+addr, "", ts)
	var pe *otlp.PushError
	if !errors.As(err, &pe) || !pe.Down {
		t.Fatalf("push to a closed port: %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "http://"+addr+"/v1/traces is not reachable") || !strings.Contains(msg, "nothing was sent") {
		t.Errorf("message %q", msg)
	}
}

// A collector that refuses (wrong path, overloaded) is told apart from
// one that is down, with what it said.
func TestPushToACollectorThatRefusesSaysWhat(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "queue is full", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	ts, _ := otlp.Build(session("single_call"), loadRecordings(t)["single_call"], otlp.Options{})
	err := otlp.Push(context.Background(), http.DefaultClient, srv.URL+"/v1/traces", otlp.JSON, ts)
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
