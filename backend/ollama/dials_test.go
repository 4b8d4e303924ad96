package ollama_test

import (
	"context"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
)

func hostPort(t *testing.T, raw string) (string, string) {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	h, p, err := net.SplitHostPort(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	return h, p
}

func connectionTo(cs []ollama.Connection, host, port string) (ollama.Connection, bool) {
	for _, c := range cs {
		if c.Host == host && c.Port == port {
			return c, true
		}
	}
	return ollama.Connection{}, false
}

// Every connection a client opens is counted at the address it dialled:
// a chat to one fake server shows that server's host and port once (the
// connection is kept for the next request), a second server reached
// through At shows on its own line, and a dead address is counted as a
// failed try. Nothing else appears.
func TestConnectionsAreCountedByAddress(t *testing.T) {
	a, b := ollamatest.New(t), ollamatest.New(t)
	for _, s := range []*ollamatest.Server{a, b} {
		s.AddModel(ollamatest.ModelSpec{Name: "m", ContextLength: 4096})
		s.Script(ollamatest.Text("one"), ollamatest.Text("two"))
	}
	ctx := context.Background()
	c := ollama.New(a.URL(), nil)
	if got := c.Connections(); len(got) != 0 {
		t.Fatalf("a new client lists %v, want no connection", got)
	}
	req := llm.Request{Model: "m", Options: llm.Options{NumCtx: 4096}, Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}
	for range 2 {
		if _, err := c.Chat(ctx, req, nil); err != nil {
			t.Fatal(err)
		}
	}
	ah, ap := hostPort(t, a.URL())
	got, ok := connectionTo(c.Connections(), ah, ap)
	if !ok || got.Count != 1 || got.Failed != 0 || !got.Loopback {
		t.Fatalf("after two chats to a: %+v, want one loopback connection to %s:%s", c.Connections(), ah, ap)
	}

	other := c.At(b.URL())
	if _, err := other.Chat(ctx, req, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Version(ctx); err != nil {
		t.Fatal(err)
	}
	bh, bp := hostPort(t, b.URL())
	list := c.Connections()
	if len(list) != 2 {
		t.Fatalf("after a chat to b: %+v, want a and b apart", list)
	}
	if got, ok := connectionTo(list, bh, bp); !ok || got.Count < 1 || got.Failed != 0 {
		t.Errorf("b: %+v, want its own line with a connection", list)
	}
	if got, _ := connectionTo(list, ah, ap); got.Count != 1 {
		t.Errorf("a after b: %+v, want still 1", got)
	}
	if len(a.Requests()) != 2 || len(b.Requests()) != 1 {
		t.Errorf("a got %d chats and b %d, want 2 and 1", len(a.Requests()), len(b.Requests()))
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close()
	if _, err := c.At("http://" + dead).Version(ctx); err == nil {
		t.Fatal("a dead address answered")
	}
	dh, dp, _ := net.SplitHostPort(dead)
	if got, ok := connectionTo(c.Connections(), dh, dp); !ok || got.Failed != 1 || got.Count != 1 || !got.Loopback {
		t.Errorf("dead address: %+v, want one failed loopback try", c.Connections())
	}
}

// A connection that reaches another machine is not loopback; one to a
// name of this machine that fails still is.
func TestLoopbackIsWhereTheConnectionWent(t *testing.T) {
	d := ollama.NewDials()
	hc := d.HTTPClient()
	srv := ollamatest.New(t)
	_, port := hostPort(t, srv.URL())
	// localhost resolves to loopback: the connection reached it.
	resp, err := hc.Get("http://localhost:" + port + "/api/version")
	if err == nil {
		resp.Body.Close()
	}
	got, ok := connectionTo(d.List(), "localhost", port)
	if !ok || !got.Loopback || got.Count != 1 {
		t.Fatalf("localhost: %+v", d.List())
	}
	if !strings.HasPrefix(got.Remote, "127.0.0.1:") && !strings.HasPrefix(got.Remote, "[::1]:") {
		t.Errorf("localhost reached %q, want a loopback address", got.Remote)
	}
	// 192.0.2.0/24 is TEST-NET-1: never routed, so the dial fails (or
	// times out) without leaving the machine, and it is not loopback.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := ollama.New("http://192.0.2.1:11434", hc).Version(ctx); err == nil {
		t.Fatal("TEST-NET answered")
	}
	if got, ok := connectionTo(d.List(), "192.0.2.1", "11434"); !ok || got.Loopback || got.Failed != 1 {
		t.Errorf("192.0.2.1 counted as loopback: %+v", got)
	}
}

// Dialling is the ollama package's transport alone: no other code of the
// app may open a connection of its own (an HTTP client, a dialer, the
// default transport), or the connection list would not be every
// connection Loupe makes. Test code and the test servers are left out.
func TestNothingElseDials(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	dialing := regexp.MustCompile(`net\.Dial|net\.Dialer|tls\.Dial|http\.(Get|Post|PostForm|Head)\(|http\.DefaultClient|http\.DefaultTransport|http\.Client\{|http\.Transport\{|ClientFromEnvironment|unix\.Connect\(|syscall\.Connect\(|websocket`)
	allowed := map[string]bool{filepath.Join("backend", "ollama", "dials.go"): true}
	var found []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", "testkit", "ollamatest", "bench", "frontend", "e2e", ".git", "build":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || allowed[rel] {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if code, _, _ := strings.Cut(line, "//"); dialing.MatchString(code) {
				found = append(found, rel+":"+strconv.Itoa(i+1)+": "+strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) > 0 {
		t.Errorf("code outside backend/ollama/dials.go opens connections of its own; send them through ollama.Dials so they are counted:\n%s", strings.Join(found, "\n"))
	}
}
