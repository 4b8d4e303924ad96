package session_test

import (
	"context"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/settings"
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
