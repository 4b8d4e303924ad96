package ollamatest

import (
	"net"
	"net/http"
	"net/http/httptest"
)

// This file serves cmd/fakeollama's long runs: benchmarks that send
// thousands of requests, each with the whole history.

// StartWrapped is Start with the fake's handler wrapped by wrap, so that a
// command can look at (or reshape) requests before the fake answers them.
func StartWrapped(addr string, wrap func(http.Handler) http.Handler) (*Server, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := newServer()
	s.ts = httptest.NewUnstartedServer(wrap(s.handler()))
	s.ts.Listener.Close()
	s.ts.Listener = l
	s.ts.Start()
	return s, nil
}

// ForgetRequests drops the chat requests recorded so far, so that a fake
// serving long conversations does not keep every body it was sent.
// Requests and Seq then count again from the next request.
func (s *Server) ForgetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.received = nil
}
