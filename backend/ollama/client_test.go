package ollama_test

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/envconfig"

	"github.com/loupe-dev/loupe/backend/llm"
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

func TestParseHost(t *testing.T) {
	ok := []struct{ in, want string }{
		{"localhost:11434", "http://localhost:11434"},
		{" localhost:11434 ", "http://localhost:11434"},
		{"127.0.0.1", "http://127.0.0.1:11434"},
		{":8080", "http://127.0.0.1:8080"},
		{"0.0.0.0:11434", "http://127.0.0.1:11434"},
		{"[::1]:11434", "http://[::1]:11434"},
		{"::1", "http://[::1]:11434"},
		{"http://gpu-box.lan", "http://gpu-box.lan:80"},
		{"HTTPS://gpu-box.lan", "https://gpu-box.lan:443"},
		{"https://ollama.example.com:8443/ollama", "https://ollama.example.com:8443/ollama"},
		{"my_box:7000", "http://my_box:7000"},
	}
	for _, tt := range ok {
		got, err := ollama.ParseHost(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseHost(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
		// What is accepted is read as Ollama reads OLLAMA_HOST (which
		// knows no upper-case scheme: that one Loupe only lowers).
		t.Setenv("OLLAMA_HOST", tt.in)
		if env := ollama.HostFromEnv(); env != got && err == nil && tt.in == strings.ToLower(tt.in) {
			t.Errorf("ParseHost(%q) = %q but OLLAMA_HOST=%q reads %q", tt.in, got, tt.in, env)
		}
	}
	bad := []struct{ in, says string }{
		{"", "no host"},
		{"ftp://box:11434", "scheme must be http or https"},
		{"http:/box", "http:// or https://"},
		{"localhost:99999", "port must be a number from 1 to 65535"},
		{"localhost:0", "port must be"},
		{"localhost:abc", "port must be"},
		{"http://", "no host name"},
		{"gpu box", "space"},
		{"user@box:11434", "@"},
		{"box:11434?x=1", "?"},
		{"bad..name", "not a host name"},
		{"-box", "not a host name"},
		{"a:b:c", "brackets"},
	}
	for _, tt := range bad {
		got, err := ollama.ParseHost(tt.in)
		if err == nil {
			t.Errorf("ParseHost(%q) = %q, want an error saying %q", tt.in, got, tt.says)
			continue
		}
		if !strings.Contains(err.Error(), tt.says) {
			t.Errorf("ParseHost(%q) error %q does not say %q", tt.in, err, tt.says)
		}
	}
}

// SetHost moves the calls that start after it, and leaves an answer that
// is streaming to finish from the server it began on.
func TestSetHostMovesTheCallsThatStartAfter(t *testing.T) {
	a, b := ollamatest.New(t), ollamatest.New(t)
	a.SetVersion("0.0.1-a")
	b.SetVersion("0.0.2-b")
	for _, s := range []*ollamatest.Server{a, b} {
		s.AddModel(ollamatest.ModelSpec{Name: "m", ContextLength: 4096})
	}
	slow := ollamatest.Text("from ", "a, ", "slowly")
	slow.Delay = 30 * time.Millisecond
	a.Script(slow)
	b.Script(ollamatest.Text("from b"))
	c := ollama.New(a.URL(), nil)
	req := llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}, Options: llm.Options{NumCtx: 4096}}

	started := make(chan struct{})
	var once sync.Once
	type result struct {
		resp llm.Response
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := c.Chat(context.Background(), req, func(llm.Chunk) { once.Do(func() { close(started) }) })
		done <- result{resp, err}
	}()
	<-started
	c.SetHost(strings.TrimPrefix(b.URL(), "http://")) // as typed: host:port
	if got := c.Host(); got != b.URL() {
		t.Errorf("Host() after SetHost = %q, want %q", got, b.URL())
	}
	first := <-done
	if first.err != nil || first.resp.Message.Content != "from a, slowly" {
		t.Fatalf("the answer under way = %q, %v; want all of a's answer", first.resp.Message.Content, first.err)
	}
	v, host, err := c.VersionAt(context.Background())
	if err != nil || v != "0.0.2-b" || host != b.URL() {
		t.Errorf("VersionAt() = %q, %q, %v; want b's version from %s", v, host, err, b.URL())
	}
	second, err := c.Chat(context.Background(), req, nil)
	if err != nil || second.Message.Content != "from b" {
		t.Errorf("Chat after SetHost = %q, %v; want b's answer", second.Message.Content, err)
	}
	if na, nb := len(a.Requests()), len(b.Requests()); na != 1 || nb != 1 {
		t.Errorf("chat requests: a got %d, b got %d; want 1 each", na, nb)
	}
	models, err := c.Models(context.Background())
	if err != nil || len(models) != 1 || models[0].ContextLength != 4096 {
		t.Errorf("Models() at b = %+v, %v", models, err)
	}

	// An error names the server the call went to.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := l.Addr().String()
	l.Close()
	c.SetHost(gone)
	var unreachable *ollama.UnreachableError
	if _, err := c.Version(context.Background()); !errors.As(err, &unreachable) || unreachable.Host != "http://"+gone {
		t.Errorf("Version() at a closed port = %v, want an UnreachableError naming http://%s", err, gone)
	}
}

// Calls and SetHost from many goroutines at once (run with -race): each
// call sees one whole host.
func TestSetHostWhileCallsRun(t *testing.T) {
	a, b := ollamatest.New(t), ollamatest.New(t)
	a.SetVersion("a")
	b.SetVersion("b")
	c := ollama.New(a.URL(), nil)
	want := map[string]string{a.URL(): "a", b.URL(): "b"}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 20 {
				if i == 0 {
					c.SetHost([]string{a.URL(), b.URL()}[j%2])
					continue
				}
				v, host, err := c.VersionAt(context.Background())
				if err != nil || want[host] != v {
					t.Errorf("VersionAt() = %q from %q, %v", v, host, err)
				}
			}
		}()
	}
	wg.Wait()
}
