package cli_test

import (
	"context"
	"net"
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
