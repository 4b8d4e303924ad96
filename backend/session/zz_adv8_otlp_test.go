package session_test

// Hole: the password of the OTLP collector's address in Settings is
// written into the session's log, which the timeline shows and every
// export (JSON, Markdown, the HTML replay someone is sent) carries.
//
// Steps: Settings sends finished runs to
// https://loupe:PASSWORD@collector.example:4318 (basic auth in the
// address: the only way Settings has to give a collector credentials).
// The collector refuses a run (401, 503: any answer that is not 2xx), or
// is down. The notice "The trace of this run was not sent: the OTLP
// collector at http://loupe:PASSWORD@…/v1/traces refused the traces…"
// is appended to the session: the password is in the log.
//
// Mechanism: otlp.Endpoint rebuilds the address with url.URL.String(),
// which keeps the user info, and PushError names that address in its
// message; exportFailed puts the message into a notice event as it is.
// (net/http's own errors redact a password; this message is Loupe's.)

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
)

func TestAdv8TheCollectorsPasswordIsNotWrittenIntoTheSession(t *testing.T) {
	const password = "pw-5e1b77c0"
	refuse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	}))
	defer refuse.Close()
	endpoint := strings.Replace(refuse.URL, "http://", "http://loupe:"+password+"@", 1)
	h := newHarness(t, permission.ModeAuto, exportTo(endpoint, false))
	h.srv.Script(ollamatest.Text("hello"))
	h.run("hi")
	h.m.WaitExports()
	if len(noticesOf(h.events(), session.CodeExportFailed)) == 0 {
		t.Fatal("control: no notice that the collector refused the run")
	}
	if js := exportJSON(t, h.st, h.id); strings.Contains(string(js), password) {
		i := strings.Index(string(js), password)
		t.Fatalf("the session's export holds the collector's password: …%s…", js[max(0, i-120):i+len(password)])
	}
}
