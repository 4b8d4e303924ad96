// Package realjaeger runs a real Jaeger (v2, github.com/jaegertracing/jaeger/cmd/jaeger)
// for tests: the version scripts/real-jaeger/build.sh pins, built by that
// script and cached, with its memory store, an OTLP/HTTP receiver and its
// query API each on a free loopback port.
//
// Tests of this tier call Require first, so that a plain `go test ./...`
// skips them with a reason; with LOUPE_REAL_JAEGER=1 they run, and a Jaeger
// that is not built or does not start fails the test, never skips it. A
// test never builds Jaeger itself (the first build takes tens of minutes):
// run scripts/real-jaeger/build.sh once, or name a binary in
// LOUPE_JAEGER_BIN.
package realjaeger

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/testkit/realproc"
)

// EnvVar turns the real Jaeger tier on when set to 1.
const EnvVar = "LOUPE_REAL_JAEGER"

// BinEnvVar names a jaeger binary to use instead of the one build.sh caches.
const BinEnvVar = "LOUPE_JAEGER_BIN"

// SkipReason is what tests of this tier say when they are not requested.
const SkipReason = "real Jaeger tier not requested; run scripts/real-jaeger/build.sh, then set LOUPE_REAL_JAEGER=1"

// Require skips the test unless the real Jaeger tier was requested.
func Require(t testing.TB) {
	t.Helper()
	if os.Getenv(EnvVar) != "1" {
		t.Skip(SkipReason)
	}
}

// startTimeout bounds how long a started Jaeger may take to answer.
const startTimeout = 60 * time.Second

// Jaeger is a running jaeger owned by one test.
type Jaeger struct {
	// OTLP is the base URL of its OTLP/HTTP receiver (POST /v1/traces),
	// Query that of its query API and UI (GET /api/traces/ID).
	OTLP, Query string
	log         string
	proc        *realproc.Proc
}

// Start starts Jaeger and stops it when the test ends. It fails the test
// if there is no binary or Jaeger does not come up.
func Start(t testing.TB) *Jaeger {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		t.Fatalf("realjaeger: no Jaeger binary: %v", err)
	}
	dir := t.TempDir()
	var j *Jaeger
	err = realproc.OnFreePorts(3, func(addrs []string) (err error) {
		j, err = launch(bin, dir, addrs)
		return err
	})
	if err != nil {
		t.Fatalf("realjaeger: %v", err)
	}
	t.Cleanup(func() {
		j.proc.Kill()
		if t.Failed() {
			t.Logf("realjaeger: end of Jaeger's log:\n%s", j.Log())
		}
	})
	return j
}

// Log is what Jaeger wrote so far (its end, when long).
func (j *Jaeger) Log() string {
	b, _ := os.ReadFile(j.log)
	if len(b) > 8<<10 {
		b = b[len(b)-8<<10:]
	}
	return string(b)
}

// config is a Jaeger v2 configuration holding only what the tests use: the
// OTLP/HTTP receiver, the memory store and the query API. Telemetry is off
// so that nothing listens on a fixed port.
const config = `service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: info
extensions:
  jaeger_storage:
    backends:
      mem:
        memory:
          max_traces: 10000
  jaeger_query:
    storage:
      traces: mem
    http:
      endpoint: %s
    grpc:
      endpoint: %s
receivers:
  otlp:
    protocols:
      http:
        endpoint: %s
exporters:
  jaeger_storage_exporter:
    trace_storage: mem
`

// launch starts bin with a configuration in dir on the addresses given
// (query HTTP, query gRPC, OTLP/HTTP) and waits until its query API and its
// receiver answer.
func launch(bin, dir string, addrs []string) (*Jaeger, error) {
	queryHTTP, queryGRPC, otlpHTTP := addrs[0], addrs[1], addrs[2]
	cfg := filepath.Join(dir, "jaeger.yaml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, config, queryHTTP, queryGRPC, otlpHTTP), 0o644); err != nil {
		return nil, err
	}
	j := &Jaeger{OTLP: "http://" + otlpHTTP, Query: "http://" + queryHTTP, log: filepath.Join(dir, "jaeger.log")}
	// Each try writes its log afresh: what failed is the last one's.
	if err := os.Remove(j.log); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	cmd := exec.Command(bin, "--config", "file:"+cfg)
	cmd.Dir = dir
	p, err := realproc.Start(cmd, j.log)
	if err != nil {
		return nil, err
	}
	if err := p.WaitUp(startTimeout, 50*time.Millisecond, j.up); err != nil {
		p.Kill()
		return nil, fmt.Errorf("%v (asking %s/api/services and %s); its log:\n%s", err, j.Query, otlpHTTP, j.Log())
	}
	j.proc = p
	return j, nil
}

// up tells whether the query API answers and the receiver takes
// connections.
func (j *Jaeger) up() bool {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(j.Query + "/api/services")
	if err != nil {
		return false
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false
	}
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(j.OTLP, "http://"), 2*time.Second)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

// Binary is the path of the jaeger binary: $LOUPE_JAEGER_BIN if set, else
// the one scripts/real-jaeger/build.sh has cached. It never builds one.
func Binary() (string, error) {
	return realproc.Binary(BinEnvVar, "scripts/real-jaeger/build.sh", nil, "--cached")
}
