package otlp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Protocols of OTLP over HTTP, named as OTEL_EXPORTER_OTLP_PROTOCOL names
// them.
const (
	ProtoBuf = "http/protobuf"
	JSON     = "http/json"
)

// PushTimeout bounds one push when the caller's context does not.
const PushTimeout = 30 * time.Second

// Endpoint is where traces are posted: a base URL (http://host:4318) gets
// the traces path, /v1/traces, as OTLP exporters add it; a URL with a path
// is taken as the traces URL itself.
func Endpoint(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		what := "the OTLP endpoint"
		if err == nil && u.User == nil && u.RawQuery == "" {
			what = fmt.Sprintf("OTLP endpoint %q", raw)
		}
		return "", fmt.Errorf("%s is not an http:// or https:// URL (such as http://localhost:4318)", what)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces"
	}
	return u.String(), nil
}

// Shown is an endpoint as a message may name it: a password in it and
// the values of its query (where collectors take keys) are replaced by
// "xxxxx". Messages end up in the session's log, which exports carry and
// people send to each other; the address that is dialled keeps them.
func Shown(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "the OTLP endpoint"
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			q[k] = []string{"xxxxx"}
		}
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

// PushError is a push that did not reach the collector or that it
// refused. Down says it was not reached at all (nothing listening, no such
// host, no answer in time).
type PushError struct {
	Endpoint string // as Shown: no password, no query values
	Down     bool
	// Status is the HTTP status the collector answered with (0 when
	// Down), Body the start of what it said.
	Status int
	Body   string
	Err    error
}

func (e *PushError) Error() string {
	if e.Down {
		return fmt.Sprintf("the OTLP collector at %s is not reachable (%v); nothing was sent", e.Endpoint, e.Err)
	}
	msg := fmt.Sprintf("the OTLP collector at %s refused the traces: %s", e.Endpoint, http.StatusText(e.Status))
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return fmt.Sprintf("%s (HTTP %d)", msg, e.Status)
}

func (e *PushError) Unwrap() error { return e.Err }

// Push posts each trace to the collector, one request per run, in the
// given protocol (ProtoBuf when ""). It stops at the first that fails.
// client is the app's own (ollama.Dials'), so that every connection Loupe
// makes is in its connection list.
func Push(ctx context.Context, client *http.Client, endpoint, protocol string, ts []ptrace.Traces) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, PushTimeout)
		defer cancel()
	}
	target, err := Endpoint(endpoint)
	if err != nil {
		return err
	}
	var marshal func(ptrace.Traces) ([]byte, error)
	var ctype string
	switch protocol {
	case "", ProtoBuf:
		// An ExportTraceServiceRequest is TracesData on the wire: the
		// same one field of resource spans.
		m := &ptrace.ProtoMarshaler{}
		marshal, ctype = m.MarshalTraces, "application/x-protobuf"
	case JSON:
		m := &ptrace.JSONMarshaler{}
		marshal, ctype = m.MarshalTraces, "application/json"
	default:
		return fmt.Errorf("unknown OTLP protocol %q: use %s or %s", protocol, ProtoBuf, JSON)
	}
	for _, td := range ts {
		body, err := marshal(td)
		if err != nil {
			return fmt.Errorf("otlp: encode traces: %w", err)
		}
		if err := post(ctx, client, target, ctype, body); err != nil {
			return err
		}
	}
	return nil
}

func post(ctx context.Context, client *http.Client, target, ctype string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", ctype)
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return err
		}
		// net/http's error names the URL with its query: keep only
		// what went wrong, the message names the endpoint as Shown.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return &PushError{Endpoint: Shown(target), Down: true, Err: err}
	}
	defer resp.Body.Close()
	said, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 != 2 {
		text := strings.TrimSpace(string(bytes.ToValidUTF8(said, nil)))
		if ctype == "application/x-protobuf" && !isText(text) {
			text = ""
		}
		return &PushError{Endpoint: Shown(target), Status: resp.StatusCode, Body: text, Err: fmt.Errorf("HTTP %d", resp.StatusCode)}
	}
	return nil
}

// isText tells a readable error message from a protobuf Status.
func isText(s string) bool {
	for _, r := range s {
		if r < 0x20 && r != '\t' {
			return false
		}
	}
	return true
}
