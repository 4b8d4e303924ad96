package cli_test

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/cli"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/store"
)

// deadHost is an address where nothing listens.
func deadHost(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func saveHost(t *testing.T, db, host string) {
	t.Helper()
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := settings.Defaults()
	s.OllamaHost = host
	if err := settings.Save(context.Background(), st, s); err != nil {
		t.Fatal(err)
	}
}

// loupe run talks to --host when given; without it, to Settings' Ollama
// host, even when OLLAMA_HOST names another; and to OLLAMA_HOST when
// Settings names none. Each time the server that should not be asked is
// a dead address, so a run that went there fails.
func TestRunChoosesTheHost(t *testing.T) {
	// Each names the live fake, a dead address, or nothing ("").
	for _, tt := range []struct{ name, flag, setting, env string }{
		{"setting beats OLLAMA_HOST", "", "live", "dead"},
		{"--host beats the setting", "live", "dead", "dead"},
		{"OLLAMA_HOST without a setting", "", "", "live"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := setup(t)
			e.srv.Script(ollamatest.Text("Hello."))
			where := map[string]string{"live": e.srv.URL(), "dead": deadHost(t), "": ""}
			saveHost(t, e.db, where[tt.setting])
			t.Setenv("OLLAMA_HOST", where[tt.env])
			args := []string{"run", "--workspace", e.ws, "--model", "scripted", "--db", e.db}
			if tt.flag != "" {
				args = append(args, "--host", where[tt.flag])
			}
			code, _, stderr := e.run(append(args, "hi")...)
			if code != cli.ExitAnswered {
				t.Fatalf("exit %d, stderr %s", code, stderr)
			}
			if n := len(e.srv.Requests()); n != 1 {
				t.Errorf("the live server got %d chat requests, want 1", n)
			}
		})
	}
}

// loupe run --host NAME runs on the host Settings names so, the session
// keeps that name (the window reopens it there), and the local host (a
// dead address here) hears nothing; a name Settings does not have is a
// usage error that names it, and nothing is run.
func TestRunOnANamedHost(t *testing.T) {
	e := setup(t)
	e.srv.Script(ollamatest.Text("Hello from the box."))
	st, err := store.Open(e.db)
	if err != nil {
		t.Fatal(err)
	}
	s := settings.Defaults()
	s.OllamaHost = deadHost(t)
	s.Hosts = []settings.HostProfile{{Name: "gpu-box", URL: e.srv.URL()}}
	if err := settings.Save(context.Background(), st, s); err != nil {
		t.Fatal(err)
	}
	st.Close()
	code, _, stderr := e.run("run", "--workspace", e.ws, "--model", "scripted", "--db", e.db, "--host", "gpu-box", "hi")
	if code != cli.ExitAnswered {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	st, err = store.Open(e.db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	list, err := st.ListSessions(context.Background())
	if err != nil || len(list) != 1 || list[0].Host != "gpu-box" {
		t.Fatalf("sessions %+v, %v; want one on gpu-box", list, err)
	}
	code, _, stderr = e.run("run", "--workspace", e.ws, "--model", "scripted", "--db", e.db, "--host", "gpubox", "hi")
	if code != cli.ExitUsage || !strings.Contains(stderr, `"gpubox"`) || !strings.Contains(stderr, "gpu-box") {
		t.Errorf("an unknown host name: exit %d, stderr %s", code, stderr)
	}
	if n := len(e.srv.Requests()); n != 1 {
		t.Errorf("the server got %d chat requests, want 1", n)
	}
}
