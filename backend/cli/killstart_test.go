package cli_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/cli"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
)

func TestRunKilledWhileStartingLeavesNoEmptySession(t *testing.T) {
	// loupe run asks Ollama about the model (/api/show) after the session
	// exists and before its run starts: the moment a kill used to leave an
	// empty "New session". Ollama here holds that question until loupe is
	// killed (SIGKILL: nothing of loupe runs after it), so the kill comes
	// exactly then, with no sleep.
	e := setup(t)
	fake, err := url.Parse(e.srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	asked := make(chan struct{}, 1)
	done := make(chan struct{})
	proxy := httputil.NewSingleHostReverseProxy(fake)
	held := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/show" {
			select {
			case asked <- struct{}{}:
			default:
			}
			// Until loupe is gone (the server sees the connection close
			// once the body is read) or the test ends.
			io.Copy(io.Discard, r.Body)
			select {
			case <-r.Context().Done():
			case <-done:
			}
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	defer held.Close()
	defer close(done)

	p := startLoupe(t, "run", "--workspace", e.ws, "--model", "scripted", "--host", held.URL, "--db", e.db, "--json", "count the files")
	select {
	case <-asked:
	case <-p.exited:
		t.Fatalf("loupe exited before asking about the model: %v\n%s", p.err, p.stderrText())
	case <-time.After(10 * time.Second):
		t.Fatalf("loupe did not ask about the model in 10s\n%s", p.stderrText())
	}
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-p.exited

	// The next loupe run on the database closes the killed run (its owner
	// is gone) before its own.
	e.srv.Script(ollamatest.Text("Done."))
	if code, _, stderr := e.run("run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "next"); code != cli.ExitAnswered {
		t.Fatalf("the next run: exit %d\n%s", code, stderr)
	}

	st, err := store.Open(e.db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ss, err := st.ListSessions(context.Background())
	if err != nil || len(ss) != 2 {
		t.Fatalf("sessions = %+v, %v; want the killed one and the next", ss, err)
	}
	killed := ss[1] // the least recently updated
	evs, err := st.Events(context.Background(), killed.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) == 0 {
		t.Fatalf("the killed run left an empty session: %+v", killed)
	}
	// It holds the prompt, under its own title, and its run was closed as
	// interrupted.
	var kinds []trace.Kind
	for _, ev := range evs {
		kinds = append(kinds, ev.Kind)
	}
	if !slices.Equal(kinds, []trace.Kind{trace.KindUserMessage, trace.KindRunEnd}) || killed.Title != "count the files" || killed.LastReason != trace.EndInterrupted {
		t.Errorf("killed session %+v, log %v", killed, kinds)
	}
}
