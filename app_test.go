package main

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/settings"
)

// The window's wiring, without a window: nothing here reaches the Wails
// runtime (a fresh database has no run to recover, so no event is sent).
func startApp(t *testing.T, f Flags) *App {
	t.Helper()
	if f.DB == "" {
		f.DB = filepath.Join(t.TempDir(), "loupe.db")
	}
	a := NewApp(f)
	a.startup(context.Background())
	if a.openErr != nil {
		t.Fatal(a.openErr)
	}
	// Recovery runs in the background and tells the window what it closed:
	// a session a test makes with a run left open must not meet it, whose
	// live event would need a window's context.
	<-a.recovered
	t.Cleanup(func() { a.shutdown(context.Background()) })
	return a
}

func twoServers(t *testing.T) (a, b *ollamatest.Server) {
	a, b = ollamatest.New(t), ollamatest.New(t)
	a.SetVersion("0.0.1-a")
	b.SetVersion("0.0.2-b")
	a.AddModel(ollamatest.ModelSpec{Name: "only-on-a"})
	b.AddModel(ollamatest.ModelSpec{Name: "only-on-b"})
	return a, b
}

func statusOf(t *testing.T, app *App) Status {
	t.Helper()
	st, err := app.Status()
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// Saving Settings' Ollama host moves the status check and the model list
// to that server at once, typed without a scheme and shown normalised;
// a host that cannot be used is refused and changes nothing; emptying it
// goes back to OLLAMA_HOST.
func TestSavingTheHostSwitchesTheApp(t *testing.T) {
	a, b := twoServers(t)
	t.Setenv("OLLAMA_HOST", a.URL())
	app := startApp(t, Flags{})
	if st := statusOf(t, app); !st.Reachable || st.Version != "0.0.1-a" || st.OllamaHost != a.URL() || st.Hosts.From != settings.HostFromEnv {
		t.Fatalf("at start: %+v, want a, from OLLAMA_HOST", st)
	}

	set, err := app.Settings()
	if err != nil {
		t.Fatal(err)
	}
	set.OllamaHost = strings.TrimPrefix(b.URL(), "http://") // as typed: host:port
	if err := app.SaveSettings(set); err != nil {
		t.Fatal(err)
	}
	st := statusOf(t, app)
	if !st.Reachable || st.Version != "0.0.2-b" || st.OllamaHost != b.URL() || st.Hosts.From != settings.HostFromSetting || st.Hosts.Env != a.URL() {
		t.Errorf("after saving b: %+v, want b, from the setting, naming OLLAMA_HOST too", st)
	}
	if saved, _ := app.Settings(); saved.OllamaHost != b.URL() {
		t.Errorf("saved host %q, want it normalised to %q", saved.OllamaHost, b.URL())
	}
	models, err := app.Models()
	if err != nil || len(models) != 1 || models[0].Name != "only-on-b:latest" {
		t.Errorf("models after saving b: %+v, %v", models, err)
	}

	bad := set
	bad.OllamaHost = "ftp://" + strings.TrimPrefix(a.URL(), "http://")
	if err := app.SaveSettings(bad); err == nil || !strings.Contains(err.Error(), "http or https") {
		t.Errorf("saving %q: %v, want a refusal saying http or https", bad.OllamaHost, err)
	}
	if st := statusOf(t, app); st.OllamaHost != b.URL() {
		t.Errorf("a refused host moved the app to %q", st.OllamaHost)
	}

	set.OllamaHost = ""
	if err := app.SaveSettings(set); err != nil {
		t.Fatal(err)
	}
	if st := statusOf(t, app); st.Version != "0.0.1-a" || st.Hosts.From != settings.HostFromEnv {
		t.Errorf("after emptying the host: %+v, want a again, from OLLAMA_HOST", st)
	}
}

// A --host given at start wins over the saved host, and Status says so.
func TestHostFlagWinsOverTheSetting(t *testing.T) {
	a, b := twoServers(t)
	t.Setenv("OLLAMA_HOST", "")
	app := startApp(t, Flags{Host: a.URL()})
	set, _ := app.Settings()
	set.OllamaHost = b.URL()
	if err := app.SaveSettings(set); err != nil {
		t.Fatal(err)
	}
	if st := statusOf(t, app); st.Version != "0.0.1-a" || st.Hosts.From != settings.HostFromFlag || st.Hosts.Flag != a.URL() {
		t.Errorf("with --host a and the setting b: %+v, want a, from the flag", st)
	}
}

// Test in Settings asks the host typed, without saving it or moving the
// app.
func TestCheckHost(t *testing.T) {
	a, b := twoServers(t)
	t.Setenv("OLLAMA_HOST", a.URL())
	app := startApp(t, Flags{})
	c, err := app.CheckHost(strings.TrimPrefix(b.URL(), "http://"))
	if err != nil || !c.Reachable || c.Version != "0.0.2-b" || c.Host != b.URL() {
		t.Errorf("CheckHost(b) = %+v, %v", c, err)
	}
	if c, err := app.CheckHost(""); err != nil || c.Version != "0.0.1-a" {
		t.Errorf("CheckHost(\"\") = %+v, %v; want where an empty field leads: a", c, err)
	}
	if _, err := app.CheckHost("gpu box"); err == nil || !strings.Contains(err.Error(), "type http:// or https://") {
		t.Errorf("CheckHost(gpu box) = %v, want a refusal saying what to type", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close()
	if c, err := app.CheckHost(dead); err != nil || c.Reachable || !strings.Contains(c.Message, "ollama serve") {
		t.Errorf("CheckHost(dead) = %+v, %v; want unreachable, saying what to do", c, err)
	}
	if st := statusOf(t, app); st.OllamaHost != a.URL() {
		t.Errorf("a check moved the app to %q", st.OllamaHost)
	}
}
