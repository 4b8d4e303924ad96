package ollama

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The calls other than Chat are bounded too: a server that takes the
// request and never answers, as a stopped (SIGSTOP) or wedged Ollama does,
// gets a TimeoutError soon, and the request's connection is closed.
func TestShortCallsAreBounded(t *testing.T) {
	const bound = 150 * time.Millisecond
	old := shortCallTimeout
	shortCallTimeout = bound
	t.Cleanup(func() { shortCallTimeout = old })

	var hungUp, shows atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		if r.URL.Path == "/api/tags" && r.Header.Get("X-Hang") == "" {
			// Three models, whose /api/show hangs.
			io.WriteString(w, `{"models":[{"name":"a:latest"},{"name":"b:latest"},{"name":"c:latest"}]}`)
			return
		}
		if r.URL.Path == "/api/show" {
			shows.Add(1)
		}
		select {
		case <-r.Context().Done():
			hungUp.Add(1)
		case <-time.After(10 * time.Second):
		}
	}))
	defer srv.Close()
	c := New(srv.URL, nil)

	calls := []struct {
		request string
		call    func(context.Context) error
	}{
		{"HEAD /", c.Ping},
		{"GET /api/version", func(ctx context.Context) error { _, err := c.Version(ctx); return err }},
		{"POST /api/show", func(ctx context.Context) error { _, err := c.Show(ctx, "a"); return err }},
		// The listing stops at the first show that times out, rather than
		// waiting the bound out once per model.
		{"POST /api/show", func(ctx context.Context) error { _, err := c.Models(ctx); return err }},
	}
	for _, tt := range calls {
		before := hungUp.Load()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		start := time.Now()
		err := tt.call(ctx)
		took := time.Since(start)
		cancel()
		var te *TimeoutError
		if !errors.As(err, &te) || te.Request != tt.request || te.After != bound {
			t.Errorf("%s: err = %#v (%v) after %v, want a TimeoutError for it", tt.request, err, err, took)
			continue
		}
		if took > bound+time.Second {
			t.Errorf("%s: returned after %v, want soon after %v", tt.request, took, bound)
		}
		if msg := err.Error(); !strings.Contains(msg, "did not answer "+tt.request+" within 150ms") || !strings.Contains(msg, srv.URL) {
			t.Errorf("%s: message %q", tt.request, msg)
		}
		deadline := time.Now().Add(2 * time.Second)
		for hungUp.Load() == before && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if hungUp.Load() == before {
			t.Errorf("%s: the server never saw the client go away", tt.request)
		}
	}
	if n := shows.Load(); n != 2 {
		t.Errorf("%d show requests, want 2 (one by Show, one by Models)", n)
	}

	// The caller's own deadline is still the caller's.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := c.Ping(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Ping with a shorter deadline of its own: err = %v", err)
	}
}
