package realscenarios_test

import (
	"bytes"
	"context"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/gguf"
	"github.com/loupe-dev/loupe/testkit/golden"
	"github.com/loupe-dev/loupe/testkit/realollama"
	"github.com/loupe-dev/loupe/testkit/workdir"
)

var update = flag.Bool("update", false, "rewrite the golden event logs in testdata/golden")

// modelName is the name every scenario gives its scripted model.
const modelName = "scripted"

// startServer starts a real Ollama server for the test with one scripted
// model installed as modelName. It skips unless the real tier is on.
func startServer(t testing.TB, sc gguf.Script) *realollama.Server {
	t.Helper()
	realollama.Require(t)
	srv := realollama.Start(t)
	createModel(t, srv, modelName, sc)
	return srv
}

// rig is one session wired like the app, against a real Ollama server: a
// SQLite file, the real Ollama client (over a transport that records what
// goes over the wire), the built-in tools on a temp workspace, and a sink
// that keeps what the UI would have been sent.
type rig struct {
	t    testing.TB
	srv  *realollama.Server
	st   *store.Store
	m    *session.Manager
	sink *sink
	wire *wire
	ws   string
	id   string
}

// newRig wires a manager to srv with permission mode auto and creates one
// session on a fresh workspace holding README.md and notes.txt.
func newRig(t testing.TB, srv *realollama.Server) *rig {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "loupe.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	r := &rig{t: t, srv: srv, st: st, sink: &sink{}, wire: newWire()}
	r.m = session.NewManager(st, ollama.New(srv.URL(), &http.Client{Transport: r.wire}), permission.NewBroker(), r.sink)
	t.Cleanup(r.m.Close)
	s := settings.Defaults()
	s.PermissionMode = permission.ModeAuto
	if err := settings.Save(context.Background(), st, s); err != nil {
		t.Fatal(err)
	}
	// The system prompt names the folder: its length is in every count.
	r.ws = workdir.Fixed(t)
	r.write("README.md", "# Demo\nhello from the workspace\n")
	r.write("notes.txt", "alpha\nbeta\n")
	r.id = r.newSession()
	return r
}

func (r *rig) newSession() string {
	r.t.Helper()
	out, err := r.m.Do(context.Background(), session.Create{Workspace: r.ws, Model: modelName})
	if err != nil {
		r.t.Fatal(err)
	}
	return out.Summary.ID
}

// waitEnd waits for the session's run, started in the background (Send),
// to write its end.
func (r *rig) waitEnd() {
	r.t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if evs := r.events(); len(evs) > 0 && evs[len(evs)-1].Kind == trace.KindRunEnd {
			return
		}
	}
	r.t.Fatal("the run did not end within 2 minutes")
}

func (r *rig) write(name, content string) {
	r.t.Helper()
	p := filepath.Join(r.ws, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rig) read(name string) string {
	r.t.Helper()
	b, err := os.ReadFile(filepath.Join(r.ws, name))
	if err != nil {
		r.t.Fatal(err)
	}
	return string(b)
}

// run sends text to the session and waits for the run to end.
func (r *rig) run(text string) trace.RunEnd {
	r.t.Helper()
	end, err := r.m.Run(context.Background(), r.id, text, session.RunOptions{})
	if err != nil {
		r.t.Fatalf("run %q: %v", text, err)
	}
	return end
}

func (r *rig) events() []trace.Event {
	r.t.Helper()
	evs, err := r.st.Events(context.Background(), r.id)
	if err != nil {
		r.t.Fatal(err)
	}
	return evs
}

// checkRawRequests proves that each model_request of the log, rebuilt by
// Manager.RawRequest, is byte for byte the body the client sent to the real
// server, and returns the rebuilt bodies.
func (r *rig) checkRawRequests() []string {
	r.t.Helper()
	sent := r.wire.chatBodies()
	var raws []string
	for _, e := range r.events() {
		if e.Kind != trace.KindModelRequest {
			continue
		}
		raw, err := session.RawRequest(context.Background(), r.st, r.id, e.Seq)
		if err != nil {
			r.t.Fatal(err)
		}
		n := len(raws)
		if n >= len(sent) {
			r.t.Fatalf("model_request %d (seq %d) has no body on the wire (%d sent)", n+1, e.Seq, len(sent))
		}
		if raw != string(sent[n]) {
			r.t.Fatalf("model_request %d: rebuilt body differs from the body sent\nrebuilt: %s\nsent:    %s", n+1, raw, sent[n])
		}
		raws = append(raws, raw)
	}
	if len(raws) != len(sent) {
		r.t.Fatalf("%d model_request events but %d chat requests on the wire", len(raws), len(sent))
	}
	return raws
}

// wire is the Ollama client's transport: it keeps the /api/chat request
// bodies, adds up the time spent in HTTP exchanges with Ollama (request
// sent → response body ended), and lets a test watch a chat answer's bytes
// as the client reads them.
type wire struct {
	base http.RoundTripper

	mu     sync.Mutex
	chats  [][]byte
	busy   time.Duration
	onRead func(soFar []byte)
	onSend func() // called when a chat request is about to be sent
}

func newWire() *wire {
	t := http.DefaultTransport.(*http.Transport).Clone()
	return &wire{base: t}
}

func (w *wire) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	chat := req.URL.Path == "/api/chat"
	if chat && req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(b))
		w.mu.Lock()
		w.chats = append(w.chats, b)
		onSend := w.onSend
		w.mu.Unlock()
		if onSend != nil {
			onSend()
		}
	}
	resp, err := w.base.RoundTrip(req)
	if err != nil {
		w.add(time.Since(start))
		return resp, err
	}
	tb := &timedBody{rc: resp.Body, w: w, start: start}
	if chat {
		w.mu.Lock()
		tb.watch = w.onRead
		w.mu.Unlock()
	}
	resp.Body = tb
	return resp, nil
}

func (w *wire) add(d time.Duration) {
	w.mu.Lock()
	w.busy += d
	w.mu.Unlock()
}

// busyTime is the total time spent in exchanges with Ollama so far.
func (w *wire) busyTime() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.busy
}

func (w *wire) chatBodies() [][]byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([][]byte(nil), w.chats...)
}

// beforeSend sets the func called as each chat request is sent.
func (w *wire) beforeSend(f func()) {
	w.mu.Lock()
	w.onSend = f
	w.mu.Unlock()
}

// watch sets the func that sees each chat answer's bytes so far.
func (w *wire) watch(f func(soFar []byte)) {
	w.mu.Lock()
	w.onRead = f
	w.mu.Unlock()
}

// timedBody ends its exchange's time at the first read error (EOF or a cut)
// or at Close, whichever comes first.
type timedBody struct {
	rc    io.ReadCloser
	w     *wire
	start time.Time
	once  sync.Once
	watch func([]byte)
	seen  []byte
}

func (b *timedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if b.watch != nil && n > 0 {
		b.seen = append(b.seen, p[:n]...)
		b.watch(b.seen)
	}
	if err != nil {
		b.end()
	}
	return n, err
}

func (b *timedBody) Close() error {
	b.end()
	return b.rc.Close()
}

func (b *timedBody) end() { b.once.Do(func() { b.w.add(time.Since(b.start)) }) }

// sink keeps what the UI would have been sent; onDelta, if set, sees each
// token delta as it arrives.
type sink struct {
	mu      sync.Mutex
	events  []trace.Event
	deltas  []agent.Delta
	onDelta func(agent.Delta)
}

func (s *sink) Event(e trace.Event) {
	s.mu.Lock()
	s.events = append(s.events, e)
	s.mu.Unlock()
}

func (s *sink) Delta(d agent.Delta) {
	s.mu.Lock()
	s.deltas = append(s.deltas, d)
	f := s.onDelta
	s.mu.Unlock()
	if f != nil {
		f(d)
	}
}

func (s *sink) Session(session.Summary) {}

func (s *sink) allDeltas() []agent.Delta {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]agent.Delta(nil), s.deltas...)
}

func decode[T trace.Payload](t testing.TB, e trace.Event) T {
	t.Helper()
	p, err := trace.Decode[T](e)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// payloads returns the payloads of the events of one kind, in order.
func payloads[T trace.Payload](t testing.TB, evs []trace.Event, kind trace.Kind) []T {
	t.Helper()
	var out []T
	for _, e := range evs {
		if e.Kind == kind {
			out = append(out, decode[T](t, e))
		}
	}
	return out
}

func kinds(evs []trace.Event) string {
	ks := make([]string, len(evs))
	for i, e := range evs {
		ks[i] = string(e.Kind)
	}
	return strings.Join(ks, " ")
}

// golden compares the session's log, with what varies from run to run
// redacted, to testdata/golden/NAME.json. The file is the spec: read it.
// Ollama's random call ids become call_1, call_2, … and prompt sizes are
// redacted (they follow the length of the temp workspace path).
func (r *rig) golden(name string) {
	r.t.Helper()
	got := golden.Normalize(r.t, r.events(), golden.Options{Workspace: r.ws, CallIDs: realCallID, Counts: true})
	golden.Check(r.t, filepath.Join("testdata", "golden", name+".json"), got, *update, "run `scripts/real-ollama/test.sh ./testkit/realscenarios -update`")
}

// realCallID is the form of the ids Ollama gives tool calls: "call_" and
// eight random lowercase letters or digits (server/routes.go toolCallId).
var realCallID = regexp.MustCompile(`call_[a-z0-9]{8}`)
