// Package ollamatest is a fake Ollama HTTP server for tests. It speaks
// Ollama's wire format (NDJSON streaming of /api/chat with tool calls, ids,
// thinking, done_reason and metrics; /api/tags, /api/show, /api/version and
// the "Ollama is running" root) with its own wire structs, and answers chat
// requests from a script: a queue of Replies, or a Respond func. Replies can
// fail the way Ollama and networks fail: an HTTP error status, an error line
// mid-stream, a cut connection, a stall.
//
// The wording of its errors is copied from Ollama v0.17.4's server/routes.go,
// so a client that recognises the fake's errors recognises the real ones.
package ollamatest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
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
}

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
// "1B", quantization "Q4_K_M", a fixed modification time. Adding a model
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
		m.Template = "{{- range .Messages }}<|{{ .Role }}|>{{ .Content }}{{ end }}<|assistant|>"
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

func (s *Server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "Ollama is running")
	})
	mux.HandleFunc("GET /api/version", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		v := s.version
		s.mu.Unlock()
		writeJSON(w, http.StatusOK, versionBody{Version: v})
	})
	mux.HandleFunc("GET /api/tags", s.tags)
	mux.HandleFunc("POST /api/show", s.show)
	mux.HandleFunc("POST /api/chat", s.chat)
	return mux
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"ollamatest: `+err.Error()+`"}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(b)
}

// decodeBody reads a request body the way Ollama's handlers do (gin's
// ShouldBindJSON: one json.Decoder.Decode), so a malformed body gets the
// same words: "unexpected EOF" for a cut-off object, not json.Unmarshal's
// "unexpected end of JSON input".
func decodeBody(body []byte, v any) error {
	return json.NewDecoder(bytes.NewReader(body)).Decode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, errorBody{Error: msg})
}

// normalize gives a model name its default tag, as Ollama does.
func normalize(name string) string {
	if name == "" {
		return ""
	}
	if i := strings.LastIndex(name, ":"); i < 0 || strings.Contains(name[i:], "/") {
		return name + ":latest"
	}
	return name
}

func (s *Server) lookup(name string) (ModelSpec, bool) {
	n := normalize(name)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.models {
		if strings.EqualFold(m.Name, n) {
			return m, true
		}
	}
	return ModelSpec{}, false
}

func details(m ModelSpec) modelDetails {
	return modelDetails{
		Format:            "gguf",
		Family:            m.Family,
		Families:          []string{m.Family},
		ParameterSize:     m.ParameterSize,
		QuantizationLevel: m.Quantization,
	}
}

func (s *Server) tags(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	models := slices.Clone(s.models)
	s.mu.Unlock()
	// Most recently modified first, as Ollama lists them.
	slices.SortStableFunc(models, func(a, b ModelSpec) int { return b.ModifiedAt.Compare(a.ModifiedAt) })
	out := listBody{Models: []listModel{}}
	for _, m := range models {
		sum := sha256.Sum256([]byte(m.Name))
		out.Models = append(out.Models, listModel{
			Name:       m.Name,
			Model:      m.Name,
			ModifiedAt: m.ModifiedAt.Format(time.RFC3339Nano),
			Size:       m.Size,
			Digest:     hex.EncodeToString(sum[:]),
			Details:    details(m),
		})
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) show(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if len(bytes.TrimSpace(body)) == 0 {
		writeError(w, http.StatusBadRequest, "missing request body")
		return
	}
	var req showRequest
	if err := decodeBody(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if req.Model == "" {
		req.Model = req.Name
	}
	if req.Model == "" {
		writeError(w, http.StatusBadRequest, "model is required")
		return
	}
	m, ok := s.lookup(req.Model)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", req.Model))
		return
	}
	info := map[string]any{
		"general.architecture":    m.Family,
		"general.parameter_count": 1_000_000_000,
	}
	if m.ContextLength > 0 {
		info[m.Family+".context_length"] = m.ContextLength
	}
	writeJSON(w, http.StatusOK, showBody{
		Modelfile:    "# Modelfile generated by \"ollama show\"\nFROM " + m.Name + "\n",
		Template:     m.Template,
		Details:      details(m),
		ModelInfo:    info,
		Capabilities: m.Capabilities,
		ModifiedAt:   m.ModifiedAt.Format(time.RFC3339Nano),
	})
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req ChatRequest
	decodeErr := decodeBody(body, &req)

	s.mu.Lock()
	seq := len(s.received) + 1
	rec := Received{Seq: seq, Header: r.Header.Clone(), Body: body}
	if decodeErr == nil {
		rec.Chat = req
	}
	s.received = append(s.received, rec)
	s.mu.Unlock()

	// Validation in the order Ollama's ChatHandler does it, with its words.
	switch {
	case len(bytes.TrimSpace(body)) == 0:
		writeError(w, http.StatusBadRequest, "missing request body")
		return
	case decodeErr != nil:
		writeError(w, http.StatusBadRequest, decodeErr.Error())
		return
	case req.Model == "":
		writeError(w, http.StatusBadRequest, "model is required")
		return
	}
	m, ok := s.lookup(req.Model)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", req.Model))
		return
	}
	if req.ThinkOn() && !slices.Contains(m.Capabilities, "thinking") {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("%q does not support thinking", req.Model))
		return
	}
	if len(req.Tools) > 0 && !slices.Contains(m.Capabilities, "tools") {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("registry.ollama.ai/library/%s does not support tools", m.Name))
		return
	}
	if len(req.Messages) == 0 {
		// Ollama only loads the model and says so.
		writeJSON(w, http.StatusOK, ChatResponse{
			Model: req.Model, CreatedAt: s.now(),
			Message: Message{Role: "assistant"}, Done: true, DoneReason: "load",
		})
		return
	}

	reply := s.next(req, seq)
	if err := reply.check(); err != nil {
		reply = Reply{RawLines: []string{errorLine("ollamatest: bad scripted reply for chat request #%d: %v", seq, err)}}
	}
	lines, err := s.lines(req, reply, len(body))
	if err != nil {
		lines = []line{{raw: []byte(errorLine("ollamatest: %v", err))}}
	}
	if req.Streaming() {
		s.stream(w, r, reply, lines)
	} else {
		s.whole(w, r, reply, lines)
	}
}

func errorLine(format string, args ...any) string {
	b, _ := json.Marshal(errorBody{Error: fmt.Sprintf(format, args...)})
	return string(b)
}

// next takes the reply for a request: the queue first, then the responder,
// else an error line that tells the test author the script ran out.
func (s *Server) next(req ChatRequest, seq int) Reply {
	s.mu.Lock()
	if len(s.queue) > 0 {
		r := s.queue[0]
		s.queue = s.queue[1:]
		s.mu.Unlock()
		return r
	}
	f := s.responder
	s.mu.Unlock()
	if f != nil {
		s.respondMu.Lock()
		defer s.respondMu.Unlock()
		return f(req)
	}
	return Reply{RawLines: []string{errorLine(
		"ollamatest: the script ran out: chat request #%d (model %q) has no scripted reply; queue one with Script or set Respond",
		seq, req.Model)}}
}

func (s *Server) now() string {
	s.mu.Lock()
	clock := s.clock
	s.mu.Unlock()
	return clock().UTC().Format(time.RFC3339Nano)
}

// line is one NDJSON line to send: a response stamped with created_at when
// it is sent, or raw bytes.
type line struct {
	resp *ChatResponse
	raw  []byte
}

func (s *Server) render(l line) []byte {
	if l.resp == nil {
		return l.raw
	}
	r := *l.resp
	r.CreatedAt = s.now()
	b, err := json.Marshal(r)
	if err != nil {
		return []byte(errorLine("ollamatest: encode line: %v", err))
	}
	return b
}

// lines turns a reply into the NDJSON lines Ollama would stream.
func (s *Server) lines(req ChatRequest, r Reply, bodyLen int) ([]line, error) {
	if r.RawLines != nil {
		out := make([]line, len(r.RawLines))
		for i, l := range r.RawLines {
			out[i] = line{raw: []byte(l)}
		}
		return out, nil
	}
	var resps []ChatResponse
	newLine := func(m Message) ChatResponse {
		m.Role = "assistant"
		return ChatResponse{Model: req.Model, Message: m}
	}
	for _, c := range r.Chunks {
		resps = append(resps, newLine(Message{Content: c.Content, Thinking: c.Thinking}))
	}
	var calls []ToolCall
	for i, c := range r.ToolCalls {
		id := c.ID
		if id == "" {
			s.mu.Lock()
			s.nextID++
			id = fmt.Sprintf("call_%08d", s.nextID)
			s.mu.Unlock()
		}
		args := c.Args
		if args == "" {
			args = "{}"
		}
		calls = append(calls, ToolCall{ID: id, Function: ToolCallFunction{Index: i, Name: c.Name, Arguments: json.RawMessage(args)}})
	}
	if len(calls) > 0 {
		if r.SplitToolCalls {
			for _, c := range calls {
				resps = append(resps, newLine(Message{ToolCalls: []ToolCall{c}}))
			}
		} else {
			resps = append(resps, newLine(Message{ToolCalls: calls}))
		}
	}
	done := newLine(Message{})
	done.Done = true
	done.DoneReason = r.DoneReason
	if done.DoneReason == "" {
		done.DoneReason = "stop"
	}
	m := r.Metrics
	if m == nil {
		evals := len(r.Chunks) + len(r.ToolCalls)
		m = &Metrics{
			LoadDuration:       time.Millisecond,
			PromptEvalCount:    max(1, bodyLen/4),
			PromptEvalDuration: 2 * time.Millisecond,
			EvalCount:          max(1, evals),
			EvalDuration:       time.Duration(max(1, evals)) * time.Millisecond,
		}
		m.TotalDuration = m.LoadDuration + m.PromptEvalDuration + m.EvalDuration + time.Millisecond
	}
	done.TotalDuration = int64(m.TotalDuration)
	done.LoadDuration = int64(m.LoadDuration)
	done.PromptEvalCount = m.PromptEvalCount
	done.PromptEvalDuration = int64(m.PromptEvalDuration)
	done.EvalCount = m.EvalCount
	done.EvalDuration = int64(m.EvalDuration)
	resps = append(resps, done)

	out := make([]line, len(resps))
	for i := range resps {
		if _, err := json.Marshal(resps[i]); err != nil {
			return nil, fmt.Errorf("encode line %d: %w", i, err)
		}
		out[i] = line{resp: &resps[i]}
	}
	return out, nil
}

// wait sleeps d, or less if the request or the server ends first. It
// reports whether the full time passed.
func (s *Server) wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
	case <-s.closing:
	}
	return false
}

func (s *Server) stall(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.closing:
	}
}

// abort drops the connection without finishing the response.
func abort(w http.ResponseWriter) {
	http.NewResponseController(w).Flush()
	panic(http.ErrAbortHandler)
}

func (s *Server) stream(w http.ResponseWriter, r *http.Request, reply Reply, lines []line) {
	f := reply.Fault
	if f != nil && f.Kind == FaultHTTP {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(f.Status)
		io.WriteString(w, f.Body)
		return
	}
	rc := http.NewResponseController(w)
	wrote := false
	for i := 0; i <= len(lines); i++ {
		if f != nil && min(f.After, len(lines)) == i {
			switch f.Kind {
			case FaultErrorLine:
				if !wrote {
					// Nothing sent yet: Ollama turns the error into a status.
					writeError(w, http.StatusInternalServerError, f.Message)
					return
				}
				w.Write(append([]byte(errorLine("%s", f.Message)), '\n'))
				rc.Flush()
				return
			case FaultCut:
				abort(w)
			case FaultStall:
				s.stall(r)
				return
			}
		}
		if i == len(lines) {
			return
		}
		if i > 0 && !s.wait(r, reply.Delay) {
			return
		}
		if !wrote {
			w.Header().Set("Content-Type", "application/x-ndjson")
			w.WriteHeader(http.StatusOK)
			wrote = true
		}
		if _, err := w.Write(append(s.render(lines[i]), '\n')); err != nil {
			return
		}
		rc.Flush()
	}
}

// whole answers a stream:false request with one JSON object: the lines
// joined the way Ollama's ChatHandler joins them.
func (s *Server) whole(w http.ResponseWriter, r *http.Request, reply Reply, lines []line) {
	if f := reply.Fault; f != nil {
		switch f.Kind {
		case FaultHTTP:
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.WriteHeader(f.Status)
			io.WriteString(w, f.Body)
		case FaultErrorLine:
			writeError(w, http.StatusInternalServerError, f.Message)
		case FaultCut:
			abort(w)
		case FaultStall:
			s.stall(r)
		}
		return
	}
	if !s.wait(r, reply.Delay) {
		return
	}
	var final ChatResponse
	var content, thinking strings.Builder
	var calls []ToolCall
	for _, ln := range lines {
		l := s.render(ln)
		var cr ChatResponse
		var e errorBody
		if json.Unmarshal(l, &e) == nil && e.Error != "" {
			writeError(w, http.StatusInternalServerError, e.Error)
			return
		}
		if err := json.Unmarshal(l, &cr); err != nil {
			writeError(w, http.StatusInternalServerError, "ollamatest: raw line is not a chat response: "+err.Error())
			return
		}
		content.WriteString(cr.Message.Content)
		thinking.WriteString(cr.Message.Thinking)
		calls = append(calls, cr.Message.ToolCalls...)
		final = cr
	}
	final.Message.Content = content.String()
	final.Message.Thinking = thinking.String()
	final.Message.ToolCalls = calls
	writeJSON(w, http.StatusOK, final)
}
