package otlp_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/otlp"
)

// The credentials an endpoint carries (a password in it, a key in its
// query) reach the collector but never a message: messages go into the
// session's log and from there into every export.
func TestCredentialsInTheEndpointAreNeverInAMessage(t *testing.T) {
	const password, key = "pw-3c9d", "key-81fa"
	var gotAuth, gotKey string
	refuse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, gotAuth, _ = r.BasicAuth()
		gotKey = r.URL.Query().Get("api_key")
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	}))
	defer refuse.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + l.Addr().String()
	l.Close()
	ts, _ := otlp.Build(session("single_call"), loadRecordings(t)["single_call"], otlp.Options{})
	for _, base := range []string{refuse.URL, down} {
		for _, raw := range []string{
			strings.Replace(base, "http://", "http://loupe:"+password+"@", 1),
			base + "/v1/traces?api_key=" + key,
			strings.Replace(base, "http://", "http://loupe:"+password+"@", 1) + "/v1/traces?api_key=" + key + "&tenant=a",
		} {
			target, err := otlp.Endpoint(raw)
			if err != nil {
				t.Fatal(err)
			}
			err = otlp.Push(context.Background(), http.DefaultClient, target, otlp.JSON, ts)
			if err == nil {
				t.Fatalf("push to %s: no error", raw)
			}
			msg := err.Error()
			if strings.Contains(msg, password) || strings.Contains(msg, key) {
				t.Errorf("the message names a credential: %s", msg)
			}
			if shown := otlp.Shown(target); strings.Contains(shown, password) || strings.Contains(shown, key) || !strings.Contains(msg, shown) {
				t.Errorf("message %q does not name the endpoint as %q", msg, shown)
			}
		}
	}
	if gotAuth != password || gotKey != key {
		t.Errorf("the collector got password %q and key %q: the credentials must still be sent", gotAuth, gotKey)
	}
	for _, bad := range []string{"ftp://loupe:" + password + "@host", "http://loupe:" + password + "@", "localhost:4318?api_key=" + key} {
		if _, err := otlp.Endpoint(bad); err == nil || strings.Contains(err.Error(), password) || strings.Contains(err.Error(), key) {
			t.Errorf("Endpoint(%q): %v", bad, err)
		}
	}
}
