// Package ollamatest is a fake Ollama HTTP server for tests. It speaks
// Ollama's wire format (NDJSON streaming of /api/chat with tool calls, ids,
// thinking, done_reason and metrics; /api/tags, /api/show, /api/ps,
// /api/version, /api/pull's streamed progress, /api/delete and the
// "Ollama is running" root) with its own wire structs, and answers chat
// requests from a script: a queue of Replies, or a Respond func. Replies can
// fail the way Ollama and networks fail: an HTTP error status, an error line
// mid-stream, a cut connection, a stall.
//
// The wording of its errors is copied from Ollama v0.17.4's server/routes.go,
// so a client that recognises the fake's errors recognises the real ones.
package ollamatest

import (
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"
)

// DefaultVersion is what /api/version reports unless SetVersion changes it:
// the Ollama version whose wire format the fake copies.
const DefaultVersion = "0.17.4"

// Received is one /api/chat request as the fake received it.
type Received struct {
	// Seq counts chat requests from 1.
	Seq    int
	Header http.Header
	// Body is the exact bytes of the request body.
	Body []byte
	// Chat is Body decoded; zero if it did not decode.
	Chat ChatRequest
	// TooLong: the prompt did not fit num_ctx and was refused (truncate
	// false), so no scripted reply was used for it.
	TooLong bool
}

// InputTooLong is what Ollama v0.17.4 answers (HTTP 400) for a chat whose
// prompt is longer than num_ctx when the request sets truncate false.
const InputTooLong = "the input length exceeds the context length"

// Server is a running fake Ollama. Its methods are safe to call while
// requests are being served.
type Server struct {
	ts      *httptest.Server
	closing chan struct{}
	once    sync.Once

	mu        sync.Mutex
	version   string
	models    []ModelSpec
	queue     []Reply
	responder func(ChatRequest) Reply
	received  []Received
	clock     func() time.Time
	nextID    int
	hungUp    map[int]chan struct{}
	// loaded are the models a chat request loaded, by name (see ps.go).
	loaded map[string]loaded

	// The registry /api/pull installs from (pull.go).
	pullable  map[string]Pullable
	pullDelay time.Duration
	offline   bool
	pullCut   map[string]chan struct{}

	respondMu sync.Mutex // serialises responder calls
}

// New starts a fake on a free loopback port and closes it when the test
// ends.
func New(t testing.TB) *Server {
	t.Helper()
	s := newServer()
	s.ts = httptest.NewServer(s.handler())
	t.Cleanup(s.Close)
	return s
}

// Start starts a fake listening on addr ("127.0.0.1:0" for any free port),
// for use outside tests such as cmd/fakeollama. Call Close to stop it.
func Start(addr string) (*Server, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := newServer()
	s.ts = httptest.NewUnstartedServer(s.handler())
	s.ts.Listener.Close()
	s.ts.Listener = l
	s.ts.Start()
	return s, nil
}

func newServer() *Server {
	return &Server{
		closing: make(chan struct{}),
		version: DefaultVersion,
		clock:   time.Now,
	}
}

// URL is the server's base URL, e.g. "http://127.0.0.1:41234".
func (s *Server) URL() string { return s.ts.URL }

// Close releases stalled replies and stops the server, waiting for requests
// in flight to end.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.closing)
		s.ts.Close()
	})
}

// SetVersion sets what /api/version reports.
func (s *Server) SetVersion(v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.version = v
}

// SetClock sets the clock used for created_at, e.g. a fixed time for golden
// files.
func (s *Server) SetClock(now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clock = now
}

// AddModel installs a model. A name without a tag gets ":latest", as in
// Ollama; requests may name it with or without that tag. Defaults: family
// "llama", capabilities completion and tools, size 1 GiB, parameter size
// "1B", quantization "Q4_K_M", ChatMLTemplate, a fixed modification time. Adding a model
// with the same name replaces it.
func (s *Server) AddModel(m ModelSpec) {
	m.Name = normalize(m.Name)
	if m.Family == "" {
		m.Family = "llama"
	}
	if m.Capabilities == nil {
		m.Capabilities = []string{"completion", "tools"}
	}
	if m.Size == 0 {
		m.Size = 1 << 30
	}
	if m.ParameterSize == "" {
		m.ParameterSize = "1B"
	}
	if m.Quantization == "" {
		m.Quantization = "Q4_K_M"
	}
	if m.Template == "" {
		m.Template = ChatMLTemplate
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if m.ModifiedAt.IsZero() {
		m.ModifiedAt = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Add(-time.Duration(len(s.models)) * time.Hour)
	}
	s.models = slices.DeleteFunc(s.models, func(o ModelSpec) bool { return o.Name == m.Name })
	s.models = append(s.models, m)
}

// Script queues replies; each /api/chat request that generates (has
// messages) takes the next one. Queued replies are used before a Respond
// func.
func (s *Server) Script(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

// Respond sets a func that answers chat requests once the queue is empty.
// Calls to it are serialised.
func (s *Server) Respond(f func(req ChatRequest) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.responder = f
}

// Pending is the number of queued replies not yet requested.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Requests returns the /api/chat requests received so far, in order.
func (s *Server) Requests() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.received)
}

// HungUp returns a channel that is closed once the client of chat request
// seq (see Received.Seq) has gone away before the fake finished its reply:
// closed the connection or cancelled the request, as a client that gives up
// on a stalled answer must. It may be called before the request arrives.
func (s *Server) HungUp(seq int) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hangUpChan(seq)
}

func (s *Server) hangUp(seq int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.hangUpChan(seq)
	select {
	case <-ch:
	default:
		close(ch)
	}
}

// hangUpChan is request seq's channel; s.mu is held.
func (s *Server) hangUpChan(seq int) chan struct{} {
	if s.hungUp == nil {
		s.hungUp = map[int]chan struct{}{}
	}
	ch, ok := s.hungUp[seq]
	if !ok {
		ch = make(chan struct{})
		s.hungUp[seq] = ch
	}
	return ch
}
