package session_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

// Two sub-agents run at once, and each model names its first call
// "call_1", as small models do: both ask about "call_1" together. Each
// question is its own: an answer goes to the loop it names (the answer's
// agent), so denying one sub-agent's command and allowing the other's runs
// exactly the one allowed, and neither question is lost.
func TestParallelSubAgentsAskingAboutOneCallIDEachGetTheirOwnAnswer(t *testing.T) {
	h := newHarness(t, permission.ModeAsk, withSubAgents(nil))
	type asked struct {
		agent string
		p     trace.Permission
	}
	questions := make(chan asked, 8)
	h.sink.onAsk = func(e trace.Event, p trace.Permission) { questions <- asked{e.Agent, p} }
	var mu sync.Mutex
	parentN := 0
	h.srv.Respond(func(req ollamatest.ChatRequest) ollamatest.Reply {
		if isChild(req) {
			if len(req.Messages) > 2 {
				last := req.Messages[len(req.Messages)-1].Content
				return ollamatest.Text("saw: " + strings.TrimSpace(last))
			}
			goal := req.Messages[1].Content
			return calls(call("call_1", "run_command", `{"command":"echo `+goal+` > `+goal+`.txt; echo wrote `+goal+`"}`))
		}
		mu.Lock()
		defer mu.Unlock()
		parentN++
		if parentN == 1 {
			return calls(
				call("call_1", "task", `{"prompt":"left","tools":["run_command"]}`),
				call("call_2", "task", `{"prompt":"right","tools":["run_command"]}`),
			)
		}
		return ollamatest.Text("both answered")
	})
	ctx := context.Background()
	if _, err := h.m.Do(ctx, session.Send{Session: h.id, Text: "two helpers"}); err != nil {
		t.Fatal(err)
	}
	got := map[string]trace.Permission{}
	for len(got) < 2 {
		select {
		case q := <-questions:
			if q.agent == "" {
				t.Fatalf("the parent asked about %s; only the sub-agents' commands ask", q.p.CallID)
			}
			got[q.agent] = q.p
		case <-time.After(20 * time.Second):
			t.Fatalf("only %d of the two sub-agents' questions came", len(got))
		}
	}
	// The sub-agent of the task "left" is denied, the one of "right" allowed.
	for agent, p := range got {
		allow := strings.Contains(p.Command, "right")
		if _, err := h.m.Do(ctx, session.Answer{Session: h.id, Agent: agent, CallID: p.CallID, Allow: allow, Scope: string(permission.ScopeOnce)}); err != nil {
			t.Fatalf("answer to %s's %s: %v", agent, p.CallID, err)
		}
	}
	done := make(chan struct{})
	go func() { h.m.Wait(h.id); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the run never ended: a question was lost")
	}
	evs := h.events()
	invariants.Check(t, evs)
	if _, ok := h.read("left.txt"); ok {
		t.Error("the denied sub-agent's command ran")
	}
	if b, ok := h.read("right.txt"); !ok || strings.TrimSpace(b) != "right" {
		t.Errorf("the allowed sub-agent's command did not run: %q", b)
	}
}
