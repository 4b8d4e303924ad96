package session_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
)

// When the client the manager was given moves to another server (Settings'
// Ollama host saved), the next run of a session talks to that server over
// HTTP, with the history of the runs the first one answered, and the first
// server hears nothing more.
func TestRunsGoToTheHostSetSince(t *testing.T) {
	a, b := ollamatest.New(t), ollamatest.New(t)
	for _, s := range []*ollamatest.Server{a, b} {
		s.AddModel(ollamatest.ModelSpec{Name: testModel, ContextLength: 8192})
	}
	a.Script(ollamatest.Text("from a"))
	b.Script(ollamatest.Text("from b"))
	st := tempStore(t)
	if err := settings.Save(context.Background(), st, settings.Defaults()); err != nil {
		t.Fatal(err)
	}
	oc := ollama.New(a.URL(), nil)
	m := session.NewManager(st, oc, permission.NewBroker(), nil)
	t.Cleanup(m.StopAll)
	sum, err := m.Create(context.Background(), fixedLengthDir(t), testModel)
	if err != nil {
		t.Fatal(err)
	}
	run := func(text string) trace.RunEnd {
		t.Helper()
		end, err := m.Run(context.Background(), sum.ID, text, session.RunOptions{})
		if err != nil {
			t.Fatalf("run %q: %v", text, err)
		}
		return end
	}
	if end := run("first"); end.FinalText != "from a" {
		t.Fatalf("first run answered %q, want a's answer", end.FinalText)
	}
	oc.SetHost(b.URL())
	if end := run("second"); end.FinalText != "from b" {
		t.Fatalf("second run answered %q, want b's answer", end.FinalText)
	}
	if n := len(a.Requests()); n != 1 {
		t.Errorf("a got %d chat requests, want only the first run's", n)
	}
	got := b.Requests()
	if len(got) != 1 {
		t.Fatalf("b got %d chat requests, want 1", len(got))
	}
	var texts []string
	for _, msg := range got[0].Chat.Messages {
		texts = append(texts, msg.Role+":"+msg.Content)
	}
	want := []string{"user:first", "assistant:from a", "user:second"}
	if len(texts) < len(want) || !equalTail(texts, want) {
		t.Errorf("b was sent %q, want it to end with %q", texts, want)
	}
}

func equalTail(got, want []string) bool {
	got = got[len(got)-len(want):]
	for i := range want {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

// hostsEnv is a database whose settings name a second fake server
// "gpu-box", beside the local one the manager's client talks to.
type hostsEnv struct {
	local, gpu *ollamatest.Server
	st         *store.Store
	oc         *ollama.Client
	m          *session.Manager
}

func newHostsEnv(t *testing.T) *hostsEnv {
	t.Helper()
	e := &hostsEnv{local: ollamatest.New(t), gpu: ollamatest.New(t), st: tempStore(t)}
	e.local.AddModel(ollamatest.ModelSpec{Name: "small", ContextLength: 4096})
	e.gpu.AddModel(ollamatest.ModelSpec{Name: "big", ContextLength: 8192})
	s := settings.Defaults()
	s.Hosts = []settings.HostProfile{{Name: "gpu-box", URL: e.gpu.URL()}}
	if err := settings.Save(context.Background(), e.st, s); err != nil {
		t.Fatal(err)
	}
	e.oc = ollama.New(e.local.URL(), nil)
	e.m = session.NewManager(e.st, e.oc, permission.NewBroker(), nil)
	t.Cleanup(e.m.StopAll)
	return e
}

func requestsOf(t *testing.T, st *store.Store, id string) []trace.ModelRequest {
	t.Helper()
	evs, err := st.Events(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var out []trace.ModelRequest
	for _, e := range evs {
		if e.Kind == trace.KindModelRequest {
			mr, err := trace.Decode[trace.ModelRequest](e)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, mr)
		}
	}
	return out
}

// A session started on a named host lists that host's models, keeps the
// host in the database, sends every run there (also from a manager opened
// again on the file, as when Loupe restarts) and records on each request
// where it went; a session on the local host beside it goes to the local
// server. Each server hears only its own session's requests, and both
// show in the connection count, apart.
func TestSessionRunsOnItsOwnHost(t *testing.T) {
	e := newHostsEnv(t)
	ctx := context.Background()
	models, err := e.m.ModelsOn(ctx, "gpu-box")
	if err != nil || len(models) != 1 || models[0].Name != "big:latest" {
		t.Fatalf("models on gpu-box: %+v, %v; want the gpu server's", models, err)
	}
	if local, err := e.m.ModelsOn(ctx, ""); err != nil || len(local) != 1 || local[0].Name != "small:latest" {
		t.Fatalf("local models: %+v, %v", local, err)
	}
	out, err := e.m.Do(ctx, session.Create{Workspace: fixedLengthDir(t), Model: "big", Host: "gpu-box"})
	if err != nil {
		t.Fatal(err)
	}
	onGPU := out.Summary.ID
	if out.Summary.Host != "gpu-box" {
		t.Errorf("the new session's host is %q", out.Summary.Host)
	}
	localSum, err := e.m.Create(ctx, fixedLengthDir(t), "small")
	if err != nil {
		t.Fatal(err)
	}
	e.gpu.Script(ollamatest.Text("from the gpu"), ollamatest.Text("again from the gpu"))
	e.local.Script(ollamatest.Text("from here"))
	if end, err := e.m.Run(ctx, onGPU, "hi", session.RunOptions{}); err != nil || end.FinalText != "from the gpu" {
		t.Fatalf("run on gpu-box: %+v, %v", end, err)
	}
	if end, err := e.m.Run(ctx, localSum.ID, "hi", session.RunOptions{}); err != nil || end.FinalText != "from here" {
		t.Fatalf("local run: %+v, %v", end, err)
	}
	// Loupe opened again on the same file: the session is still on gpu-box.
	m2 := session.NewManager(e.st, ollama.New(e.local.URL(), nil), permission.NewBroker(), nil)
	t.Cleanup(m2.StopAll)
	if d, err := m2.Open(ctx, onGPU); err != nil || d.Summary.Host != "gpu-box" {
		t.Fatalf("reopened: host %q, %v", d.Summary.Host, err)
	}
	if end, err := m2.Run(ctx, onGPU, "more", session.RunOptions{}); err != nil || end.FinalText != "again from the gpu" {
		t.Fatalf("second run on gpu-box: %+v, %v", end, err)
	}
	if n, l := len(e.gpu.Requests()), len(e.local.Requests()); n != 2 || l != 1 {
		t.Errorf("gpu got %d chats and local %d; want 2 and 1", n, l)
	}
	for _, mr := range requestsOf(t, e.st, onGPU) {
		if mr.HostName != "gpu-box" || mr.Host != e.gpu.URL() {
			t.Errorf("a gpu-box request records host %q %q, want gpu-box at %s", mr.HostName, mr.Host, e.gpu.URL())
		}
	}
	for _, mr := range requestsOf(t, e.st, localSum.ID) {
		if mr.HostName != "" || mr.Host != e.local.URL() {
			t.Errorf("a local request records host %q %q, want %s", mr.HostName, mr.Host, e.local.URL())
		}
	}
	var dialled []string
	for _, c := range e.oc.Connections() {
		dialled = append(dialled, "http://"+c.Host+":"+c.Port)
	}
	if len(dialled) != 2 || !slices.Contains(dialled, e.gpu.URL()) || !slices.Contains(dialled, e.local.URL()) {
		t.Errorf("connections %v, want the two servers apart", dialled)
	}
}

// A named host that is down stops a run before it starts, with an error
// that names the host; a session whose host was removed from Settings
// says so and what to do; a host that is not in Settings is refused when
// the session is made.
func TestHostDownOrGoneIsNamed(t *testing.T) {
	e := newHostsEnv(t)
	ctx := context.Background()
	sum, err := e.m.CreateSetUp(ctx, fixedLengthDir(t), "big", session.Setup{Host: "gpu-box"})
	if err != nil {
		t.Fatal(err)
	}
	// A failure during the run names the host in the log too.
	e.gpu.Script(ollamatest.Reply{Fault: ollamatest.HTTPStatus(400, `{"error":"model is broken"}`)})
	if end, err := e.m.Run(ctx, sum.ID, "first", session.RunOptions{}); err != nil || end.Reason != trace.EndError {
		t.Fatalf("a run that fails on gpu-box: %+v, %v", end, err)
	}
	evs, _ := e.st.Events(ctx, sum.ID)
	var said string
	for _, ev := range evs {
		if ev.Kind == trace.KindError {
			p, _ := trace.Decode[trace.Error](ev)
			said = p.Message
		}
	}
	if !strings.Contains(said, `Ollama host "gpu-box"`) || !strings.Contains(said, "model is broken") {
		t.Errorf("the error event says %q; want gpu-box named with Ollama's reason", said)
	}
	e.gpu.Close()
	_, err = e.m.Run(ctx, sum.ID, "hi", session.RunOptions{})
	if err == nil || !strings.Contains(err.Error(), `"gpu-box"`) || !strings.Contains(err.Error(), e.gpu.URL()) {
		t.Fatalf("a run on a host that is down: %v; want gpu-box and its address named", err)
	}
	if _, err := e.m.ModelsOn(ctx, "gpu-box"); err == nil || !strings.Contains(err.Error(), `"gpu-box"`) {
		t.Errorf("models of a host that is down: %v", err)
	}
	s, _ := settings.Load(ctx, e.st)
	s.Hosts = nil
	if err := settings.Save(ctx, e.st, s); err != nil {
		t.Fatal(err)
	}
	_, err = e.m.Run(ctx, sum.ID, "hi", session.RunOptions{})
	if err == nil || !strings.Contains(err.Error(), "no longer in Settings") {
		t.Errorf("a run on a removed host: %v", err)
	}
	if len(e.local.Requests()) != 0 {
		t.Errorf("the local server got %d requests meant for gpu-box", len(e.local.Requests()))
	}
	if _, err := e.m.CreateSetUp(ctx, fixedLengthDir(t), "big", session.Setup{Host: "gpubox"}); err == nil || !strings.Contains(err.Error(), `"gpubox"`) {
		t.Errorf("a session on an unknown host: %v", err)
	}
}

// The readiness check of a model picked on a named host asks that host:
// "big" is on gpu-box only, and its context length is gpu-box's.
func TestCheckModelAsksTheChosenHost(t *testing.T) {
	e := newHostsEnv(t)
	ctx := context.Background()
	rep, err := session.CheckModel(ctx, e.st, e.oc, session.ModelCheck{Model: "big", Host: "gpu-box", Workspace: fixedLengthDir(t)})
	if err != nil {
		t.Fatalf("check on gpu-box: %v", err)
	}
	if rep.ContextLength != 8192 {
		t.Errorf("context length %d, want gpu-box's 8192", rep.ContextLength)
	}
	if len(e.local.Requests()) != 0 {
		t.Errorf("the local server got %d chat requests", len(e.local.Requests()))
	}
	if _, err := session.CheckModel(ctx, e.st, e.oc, session.ModelCheck{Model: "big", Workspace: fixedLengthDir(t)}); err == nil {
		t.Error("the local host has no model big, yet its check passed")
	}
	if _, err := session.CheckModel(ctx, e.st, e.oc, session.ModelCheck{Model: "big", Host: "gpubox", Workspace: fixedLengthDir(t)}); err == nil || !strings.Contains(err.Error(), "gpubox") {
		t.Errorf("an unknown host: %v", err)
	}
}
