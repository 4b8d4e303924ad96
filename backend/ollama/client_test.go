package ollama_test

import (
	"context"
	"errors"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/ollama/ollama/envconfig"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
)

func TestHostFromEnv(t *testing.T) {
	tests := []struct{ env, want string }{
		{"", "http://127.0.0.1:11434"},
		{"127.0.0.1", "http://127.0.0.1:11434"},
		{"localhost:5000", "http://localhost:5000"},
		{"example.com", "http://example.com:11434"},
		{":8080", "http://127.0.0.1:8080"},
		{"0.0.0.0", "http://127.0.0.1:11434"},
		{"0.0.0.0:9999", "http://127.0.0.1:9999"},
		{"[::]:11434", "http://127.0.0.1:11434"},
		{"[::1]:11434", "http://[::1]:11434"},
		{"::1", "http://[::1]:11434"},
		{"http://10.0.0.5", "http://10.0.0.5:80"},
		{"https://ollama.example.com", "https://ollama.example.com:443"},
		{"http://gpu-box:11434/ollama", "http://gpu-box:11434/ollama"},
		{"ollama.com", "https://ollama.com:443"},
		{" 'localhost:1234' ", "http://localhost:1234"},
		{`"localhost:1234"`, "http://localhost:1234"},
		{"localhost:99999", "http://localhost:11434"},
	}
	for _, tt := range tests {
		t.Run(tt.env, func(t *testing.T) {
			t.Setenv("OLLAMA_HOST", tt.env)
			if got := ollama.HostFromEnv(); got != tt.want {
				t.Errorf("HostFromEnv() with %q = %q, want %q", tt.env, got, tt.want)
			}
			// Same reading as Ollama's own, except that a listen-on-all
			// address becomes loopback for a client.
			theirs := envconfig.Host()
			if h := theirs.Hostname(); h != "0.0.0.0" && h != "::" && h != "" {
				if got := ollama.HostFromEnv(); got != theirs.String() {
					t.Errorf("HostFromEnv() = %q, Ollama reads %q", got, theirs)
				}
			}
		})
	}
}

func TestNewAcceptsHostForms(t *testing.T) {
	if got := ollama.New("", nil).Host(); got != ollama.DefaultHost {
		t.Errorf("New(\"\").Host() = %q", got)
	}
	if got := ollama.New("localhost:7000", nil).Host(); got != "http://localhost:7000" {
		t.Errorf("New(localhost:7000).Host() = %q", got)
	}
}

func TestNumCtx(t *testing.T) {
	tests := []struct{ model, limit, want int }{
		{32768, 8192, 8192},
		{4096, 8192, 4096},
		{0, 8192, 8192},
		{131072, 0, 131072},
		{0, 0, ollama.FallbackNumCtx},
		{-1, -5, ollama.FallbackNumCtx},
	}
	for _, tt := range tests {
		if got := ollama.NumCtx(tt.model, tt.limit); got != tt.want {
			t.Errorf("NumCtx(%d, %d) = %d, want %d", tt.model, tt.limit, got, tt.want)
		}
	}
}

func TestVersion(t *testing.T) {
	srv := ollamatest.New(t)
	srv.SetVersion("0.17.4")
	c := ollama.New(srv.URL(), nil)
	v, err := c.Version(context.Background())
	if err != nil || v != "0.17.4" {
		t.Errorf("Version() = %q, %v", v, err)
	}
	if err := c.Ping(context.Background()); err != nil {
		t.Errorf("Ping() = %v", err)
	}
}

func TestModelsAndShow(t *testing.T) {
	srv := ollamatest.New(t)
	older := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	newer := older.Add(48 * time.Hour)
	srv.AddModel(ollamatest.ModelSpec{Name: "qwen3:0.6b", Family: "qwen3", ContextLength: 40960,
		Capabilities: []string{"completion", "tools", "thinking"}, Size: 522653767, ParameterSize: "751.63M",
		Quantization: "Q4_K_M", ModifiedAt: older})
	srv.AddModel(ollamatest.ModelSpec{Name: "plain", Family: "gemma", Capabilities: []string{"completion"},
		Size: 1000, ModifiedAt: newer})
	c := ollama.New(srv.URL(), nil)

	models, err := c.Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(models) != 2 || models[0].Name != "plain:latest" || models[1].Name != "qwen3:0.6b" {
		t.Fatalf("models = %+v, want plain:latest (newest) then qwen3:0.6b", models)
	}
	q := models[1]
	if q.Family != "qwen3" || q.ContextLength != 40960 || q.Size != 522653767 || q.ParameterSize != "751.63M" ||
		q.Quantization != "Q4_K_M" || !q.ModifiedAt.Equal(older) || !q.SupportsTools() || !q.SupportsThinking() ||
		!slices.Equal(q.Capabilities, []string{"completion", "tools", "thinking"}) {
		t.Errorf("qwen3 = %+v", q)
	}
	p := models[0]
	if p.ContextLength != 0 || p.SupportsTools() || p.SupportsThinking() || p.Family != "gemma" {
		t.Errorf("plain = %+v", p)
	}
	if got := ollama.NumCtx(p.ContextLength, 8192); got != 8192 {
		t.Errorf("NumCtx for a model without context length = %d", got)
	}

	s, err := c.Show(context.Background(), "qwen3:0.6b")
	if err != nil || s.ContextLength != 40960 || !s.SupportsTools() || s.Name != "qwen3:0.6b" {
		t.Errorf("Show = %+v, %v", s, err)
	}

	_, err = c.Show(context.Background(), "missing")
	var nf *ollama.ModelNotFoundError
	if !errors.As(err, &nf) || nf.Model != "missing" {
		t.Errorf("Show(missing) err = %v", err)
	}
}

// refusingHost returns an address where nothing listens.
func refusingHost(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

func TestUnreachable(t *testing.T) {
	host := refusingHost(t)
	c := ollama.New(host, nil)
	want := "Ollama is not running at " + host + " — start it with `ollama serve`"
	calls := map[string]func() error{
		"ping":    func() error { return c.Ping(context.Background()) },
		"version": func() error { _, err := c.Version(context.Background()); return err },
		"models":  func() error { _, err := c.Models(context.Background()); return err },
		"show":    func() error { _, err := c.Show(context.Background(), "x"); return err },
		"chat":    func() error { _, err := c.Chat(context.Background(), request("x"), nil); return err },
	}
	for name, call := range calls {
		err := call()
		var ue *ollama.UnreachableError
		if !errors.As(err, &ue) || ue.Host != host {
			t.Errorf("%s: err = %#v, want UnreachableError", name, err)
			continue
		}
		if err.Error() != want {
			t.Errorf("%s: message = %q, want %q", name, err.Error(), want)
		}
		if ue.Unwrap() == nil {
			t.Errorf("%s: cause lost", name)
		}
	}
}
