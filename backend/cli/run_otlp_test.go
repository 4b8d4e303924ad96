package cli_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/cli"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/otlp/otlptest"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/store"
)

func saveOTLP(t *testing.T, db, endpoint string) {
	t.Helper()
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := settings.Defaults()
	s.OTLPEndpoint = endpoint
	if err := settings.Save(context.Background(), st, s); err != nil {
		t.Fatal(err)
	}
}

// loupe run sends its finished run to the collector Settings names before
// it exits; a collector that is down is said on the run, and the run's
// exit code is the same.
func TestRunSendsItsTraceToTheSettingsCollector(t *testing.T) {
	e := setup(t)
	rc := otlptest.New(t)
	saveOTLP(t, e.db, rc.URL)
	id := otlpSession(t, e)
	got := rc.Traces()
	if len(got) != 1 {
		t.Fatalf("the collector got %d traces when loupe run exited, want 1", len(got))
	}
	names := spanNames(got[0])
	slices.Sort(names)
	if want := []string{"chat scripted", "chat scripted", "execute_tool read_file", "invoke_agent loupe"}; !slices.Equal(names, want) {
		t.Fatalf("spans %q, want %q", names, want)
	}
	if id == "" {
		t.Fatal("no session id")
	}

	down := otlptest.Down(t)
	saveOTLP(t, e.db, down)
	e.srv.Script(ollamatest.Text("Hi."))
	code, out, stderr := e.run("run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "hi")
	if code != cli.ExitAnswered {
		t.Fatalf("with the collector down: exit %d, stderr %s", code, stderr)
	}
	if all := out + stderr; !strings.Contains(all, "was not sent") || !strings.Contains(all, down+"/v1/traces is not reachable") {
		t.Errorf("loupe run did not say the trace was not sent:\nstdout %s\nstderr %s", out, stderr)
	}
}
