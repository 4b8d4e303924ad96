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
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
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
	cmd         *exec.Cmd
	done        chan struct{} // closed when the process has exited
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
	var lastErr error
	// Another process may take a free port before Jaeger binds it: try a
	// few sets of ports before giving up.
	for range 3 {
		j, err := launch(bin, dir)
		if err == nil {
			t.Cleanup(func() {
				_ = j.cmd.Process.Kill()
				<-j.done
				if t.Failed() {
					t.Logf("realjaeger: end of Jaeger's log:\n%s", j.Log())
				}
			})
			return j
		}
		lastErr = err
	}
	t.Fatalf("realjaeger: %v", lastErr)
	return nil
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

// launch starts bin with a configuration in dir on free ports and waits
// until its query API and its receiver answer.
func launch(bin, dir string) (*Jaeger, error) {
	var addrs [3]string
	for i := range addrs {
		a, err := freeAddr()
		if err != nil {
			return nil, fmt.Errorf("no free port: %w", err)
		}
		addrs[i] = a
	}
	queryHTTP, queryGRPC, otlpHTTP := addrs[0], addrs[1], addrs[2]
	cfg := filepath.Join(dir, "jaeger.yaml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, config, queryHTTP, queryGRPC, otlpHTTP), 0o644); err != nil {
		return nil, err
	}
	j := &Jaeger{OTLP: "http://" + otlpHTTP, Query: "http://" + queryHTTP, log: filepath.Join(dir, "jaeger.log"), done: make(chan struct{})}
	logf, err := os.Create(j.log)
	if err != nil {
		return nil, err
	}
	defer logf.Close() // the child has its own copy
	cmd := exec.Command(bin, "--config", "file:"+cfg)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	j.cmd = cmd
	go func() {
		_ = cmd.Wait()
		close(j.done)
	}()
	deadline := time.Now().Add(startTimeout)
	for {
		if j.up() {
			return j, nil
		}
		select {
		case <-j.done:
			return nil, fmt.Errorf("jaeger exited before it answered; its log:\n%s", j.Log())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-j.done
			return nil, fmt.Errorf("jaeger did not answer on %s/api/services and %s within %v; its log:\n%s", j.Query, otlpHTTP, startTimeout, j.Log())
		}
	}
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

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// Binary is the path of the jaeger binary: $LOUPE_JAEGER_BIN if set, else
// the one scripts/real-jaeger/build.sh has cached. It never builds one.
func Binary() (string, error) {
	if bin := os.Getenv(BinEnvVar); bin != "" {
		if _, err := os.Stat(bin); err != nil {
			return "", fmt.Errorf("%s=%s: %w", BinEnvVar, bin, err)
		}
		return bin, nil
	}
	script, err := buildScript()
	if err != nil {
		return "", err
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("bash", script, "--cached")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s --cached failed (%v): %s", script, err, strings.TrimSpace(stderr.String()))
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	bin := strings.TrimSpace(lines[len(lines)-1])
	if fi, err := os.Stat(bin); err != nil || fi.IsDir() {
		return "", fmt.Errorf("%s printed %q, which is not a binary", script, bin)
	}
	return bin, nil
}

// buildScript finds scripts/real-jaeger/build.sh above the working
// directory (go test runs in the package folder) or above this file.
func buildScript() (string, error) {
	const rel = "scripts/real-jaeger/build.sh"
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if _, file, _, ok := runtime.Caller(0); ok {
		starts = append(starts, filepath.Dir(file))
	}
	for _, dir := range starts {
		for {
			p := filepath.Join(dir, rel)
			if _, err := os.Stat(p); err == nil {
				return p, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", errors.New("cannot find " + rel)
}
