// Package otlptest is a local OTLP/HTTP trace collector for tests, and the
// addresses of a collector that is down and of one that refuses.
package otlptest

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Collector is an OTLP/HTTP trace receiver: it decodes each request's
// ExportTraceServiceRequest (on the wire the same message as TracesData)
// posted to /v1/traces, as the protocol its Content-Type names, keeps it,
// and answers with an empty ExportTraceServiceResponse in the same
// protocol, as a collector that took every span does.
type Collector struct {
	// URL is its base URL, without the /v1/traces path.
	URL string
	srv *httptest.Server

	mu    sync.Mutex
	got   []ptrace.Traces
	types []string
	hold  chan struct{}
}

// New starts a collector, closed when the test ends.
func New(t testing.TB) *Collector {
	c := &Collector{}
	c.srv = httptest.NewServer(http.HandlerFunc(c.serve))
	c.URL = c.srv.URL
	t.Cleanup(c.Close)
	return c
}

// Close stops the collector (it waits for requests in flight).
func (c *Collector) Close() {
	c.Release()
	c.srv.Close()
}

// Hold keeps each request that comes waiting until Release.
func (c *Collector) Hold() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hold = make(chan struct{})
}

// Release lets the held requests through, and those that come after.
func (c *Collector) Release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.hold != nil {
		close(c.hold)
		c.hold = nil
	}
}

// Traces is what the collector took, a request each, in order.
func (c *Collector) Traces() []ptrace.Traces {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.got)
}

// ContentTypes are the Content-Type of each request it took.
func (c *Collector) ContentTypes() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.types)
}

func (c *Collector) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" {
		http.Error(w, "not here", http.StatusNotFound)
		return
	}
	c.mu.Lock()
	hold := c.hold
	c.mu.Unlock()
	if hold != nil {
		<-hold
	}
	body, _ := io.ReadAll(r.Body)
	var td ptrace.Traces
	var err error
	var resp []byte
	ct := r.Header.Get("Content-Type")
	switch ct {
	case "application/x-protobuf":
		td, err = (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(body)
	case "application/json":
		td, err = (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(body)
		resp = []byte("{}")
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
	c.types = append(c.types, ct)
	c.mu.Unlock()
	w.Header().Set("Content-Type", ct)
	_, _ = w.Write(resp)
}

// Refusing is the base URL of a collector that answers every request with
// status and message, closed when the test ends.
func Refusing(t testing.TB, status int, message string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, message, status)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// Down is the base URL of a loopback port where nothing listens.
func Down(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}
