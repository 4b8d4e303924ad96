package session_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

// Sub-agents: a task call hands its prompt to a nested run of the same
// loop, whose events go to the same log marked with the call's id.

func withSubAgents(edit func(*settings.Settings)) func(*settings.Settings) {
	return func(s *settings.Settings) {
		s.SubAgents = true
		if edit != nil {
			edit(s)
		}
	}
}

// parentAndChild answers the session's own requests from parent and a
// sub-agent's from child, each in turn: the fake Ollama tells them apart
// by the system prompt a sub-agent gets.
type parentAndChild struct {
	mu            sync.Mutex
	parent, child []ollamatest.Reply
	// childSystems are the system prompts of the child's requests, and
	// childTools the tools each offered.
	childTools [][]string
}

func isChild(req ollamatest.ChatRequest) bool {
	return len(req.Messages) > 0 && req.Messages[0].Role == "system" && strings.HasPrefix(req.Messages[0].Content, "You are a sub-agent")
}

func (p *parentAndChild) respond(req ollamatest.ChatRequest) ollamatest.Reply {
	p.mu.Lock()
	defer p.mu.Unlock()
	next := &p.parent
	if isChild(req) {
		next = &p.child
		var names []string
		for _, t := range req.Tools {
			names = append(names, t.Function.Name)
		}
		p.childTools = append(p.childTools, names)
	}
	if len(*next) == 0 {
		return ollamatest.Text("(nothing scripted)")
	}
	r := (*next)[0]
	*next = (*next)[1:]
	return r
}

func resultOf(t *testing.T, evs []trace.Event, agent, callID string) trace.ToolResult {
	t.Helper()
	for _, r := range results(t, trace.Own(evs, agent)) {
		if r.CallID == callID {
			return r
		}
	}
	t.Fatalf("no result for %s in loop %q", callID, agent)
	return trace.ToolResult{}
}

// The parent gets the sub-agent's final answer as the one observation of
// its task call; the sub-agent has a fresh history and the read-only tools.
func TestSubAgentAnswerIsOneObservation(t *testing.T) {
	h := newHarness(t, permission.ModeAsk, withSubAgents(nil))
	pc := &parentAndChild{
		parent: []ollamatest.Reply{
			calls(call("call_1", "task", `{"prompt":"What files are in the workspace?"}`)),
			ollamatest.Text("The helper says: README.md and notes.txt."),
		},
		child: []ollamatest.Reply{
			calls(call("call_1", "list_dir", `{"path":"."}`)),
			ollamatest.Text("README.md and notes.txt"),
		},
	}
	h.srv.Respond(pc.respond)
	end := h.run("Ask a helper what is here")
	if end.Reason != trace.EndAnswered {
		t.Fatalf("end = %+v", end)
	}
	evs := h.events()
	invariants.Check(t, evs)
	if got := trace.SubAgents(evs); !slices.Equal(got, []string{"call_1"}) {
		t.Fatalf("sub-runs = %v", got)
	}
	sub := trace.Own(evs, "call_1")
	if sub[0].Kind != trace.KindUserMessage || sub[len(sub)-1].Kind != trace.KindRunEnd {
		t.Fatalf("the sub-run goes from %s to %s", sub[0].Kind, sub[len(sub)-1].Kind)
	}
	if lastEnd(t, sub).FinalText != "README.md and notes.txt" {
		t.Fatalf("sub-run end = %+v", lastEnd(t, sub))
	}
	// Its list_dir ran, inside it.
	if r := resultOf(t, evs, "call_1", "call_1"); r.Name != "list_dir" || !strings.Contains(r.Content, "notes.txt") {
		t.Fatalf("the sub-agent's list_dir = %+v", r)
	}
	// The parent: one observation, the answer.
	if r := resultOf(t, evs, "", "call_1"); r.Name != "task" || r.IsError || r.Content != "README.md and notes.txt" {
		t.Fatalf("task result = %+v", r)
	}
	reqs := h.srv.Requests()
	var parentReqs, childReqs []ollamatest.Received
	for _, r := range reqs {
		if isChild(r.Chat) {
			childReqs = append(childReqs, r)
		} else {
			parentReqs = append(parentReqs, r)
		}
	}
	if len(parentReqs) != 2 || len(childReqs) != 2 {
		t.Fatalf("%d parent and %d child requests, want 2 and 2", len(parentReqs), len(childReqs))
	}
	// The parent's history holds none of the sub-agent's messages.
	msgs := parentReqs[1].Chat.Messages
	if len(msgs) != 4 || msgs[3].Role != "tool" || msgs[3].ToolName != "task" || msgs[3].Content != "README.md and notes.txt" {
		t.Fatalf("parent's second request = %+v", msgs)
	}
	// The sub-agent's: its system prompt and the prompt, then its own.
	cm := childReqs[0].Chat.Messages
	if len(cm) != 2 || cm[1].Role != "user" || cm[1].Content != "What files are in the workspace?" {
		t.Fatalf("child's first request = %+v", cm)
	}
	if len(childReqs[1].Chat.Messages) != 4 {
		t.Fatalf("child's second request has %d messages, want 4", len(childReqs[1].Chat.Messages))
	}
	// Read-only tools by default.
	for _, names := range pc.childTools {
		if !slices.Equal(names, []string{"read_file", "list_dir", "glob", "grep"}) {
			t.Fatalf("a sub-agent's request offered %v", names)
		}
	}
	// The session is the parent's: its run answered, nothing left open.
	if list, err := h.m.List(context.Background()); err != nil || list[0].LastReason != trace.EndAnswered {
		t.Fatalf("summary = %+v %v", list, err)
	}
	// The raw request of a sub-agent's round is rebuilt from its own run,
	// byte for byte the body Ollama got.
	n := 0
	for _, e := range sub {
		if e.Kind == trace.KindModelRequest {
			body, err := session.RawRequest(context.Background(), h.st, h.id, e.Seq)
			if err != nil {
				t.Fatal(err)
			}
			if body != string(childReqs[n].Body) {
				t.Fatalf("sub-agent request %d rebuilt: %s\nsent: %s", n+1, body, childReqs[n].Body)
			}
			n++
		}
	}
}

// A sub-agent cannot use a tool its parent was denied: a deny rule holds
// inside it, and so does the user's denial given earlier in the session.
func TestSubAgentCannotUseWhatItsParentWasDenied(t *testing.T) {
	t.Run("deny rule", func(t *testing.T) {
		h := newHarness(t, permission.ModeAuto, withSubAgents(func(s *settings.Settings) {
			s.Rules = []permission.Rule{{Effect: permission.EffectDeny, Tool: "run_command"}}
		}))
		pc := &parentAndChild{
			parent: []ollamatest.Reply{
				calls(call("call_1", "task", `{"prompt":"Count the files","tools":["run_command","read_file"]}`)),
				ollamatest.Text("done"),
			},
			child: []ollamatest.Reply{
				calls(call("call_1", "run_command", `{"command":"ls | wc -l"}`)),
				ollamatest.Text("could not run it"),
			},
		}
		h.srv.Respond(pc.respond)
		h.run("count")
		evs := h.events()
		invariants.Check(t, evs)
		r := resultOf(t, evs, "call_1", "call_1")
		if r.ErrorKind != trace.ErrDenied {
			t.Fatalf("the sub-agent's run_command = %+v", r)
		}
	})
	t.Run("denied by the user", func(t *testing.T) {
		h := newHarness(t, permission.ModeAsk, withSubAgents(nil))
		pc := &parentAndChild{
			parent: []ollamatest.Reply{
				calls(call("call_1", "run_command", `{"command":"ls"}`)),
				calls(call("call_2", "task", `{"prompt":"List it your way","tools":["run_command"]}`)),
				ollamatest.Text("done"),
			},
		}
		h.srv.Respond(pc.respond)
		go func() {
			q := <-h.asks
			if err := h.answer(q.CallID, false); err != nil {
				t.Error(err)
			}
		}()
		h.run("list")
		evs := h.events()
		invariants.Check(t, evs)
		if r := resultOf(t, evs, "", "call_1"); r.ErrorKind != trace.ErrDenied {
			t.Fatalf("run_command = %+v", r)
		}
		r := resultOf(t, evs, "", "call_2")
		if !r.IsError || !strings.Contains(r.Content, "denied to its parent by you") || len(trace.SubAgents(evs)) != 0 {
			t.Fatalf("task asking for a denied tool = %+v (sub-runs %v)", r, trace.SubAgents(evs))
		}
		// A sub-agent that already has the tool when the denial comes:
		// TestSubAgentCallOfAToolItsParentWasDeniedMeanwhile.
	})
}

// The check on a sub-agent's own calls: the sub-agent got run_command
// (its tools are trimmed when it starts, before any denial), then the user
// denied its parent a run_command call, and only then does the sub-agent
// call run_command. That call is refused by rule, with an observation that
// says why, and the user is not asked again.
func TestSubAgentCallOfAToolItsParentWasDeniedMeanwhile(t *testing.T) {
	h := newHarness(t, permission.ModeAsk, withSubAgents(nil))
	childAsked, denied := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	parentN, childN := 0, 0
	h.srv.Respond(func(req ollamatest.ChatRequest) ollamatest.Reply {
		mu.Lock()
		defer mu.Unlock()
		if isChild(req) {
			childN++
			if childN == 1 {
				// The sub-agent's first request waits for the parent's
				// denial to be taken (Respond calls are serialised, and
				// the parent sends none meanwhile).
				close(childAsked)
				select {
				case <-denied:
				case <-time.After(time.Minute):
					t.Error("the parent's run_command was never denied")
				}
				return calls(call("call_1", "run_command", `{"command":"ls"}`))
			}
			return ollamatest.Text("run_command was refused")
		}
		parentN++
		if parentN == 1 {
			return calls(
				call("call_1", "run_command", `{"command":"ls"}`),
				call("call_2", "task", `{"prompt":"List it your way","tools":["run_command"]}`),
			)
		}
		return ollamatest.Text("done")
	})
	var again []trace.Permission
	finished := make(chan struct{})
	go func() {
		q := <-h.asks
		<-childAsked
		if q.CallID != "call_1" {
			t.Errorf("first question = %+v, want the parent's run_command", q)
		}
		if err := h.answer(q.CallID, false); err != nil {
			t.Error(err)
		}
		// The denial is the parent's once it is stored (the run notes it
		// before recording it).
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if slices.ContainsFunc(trace.Own(h.events(), ""), func(e trace.Event) bool {
				p, err := trace.Decode[trace.Permission](e)
				return e.Kind == trace.KindPermission && err == nil && p.CallID == "call_1" && p.Decision == trace.Deny
			}) {
				break
			}
		}
		close(denied)
		// Any question now is the sub-agent's call put to the user again.
		for {
			select {
			case q := <-h.asks:
				mu.Lock()
				again = append(again, q)
				mu.Unlock()
				if err := h.answer(q.CallID, false); err != nil {
					t.Error(err)
				}
			case <-finished:
				return
			}
		}
	}()
	end := h.run("list")
	close(finished)
	if end.Reason != trace.EndAnswered {
		t.Fatalf("end = %+v", end)
	}
	evs := h.events()
	invariants.Check(t, evs)
	if got := trace.SubAgents(evs); !slices.Equal(got, []string{"call_2"}) {
		t.Fatalf("sub-runs = %v, want the sub-agent of call_2 started before the denial", got)
	}
	mu.Lock()
	asked := again
	mu.Unlock()
	if len(asked) != 0 {
		t.Fatalf("the user was asked again: %+v; a sub-agent's call of a tool its parent was denied must be refused without asking", asked)
	}
	r := resultOf(t, evs, "call_2", "call_1")
	if r.ErrorKind != trace.ErrDenied || !r.IsError ||
		!strings.Contains(r.Content, "a sub-agent cannot use a tool its parent was denied") ||
		!strings.Contains(r.Content, "denied to its parent by you") {
		t.Fatalf("the sub-agent's run_command = %+v", r)
	}
	// The sub-agent read the refusal and said so: its answer is the task's
	// one observation.
	if r := resultOf(t, evs, "", "call_2"); r.IsError || r.Content != "run_command was refused" {
		t.Fatalf("task result = %+v", r)
	}
}

// A sub-agent never gets a tool its parent does not have, nor task beyond
// the depth cap.
func TestSubAgentToolsAreTrimmed(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, withSubAgents(nil))
	if _, err := h.m.Do(context.Background(), session.SetTools{Session: h.id, Tools: &[]string{"read_file", "task"}}); err != nil {
		t.Fatal(err)
	}
	pc := &parentAndChild{
		parent: []ollamatest.Reply{
			calls(
				call("call_1", "task", `{"prompt":"go deeper","tools":["task"]}`),
				call("call_2", "task", `{"prompt":"write it","tools":["write_file"]}`),
				call("call_3", "task", `{"prompt":"look around"}`),
			),
			ollamatest.Text("done"),
		},
		child: []ollamatest.Reply{ollamatest.Text("I could only read")},
	}
	h.srv.Respond(pc.respond)
	h.run("try them")
	evs := h.events()
	invariants.Check(t, evs)
	if r := resultOf(t, evs, "", "call_1"); !r.IsError || !strings.Contains(r.Content, "nest at most 1 deep") {
		t.Fatalf("task with task = %+v", r)
	}
	if r := resultOf(t, evs, "", "call_2"); !r.IsError || !strings.Contains(r.Content, "cannot have write_file") {
		t.Fatalf("task with write_file = %+v", r)
	}
	if r := resultOf(t, evs, "", "call_3"); r.IsError || r.Content != "I could only read" {
		t.Fatalf("task by default = %+v", r)
	}
	// By default it gets what it would have among what its parent has.
	if len(pc.childTools) != 1 || !slices.Equal(pc.childTools[0], []string{"read_file"}) {
		t.Fatalf("child tools = %v", pc.childTools)
	}
}

// Parallel task calls are bounded: two sub-agents run at once, the third
// waits for a place.
func TestSubAgentsInParallelAreBounded(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, withSubAgents(nil))
	var mu sync.Mutex
	done := false
	h.srv.Respond(func(req ollamatest.ChatRequest) ollamatest.Reply {
		if isChild(req) {
			r := ollamatest.Text("answer to " + req.Messages[1].Content)
			r.Load = 150 * time.Millisecond
			return r
		}
		mu.Lock()
		defer mu.Unlock()
		if done {
			return ollamatest.Text("all three answered")
		}
		done = true
		return calls(
			call("call_1", "task", `{"prompt":"one"}`),
			call("call_2", "task", `{"prompt":"two"}`),
			call("call_3", "task", `{"prompt":"three"}`),
		)
	})
	h.run("three at once")
	evs := h.events()
	invariants.Check(t, evs)
	open, most := map[string]bool{}, 0
	for _, e := range evs {
		switch {
		case e.Agent != "" && e.Kind == trace.KindUserMessage:
			open[e.Agent] = true
		case e.Agent != "" && e.Kind == trace.KindRunEnd:
			delete(open, e.Agent)
		}
		most = max(most, len(open))
	}
	if most != 2 {
		t.Fatalf("at most %d sub-agents ran at once, want 2", most)
	}
	for i, id := range []string{"call_1", "call_2", "call_3"} {
		if r := resultOf(t, evs, "", id); r.Content != "answer to "+[]string{"one", "two", "three"}[i] {
			t.Fatalf("%s = %+v", id, r)
		}
	}
}

// Stopping the run while a sub-agent works stops the sub-agent: every call
// of both runs is answered, and both runs end.
func TestStopMidSubAgentAnswersEveryCall(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, withSubAgents(nil))
	marker := "loupe-subagent-stop-" + strings.ReplaceAll(t.Name(), "/", "-")
	pc := &parentAndChild{
		parent: []ollamatest.Reply{
			calls(call("call_1", "task", `{"prompt":"run the long thing","tools":["run_command","read_file"]}`)),
		},
		child: []ollamatest.Reply{
			calls(
				call("call_1", "run_command", `{"command":"echo started; sleep 30; echo `+marker+`"}`),
				call("call_2", "read_file", `{"path":"README.md"}`),
			),
		},
	}
	h.srv.Respond(pc.respond)
	ctx := context.Background()
	if _, err := h.m.Do(ctx, session.Send{Session: h.id, Text: "delegate"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		out, _ := h.sink.callOutput("call_1")
		return out == "started\n"
	}, "the sub-agent's command to start")
	h.m.Stop(h.id)
	h.m.Wait(h.id)
	evs := h.events()
	invariants.Check(t, evs)
	if r := resultOf(t, evs, "call_1", "call_1"); r.ErrorKind != trace.ErrCancelled {
		t.Fatalf("the sub-agent's command = %+v", r)
	}
	if e := lastEnd(t, trace.Own(evs, "call_1")); e.Reason != trace.EndCancelled {
		t.Fatalf("sub-run end = %+v", e)
	}
	if r := resultOf(t, evs, "", "call_1"); r.ErrorKind != trace.ErrCancelled || !strings.Contains(r.Content, "stopped") {
		t.Fatalf("task result = %+v", r)
	}
	if e := lastEnd(t, evs); e.Reason != trace.EndCancelled {
		t.Fatalf("run end = %+v", e)
	}
}

// A sub-agent that hits its round cap comes back as an error observation
// that says so.
func TestSubAgentAtItsCapIsAnError(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, withSubAgents(nil))
	h.srv.Respond(func(req ollamatest.ChatRequest) ollamatest.Reply {
		if isChild(req) {
			// Different each time, so the repeat limit does not stop it.
			return calls(call("call_"+jsonInt(len(req.Messages)), "read_file", `{"path":"README.md","offset":`+jsonInt(len(req.Messages))+`}`))
		}
		if last := req.Messages[len(req.Messages)-1]; last.Role == "tool" {
			return ollamatest.Text("it gave up")
		}
		return calls(call("call_1", "task", `{"prompt":"read forever"}`))
	})
	h.run("go")
	evs := h.events()
	invariants.Check(t, evs)
	r := resultOf(t, evs, "", "call_1")
	if !r.IsError || !strings.Contains(r.Content, "stopped without an answer after 10 rounds (round_cap)") {
		t.Fatalf("task result = %+v", r)
	}
}

func jsonInt(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// A crash while a sub-agent works leaves both runs open; recovery closes
// the sub-agent's calls and run, then the parent's task call and run.
func TestRecoverMidSubAgent(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, withSubAgents(nil))
	task := json.RawMessage(`{"prompt":"look"}`)
	read := json.RawMessage(`{"path":"README.md"}`)
	sub := func(e trace.Event) trace.Event { e.Agent = "call_1"; return e }
	for _, e := range []trace.Event{
		trace.New(trace.KindUserMessage, 1, 0, trace.UserMessage{Text: "go"}),
		trace.New(trace.KindModelRequest, 1, 1, trace.ModelRequest{Model: testModel}),
		trace.New(trace.KindModelResponse, 1, 1, trace.ModelResponse{ToolCalls: []llmCall{{ID: "call_1", Name: "task", Args: task}}, DoneReason: "stop"}),
		trace.New(trace.KindToolCall, 1, 1, trace.ToolCall{CallID: "call_1", Name: "task", Args: task, Valid: true}),
		trace.New(trace.KindPermission, 1, 1, trace.Permission{CallID: "call_1", Tool: "task", Decision: trace.Allow, By: "auto mode"}),
		sub(trace.New(trace.KindUserMessage, 1, 0, trace.UserMessage{Text: "look"})),
		sub(trace.New(trace.KindModelRequest, 1, 1, trace.ModelRequest{Model: testModel})),
		sub(trace.New(trace.KindModelResponse, 1, 1, trace.ModelResponse{ToolCalls: []llmCall{{ID: "call_1", Name: "read_file", Args: read}}, DoneReason: "stop"})),
		sub(trace.New(trace.KindToolCall, 1, 1, trace.ToolCall{CallID: "call_1", Name: "read_file", Args: read, Valid: true})),
	} {
		e.SessionID = h.id
		if _, err := h.st.Append(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.m.Recover(context.Background()); err != nil {
		t.Fatal(err)
	}
	evs := h.events()
	invariants.Check(t, evs)
	if r := resultOf(t, evs, "call_1", "call_1"); r.ErrorKind != trace.ErrInterrupted {
		t.Fatalf("the sub-agent's call = %+v", r)
	}
	if e := lastEnd(t, trace.Own(evs, "call_1")); e.Reason != trace.EndInterrupted {
		t.Fatalf("sub-run end = %+v", e)
	}
	if r := resultOf(t, evs, "", "call_1"); r.ErrorKind != trace.ErrInterrupted {
		t.Fatalf("task = %+v", r)
	}
	if s, err := h.st.GetSession(context.Background(), h.id); err != nil || s.OpenRun != 0 || s.LastReason != trace.EndInterrupted {
		t.Fatalf("session after recovery = %+v %v", s, err)
	}
}

// The OTLP trace nests a sub-agent: its invoke_agent span is a child of its
// task call's execute_tool span, and its own calls are children of it.
func TestSubAgentSpansNestUnderItsTaskCall(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, withSubAgents(nil))
	pc := &parentAndChild{
		parent: []ollamatest.Reply{calls(call("call_1", "task", `{"prompt":"look"}`)), ollamatest.Text("done")},
		child:  []ollamatest.Reply{calls(call("call_1", "list_dir", `{"path":"."}`)), ollamatest.Text("two files")},
	}
	h.srv.Respond(pc.respond)
	h.run("delegate")
	var buf strings.Builder
	if err := session.Export(context.Background(), h.st, h.id, "otlp", &buf); err != nil {
		t.Fatal(err)
	}
	type span struct {
		Name, SpanID, ParentSpanID string
	}
	var spans []span
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var doc struct {
			ResourceSpans []struct {
				ScopeSpans []struct {
					Spans []struct {
						Name         string `json:"name"`
						SpanID       string `json:"spanId"`
						ParentSpanID string `json:"parentSpanId"`
					} `json:"spans"`
				} `json:"scopeSpans"`
			} `json:"resourceSpans"`
		}
		if err := json.Unmarshal([]byte(line), &doc); err != nil {
			t.Fatal(err)
		}
		for _, rs := range doc.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					spans = append(spans, span{s.Name, s.SpanID, s.ParentSpanID})
				}
			}
		}
	}
	find := func(name string) span {
		for _, s := range spans {
			if s.Name == name {
				return s
			}
		}
		t.Fatalf("no span %q in %+v", name, spans)
		return span{}
	}
	task, sub, list := find("execute_tool task"), find("invoke_agent loupe sub-agent"), find("execute_tool list_dir")
	if sub.ParentSpanID != task.SpanID || list.ParentSpanID != sub.SpanID {
		t.Fatalf("spans do not nest: task %+v, sub-agent %+v, list_dir %+v", task, sub, list)
	}
}
