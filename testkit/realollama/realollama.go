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
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/testkit/gguf"
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
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has exited
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
	// Another process may take the free port before the server binds it: try
	// a few ports before giving up.
	var lastErr error
	for range 3 {
		addr, err := freeAddr()
		if err != nil {
			return nil, fmt.Errorf("realollama: no free port: %w", err)
		}
		s.addr = addr
		if lastErr = s.start(); lastErr == nil {
			return s, nil
		}
	}
	return nil, fmt.Errorf("realollama: server did not start: %v\nend of the server log:\n%s", lastErr, s.logTail(8<<10))
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
	if s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	return s.cmd.Process.Pid
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

func (s *Server) logTail(n int) string { return tail(s.Log(), n) }

// start runs `ollama serve` and waits until /api/version answers.
func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return errors.New("already running")
	}
	logf, err := os.OpenFile(s.logPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close() // the child has its own copy

	cmd := exec.Command(s.bin, "serve")
	cmd.Dir = s.dir
	cmd.Env = s.env()
	cmd.Stdout, cmd.Stderr = logf, logf
	ownProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", s.bin, err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	s.cmd, s.done = cmd, done

	deadline := time.Now().Add(startTimeout)
	for {
		if _, err := s.Version(); err == nil {
			return nil
		}
		select {
		case <-done:
			s.cmd, s.done = nil, nil
			return fmt.Errorf("ollama serve exited: %v", cmd.ProcessState)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			killGroup(cmd)
			<-done
			s.cmd, s.done = nil, nil
			return fmt.Errorf("no answer on %s/api/version after %v", s.URL(), startTimeout)
		}
	}
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
	if s.cmd == nil {
		return
	}
	killGroup(s.cmd)
	<-s.done
	s.cmd, s.done = nil, nil
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
	if s.cmd == nil {
		return false
	}
	select {
	case <-s.done:
		return false
	default:
		return true
	}
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

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// Binary returns the path of the Ollama server binary: $LOUPE_OLLAMA_BIN if
// set, else what scripts/real-ollama/build.sh prints (it builds the pinned
// version the first time, which takes minutes, and answers at once after).
// The answer is remembered for the life of the test binary.
func Binary() (string, error) { return binary() }

var binary = sync.OnceValues(func() (string, error) {
	if bin := os.Getenv(BinEnvVar); bin != "" {
		if _, err := os.Stat(bin); err != nil {
			return "", fmt.Errorf("%s=%s: %w", BinEnvVar, bin, err)
		}
		return bin, nil
	}
	script, err := buildScript()
	if err != nil {
		return "", err
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("bash", script)
	cmd.Stdout = &stdout
	// Progress goes to the terminal as it happens: the first build is long.
	cmd.Stderr = io.MultiWriter(os.Stderr, &stderr)
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s failed (%v):\n%s", script, err, tail(stderr.String(), 4<<10))
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	bin := strings.TrimSpace(lines[len(lines)-1])
	if fi, err := os.Stat(bin); err != nil || fi.IsDir() {
		return "", fmt.Errorf("%s printed %q, which is not a binary", script, bin)
	}
	return bin, nil
})

// buildScript finds scripts/real-ollama/build.sh above the working directory
// (go test runs in the package folder) or, failing that, above this file.
func buildScript() (string, error) {
	const rel = "scripts/real-ollama/build.sh"
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if _, file, _, ok := runtime.Caller(0); ok {
		starts = append(starts, filepath.Dir(file))
	}
	for _, dir := range starts {
		for {
			p := filepath.Join(dir, rel)
			if _, err := os.Stat(p); err == nil {
				return p, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", fmt.Errorf("cannot find %s above %v; set %s to an ollama binary", rel, starts, BinEnvVar)
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
