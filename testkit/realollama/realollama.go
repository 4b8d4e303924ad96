// Package realollama runs a real Ollama server for tests: the version go.mod
// pins, built once by scripts/real-ollama/build.sh and cached, serving on a
// free loopback port with its own model and home folders, and models made from
// gguf.Script so its replies are scripted.
//
// Tests of this tier call Require first, so that a plain `go test ./...` skips
// them with a reason; with LOUPE_REAL_OLLAMA=1 they run, and a server that
// cannot be built or started fails the test, never skips it.
//
// Outside `go test` (testkit/cmd/scripted-ollama), Launch, Create and Close do
// the same without a testing.TB.
package realollama

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/testkit/gguf"
	"github.com/loupe-dev/loupe/testkit/realproc"
)

// EnvVar turns the real Ollama tier on when set to 1.
const EnvVar = "LOUPE_REAL_OLLAMA"

// BinEnvVar names an ollama binary to use instead of the one build.sh caches.
const BinEnvVar = "LOUPE_OLLAMA_BIN"

// SkipReason is what tests of this tier say when they are not requested.
const SkipReason = "real Ollama tier not requested; run scripts/real-ollama/test.sh or set LOUPE_REAL_OLLAMA=1"

// Require skips the test unless the real Ollama tier was requested.
func Require(t testing.TB) {
	t.Helper()
	if os.Getenv(EnvVar) != "1" {
		t.Skip(SkipReason)
	}
}

// startTimeout bounds how long a started server may take to answer.
const startTimeout = 30 * time.Second

// Server is a running `ollama serve` with its own folders, owned by one test
// or one program.
type Server struct {
	bin    string
	dir    string // models/, home/, src/ and server.log live here
	ownDir bool   // dir was made by Launch, and Close removes it
	addr   string // 127.0.0.1:port, kept across Restart

	mu   sync.Mutex
	proc *realproc.Proc // nil when the server is not running
}

// Start starts a server and stops it when the test ends. It fails the test
// if the binary cannot be had or the server does not come up.
func Start(t testing.TB) *Server {
	t.Helper()
	s, err := launch(t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	// Registered after TempDir, so it runs before the folder is removed.
	t.Cleanup(func() {
		s.Kill()
		if t.Failed() {
			t.Logf("realollama: end of the server log:\n%s", s.logTail(8<<10))
		}
		s.Close()
	})
	return s
}

// LaunchAt starts a server on addr (host:port), in a new temporary folder
// that Close removes. The caller must Close it: the server and its model
// runners are processes of their own, which outlive the caller otherwise.
// "" picks a free loopback port.
func LaunchAt(addr string) (*Server, error) {
	dir, err := os.MkdirTemp("", "loupe-ollama-")
	if err != nil {
		return nil, fmt.Errorf("realollama: %w", err)
	}
	s, err := launch(dir, addr)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s.ownDir = true
	return s, nil
}

// launch starts a server whose folders live in dir, on addr or, when addr is
// "", on a free loopback port.
func launch(dir, addr string) (*Server, error) {
	bin, err := Binary()
	if err != nil {
		return nil, fmt.Errorf("realollama: no Ollama server binary: %w", err)
	}
	s := &Server{bin: bin, dir: dir}
	for _, d := range []string{"models", "home", "src"} {
		if err := os.MkdirAll(filepath.Join(s.dir, d), 0o755); err != nil {
			return nil, fmt.Errorf("realollama: %w", err)
		}
	}
	if addr != "" {
		s.addr = addr
		if err := s.start(); err != nil {
			return nil, fmt.Errorf("realollama: server did not start on %s: %v\nend of the server log:\n%s", addr, err, s.logTail(8<<10))
		}
		return s, nil
	}
	err = realproc.OnFreePorts(1, func(addrs []string) error {
		s.addr = addrs[0]
		return s.start()
	})
	if err != nil {
		return nil, fmt.Errorf("realollama: server did not start: %v\nend of the server log:\n%s", err, s.logTail(8<<10))
	}
	return s, nil
}

// Close kills the server and its model runners (see Kill) and, for a server
// from Launch, removes its folder, after which it cannot be restarted.
// Calling it again does nothing.
func (s *Server) Close() error {
	s.Kill()
	if s.ownDir {
		return os.RemoveAll(s.dir)
	}
	return nil
}

// PID is the process id of `ollama serve`, which leads a process group of
// its own holding its model runners; 0 when the server is not running.
func (s *Server) PID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return 0
	}
	return s.proc.PID()
}

// URL is the server's base URL, e.g. http://127.0.0.1:41234.
func (s *Server) URL() string { return "http://" + s.addr }

// Dir is the folder holding the server's models, home and log.
func (s *Server) Dir() string { return s.dir }

// Log returns the server's output so far.
func (s *Server) Log() string {
	b, _ := os.ReadFile(s.logPath())
	return string(b)
}

func (s *Server) logPath() string { return filepath.Join(s.dir, "server.log") }

func (s *Server) logTail(n int) string { return realproc.Tail(s.Log(), n) }

// start runs `ollama serve` and waits until /api/version answers.
func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc != nil {
		return errors.New("already running")
	}
	cmd := exec.Command(s.bin, "serve")
	cmd.Dir = s.dir
	cmd.Env = s.env()
	p, err := realproc.Start(cmd, s.logPath())
	if err != nil {
		return err
	}
	up := func() bool { _, err := s.Version(); return err == nil }
	if err := p.WaitUp(startTimeout, 20*time.Millisecond, up); err != nil {
		p.Kill()
		return fmt.Errorf("%v (asking %s/api/version)", err, s.URL())
	}
	s.proc = p
	return nil
}

// env is the test process's environment without OLLAMA_* settings (a
// developer's OLLAMA_HOST must not leak in), plus this server's own.
func (s *Server) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "OLLAMA_") && !strings.HasPrefix(kv, "OLLAMA_DEBUG=") {
			continue
		}
		if strings.HasPrefix(kv, "HOME=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"OLLAMA_HOST="+s.addr,
		"OLLAMA_MODELS="+filepath.Join(s.dir, "models"),
		"HOME="+filepath.Join(s.dir, "home"),
		"OLLAMA_NOPRUNE=1",
		"OLLAMA_NO_CLOUD=1",
	)
}

// Kill ends the server and its model runners at once (SIGKILL), as a crash
// would, and waits until they are gone. Streams in flight break off. It does
// nothing if the server is not running.
func (s *Server) Kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return
	}
	s.proc.Kill()
	s.proc = nil
}

// Restart kills the server if it runs and starts it again on the same address
// with the same models.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.Kill()
	if err := s.start(); err != nil {
		t.Fatalf("realollama: restart: %v\nend of the server log:\n%s", err, s.logTail(8<<10))
	}
}

// Running reports whether the server process is alive.
func (s *Server) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc != nil && !s.proc.Exited()
}

var quick = &http.Client{Timeout: 2 * time.Second}

// Version asks the server for its version.
func (s *Server) Version() (string, error) {
	resp, err := quick.Get(s.URL() + "/api/version")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var v struct{ Version string }
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("/api/version: %s", resp.Status)
	}
	return v.Version, nil
}

// CreateModel creates model name from a script (see Create), failing the test
// if it cannot.
func (s *Server) CreateModel(t testing.TB, name string, sc gguf.Script) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.Create(ctx, name, sc); err != nil {
		t.Fatal(err)
	}
}

// Create creates model name from a script, replacing one of that name: it
// writes the GGUF file and a Modelfile (kept under Dir()/src/NAME for
// reproducing by hand with `ollama create`), uploads the GGUF as a blob and
// calls /api/create.
func (s *Server) Create(ctx context.Context, name string, sc gguf.Script) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("realollama: model %s: %s", name, fmt.Sprintf(format, args...))
	}
	src := filepath.Join(s.dir, "src", strings.NewReplacer("/", "_", ":", "_").Replace(name))
	if err := os.MkdirAll(src, 0o755); err != nil {
		return fail("%v", err)
	}
	var model bytes.Buffer
	if err := gguf.Write(&model, sc); err != nil {
		return fail("%v", err)
	}
	ggufPath := filepath.Join(src, "model.gguf")
	if err := os.WriteFile(ggufPath, model.Bytes(), 0o644); err != nil {
		return fail("%v", err)
	}
	if err := os.WriteFile(filepath.Join(src, "Modelfile"), []byte(sc.Modelfile(ggufPath)), 0o644); err != nil {
		return fail("%v", err)
	}

	sum := sha256.Sum256(model.Bytes())
	digest := "sha256:" + hex.EncodeToString(sum[:])
	if _, err := s.post(ctx, "/api/blobs/"+digest, "application/octet-stream", model.Bytes()); err != nil {
		return fail("upload: %v", err)
	}
	stream := false
	req, _ := json.Marshal(map[string]any{
		"model":      name,
		"files":      map[string]string{"model.gguf": digest},
		"template":   sc.Template(),
		"parameters": sc.Parameters(),
		"stream":     &stream,
	})
	body, err := s.post(ctx, "/api/create", "application/json", req)
	if err != nil {
		return fail("create: %v", err)
	}
	var status struct{ Status, Error string }
	if err := json.Unmarshal(body, &status); err != nil || status.Status != "success" {
		return fail("create: unexpected answer %s", body)
	}
	return nil
}

// post sends body and returns the answer, or an error for any status but 2xx.
func (s *Server) post(ctx context.Context, path, contentType string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return out, fmt.Errorf("%s: %s: %s", path, resp.Status, bytes.TrimSpace(out))
	}
	return out, nil
}

// Binary returns the path of the Ollama server binary: $LOUPE_OLLAMA_BIN if
// set, else what scripts/real-ollama/build.sh prints (it builds the pinned
// version the first time, which takes minutes, and answers at once after).
// The answer is remembered for the life of the test binary.
func Binary() (string, error) { return binary() }

// Progress goes to the terminal as it happens: the first build is long.
var binary = sync.OnceValues(func() (string, error) {
	return realproc.Binary(BinEnvVar, "scripts/real-ollama/build.sh", os.Stderr)
})
