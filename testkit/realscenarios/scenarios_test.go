package realscenarios_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/gguf"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

// Scenario 1: user → list_dir → final answer, and the stored log is the
// golden one.
func TestListDirThenAnswer(t *testing.T) {
	srv := startServer(t, gguf.Script{Steps: []gguf.Step{
		{Call: []gguf.Call{{Name: "list_dir", Args: `{"path": "."}`}}},
		{Answer: "The workspace has README.md and notes.txt."},
	}})
	r := newRig(t, srv)
	end := r.run("What is in this folder?")
	if end.Reason != trace.EndAnswered || end.FinalText != "The workspace has README.md and notes.txt." || end.Rounds != 2 {
		t.Fatalf("end = %+v", end)
	}
	evs := r.events()
	invariants.Check(t, evs)
	const want = "user_message model_request model_response tool_call permission tool_result model_request model_response run_end"
	if got := kinds(evs); got != want {
		t.Fatalf("kinds:\n got %s\nwant %s", got, want)
	}

	// The call came from Ollama's own parser, with an id of Ollama's.
	resp := payloads[trace.ModelResponse](t, evs, trace.KindModelResponse)
	c := resp[0].ToolCalls
	if len(c) != 1 || c[0].Name != "list_dir" || !realCallID.MatchString(c[0].ID) {
		t.Fatalf("round 1 calls = %+v", c)
	}
	res := payloads[trace.ToolResult](t, evs, trace.KindToolResult)
	if res[0].CallID != c[0].ID || res[0].Content != "README.md\nnotes.txt\n" || res[0].IsError {
		t.Fatalf("result = %+v", res[0])
	}
	// Ollama counted a bigger prompt in round 2: it holds the observation.
	if p1, p2 := resp[0].Metrics.PromptEvalCount, resp[1].Metrics.PromptEvalCount; p1 <= 0 || p2 <= p1 {
		t.Errorf("prompt_eval_count %d then %d", p1, p2)
	}

	// The observation went back paired with the call's id.
	raws := r.checkRawRequests()
	msgs := chatMessages(t, raws[1])
	last := msgs[len(msgs)-1]
	if last.Role != "tool" || last.ToolCallID != c[0].ID || last.ToolName != "list_dir" || last.Content != res[0].Content {
		t.Fatalf("last message of round 2 = %+v", last)
	}

	// The answer streamed to the UI before it was stored.
	var streamed strings.Builder
	for _, d := range r.sink.allDeltas() {
		if d.Round == 2 {
			streamed.WriteString(d.Content)
		}
	}
	if streamed.String() != end.FinalText {
		t.Errorf("round 2 deltas = %q", streamed.String())
	}
	// The UI got live exactly the events that were stored.
	live, _ := json.Marshal(r.sink.events)
	stored, _ := json.Marshal(evs)
	if string(live) != string(stored) {
		t.Errorf("events sent live differ from the stored log\nlive:   %s\nstored: %s", live, stored)
	}
	r.golden("list_dir_then_answer")
}

// wireMessage is a message of a request body as Ollama reads it.
type wireMessage struct {
	Role      string `json:"role"`
	Content   string `json:"content"`
	Thinking  string `json:"thinking"`
	ToolCalls []struct {
		ID       string `json:"id"`
		Function struct {
			Index     int             `json:"index"`
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	ToolName   string `json:"tool_name"`
	ToolCallID string `json:"tool_call_id"`
}

type wireRequest struct {
	Model    string            `json:"model"`
	Messages []wireMessage     `json:"messages"`
	Tools    []json.RawMessage `json:"tools"`
	Think    *bool             `json:"think"`
}

func chatRequest(t testing.TB, raw string) wireRequest {
	t.Helper()
	var r wireRequest
	if err := json.Unmarshal([]byte(raw), &r); err != nil {
		t.Fatalf("request body: %v\n%s", err, raw)
	}
	return r
}

func chatMessages(t testing.TB, raw string) []wireMessage { return chatRequest(t, raw).Messages }

// Scenario 2: two calls in one message run concurrently, and their results
// are recorded and sent back in call order, each paired with its call's id.
//
// The commands meet: each creates its flag and waits (up to 5 s) for the
// other's. Run one after the other, the first would give up and print
// nothing; run together, each prints that it saw the other.
func TestTwoCallsRunConcurrently(t *testing.T) {
	const (
		one = `touch one.flag; i=0; while [ ! -e two.flag ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; [ -e two.flag ] && echo one saw two`
		two = `touch two.flag; i=0; while [ ! -e one.flag ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; [ -e one.flag ] && echo two saw one`
	)
	srv := startServer(t, gguf.Script{Steps: []gguf.Step{
		{Call: []gguf.Call{
			{Name: "run_command", Args: mustJSON(t, map[string]string{"command": one})},
			{Name: "run_command", Args: mustJSON(t, map[string]string{"command": two})},
		}},
		{Answer: "Both commands ran."},
	}})
	r := newRig(t, srv)
	end := r.run("Run both commands")
	if end.Reason != trace.EndAnswered || end.FinalText != "Both commands ran." || end.Rounds != 2 {
		t.Fatalf("end = %+v", end)
	}
	evs := r.events()
	invariants.Check(t, evs)

	calls := payloads[trace.ModelResponse](t, evs, trace.KindModelResponse)[0].ToolCalls
	if len(calls) != 2 || calls[0].Index != 0 || calls[1].Index != 1 || calls[0].ID == calls[1].ID {
		t.Fatalf("calls = %+v, want two with indexes 0, 1 and distinct ids", calls)
	}
	var results []trace.ToolResult
	var resultSeqs []int64
	for _, e := range evs {
		if e.Kind == trace.KindToolResult {
			results = append(results, decode[trace.ToolResult](t, e))
			resultSeqs = append(resultSeqs, e.Seq)
		}
	}
	want := []string{"one saw two\nexit code 0", "two saw one\nexit code 0"}
	for i, res := range results {
		if res.CallID != calls[i].ID || res.Content != want[i] || res.IsError {
			t.Errorf("result %d = %+v, want %q for call %s (run one after the other, a command gives up waiting)",
				i, res, want[i], calls[i].ID)
		}
	}
	if len(results) != 2 {
		t.Fatalf("%d results, want 2", len(results))
	}

	// Round 2's history names both results, in call order.
	var h []int64
	for i, e := range evs {
		if e.Kind == trace.KindModelRequest && e.Round == 2 {
			var err error
			if h, err = trace.RequestHistory(evs, i); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(h) != 4 || h[2] != resultSeqs[0] || h[3] != resultSeqs[1] {
		t.Errorf("round 2 history = %v, want the results %v last, in call order", h, resultSeqs)
	}
	// And the body sent (rebuilt from the log, byte-identical to the wire)
	// pairs them with the calls of the assistant message.
	msgs := chatMessages(t, r.checkRawRequests()[1])
	if len(msgs) != 5 {
		t.Fatalf("round 2 sent %d messages, want system, user, assistant, tool, tool", len(msgs))
	}
	asst, tail := msgs[2], msgs[3:]
	if asst.Role != "assistant" || len(asst.ToolCalls) != 2 {
		t.Fatalf("assistant message sent back = %+v", asst)
	}
	for i, m := range tail {
		if asst.ToolCalls[i].ID != calls[i].ID || m.Role != "tool" || m.ToolCallID != calls[i].ID ||
			m.ToolName != "run_command" || m.Content != want[i] {
			t.Errorf("pair %d: call %s, message %+v", i, asst.ToolCalls[i].ID, m)
		}
	}
}

// Scenario 3: a thinking model. Loupe asks for thinking, and Ollama's
// thinking parser hands it back apart from the answer; it is stored, shown
// (streamed) and sent back apart too.
func TestThinkingKeptApart(t *testing.T) {
	srv := startServer(t, gguf.Script{Thinking: true, Steps: []gguf.Step{
		{Think: "The user wants a listing; list_dir first.", Call: []gguf.Call{{Name: "list_dir", Args: `{"path": "."}`}}},
		{Think: "Two files.", Answer: "README.md and notes.txt."},
	}})
	r := newRig(t, srv)
	end := r.run("What is in this folder?")
	if end.Reason != trace.EndAnswered || end.FinalText != "README.md and notes.txt." {
		t.Fatalf("end = %+v", end)
	}
	evs := r.events()
	invariants.Check(t, evs)
	if mr := payloads[trace.ModelRequest](t, evs, trace.KindModelRequest)[0]; mr.Think == nil || !*mr.Think {
		t.Errorf("request think = %v, want true for a model with the thinking capability", mr.Think)
	}
	// Ollama strips the whitespace after <think> but keeps the newline
	// before </think>, so thinking ends with "\n": kept as Ollama sent it.
	resp := payloads[trace.ModelResponse](t, evs, trace.KindModelResponse)
	if resp[0].Thinking != "The user wants a listing; list_dir first.\n" || resp[0].Content != "" || len(resp[0].ToolCalls) != 1 {
		t.Errorf("round 1: thinking %q, content %q, %d calls", resp[0].Thinking, resp[0].Content, len(resp[0].ToolCalls))
	}
	if resp[1].Thinking != "Two files.\n" || resp[1].Content != "README.md and notes.txt." {
		t.Errorf("round 2: thinking %q, content %q", resp[1].Thinking, resp[1].Content)
	}
	// Streamed apart: no delta mixes the two, and each joins to its field.
	var think, content [3]strings.Builder
	for _, d := range r.sink.allDeltas() {
		if d.Thinking != "" && d.Content != "" {
			t.Errorf("delta mixes thinking and content: %+v", d)
		}
		think[d.Round].WriteString(d.Thinking)
		content[d.Round].WriteString(d.Content)
	}
	for i, p := range resp {
		if think[i+1].String() != p.Thinking || content[i+1].String() != p.Content {
			t.Errorf("round %d deltas: thinking %q content %q", i+1, think[i+1].String(), content[i+1].String())
		}
	}
	// Sent back apart in round 2's history.
	msgs := chatMessages(t, r.checkRawRequests()[1])
	if a := msgs[2]; a.Role != "assistant" || a.Thinking != resp[0].Thinking || a.Content != "" {
		t.Errorf("assistant message sent back = %+v", a)
	}
	r.golden("thinking")
}

// Scenario 4: plain chat. The model is offered the tools and answers
// directly: one round, no calls.
func TestPlainChat(t *testing.T) {
	srv := startServer(t, gguf.Script{Steps: []gguf.Step{
		{Answer: "Hello! I can read, edit and run things in this folder."},
	}})
	r := newRig(t, srv)
	end := r.run("Hi there")
	if end.Reason != trace.EndAnswered || end.FinalText != "Hello! I can read, edit and run things in this folder." || end.Rounds != 1 {
		t.Fatalf("end = %+v", end)
	}
	evs := r.events()
	invariants.Check(t, evs)
	if got, want := kinds(evs), "user_message model_request model_response run_end"; got != want {
		t.Fatalf("kinds:\n got %s\nwant %s", got, want)
	}
	req := chatRequest(t, r.checkRawRequests()[0])
	if len(req.Tools) != 7 || req.Think != nil {
		t.Errorf("request offered %d tools, think %v; want the 7 built-ins and no think", len(req.Tools), req.Think)
	}
	resp := payloads[trace.ModelResponse](t, evs, trace.KindModelResponse)[0]
	if resp.DoneReason != "stop" || resp.Incomplete || resp.Thinking != "" || len(resp.ToolCalls) != 0 {
		t.Errorf("response = %+v", resp)
	}
}

// Scenario 5: a model whose template cannot show tools. Loupe notices from
// /api/show, says so before the first request, and runs plain chat without
// sending tools (real Ollama refuses tools for such a model, so the answer
// itself shows none were sent).
func TestModelWithoutToolsRunsAsPlainChat(t *testing.T) {
	srv := startServer(t, gguf.Script{NoTools: true, Steps: []gguf.Step{
		{Answer: "Hello from a model without tools."},
	}})
	r := newRig(t, srv)
	end := r.run("Hi there")
	if end.Reason != trace.EndAnswered || end.FinalText != "Hello from a model without tools." {
		t.Fatalf("end = %+v", end)
	}
	evs := r.events()
	invariants.Check(t, evs)
	if got, want := kinds(evs), "user_message notice model_request model_response run_end"; got != want {
		t.Fatalf("kinds:\n got %s\nwant %s", got, want)
	}
	n := decode[trace.Notice](t, evs[1])
	if n.Code != "no_tools" || !strings.Contains(n.Message, modelName) || !strings.Contains(n.Message, "no tools sent") {
		t.Errorf("notice = %+v", n)
	}
	if mr := decode[trace.ModelRequest](t, evs[2]); len(mr.Tools) != 0 {
		t.Errorf("model_request lists %d tools", len(mr.Tools))
	}
	raw := r.checkRawRequests()[0]
	if strings.Contains(raw, `"tools"`) || strings.Contains(raw, `"think"`) {
		t.Errorf("request body carries tools or think: %s", raw)
	}
	r.golden("no_tools")
}

// Scenario 6: read_file → edit_file → run_command → answer. The file is
// really edited in the workspace, and the command's real output is the
// observation.
func TestReadEditRun(t *testing.T) {
	srv := startServer(t, gguf.Script{Steps: []gguf.Step{
		{Call: []gguf.Call{{Name: "read_file", Args: `{"path": "greeting.txt"}`}}},
		{Call: []gguf.Call{{Name: "edit_file", Args: `{"path": "greeting.txt", "old_string": "world", "new_string": "Loupe"}`}}},
		{Call: []gguf.Call{{Name: "run_command", Args: `{"command": "cat greeting.txt; wc -l < greeting.txt"}`}}},
		{Answer: "greeting.txt now says Hello, Loupe!"},
	}})
	r := newRig(t, srv)
	r.write("greeting.txt", "Hello, world!\n")
	end := r.run("Greet Loupe instead of the world, then show the file")
	if end.Reason != trace.EndAnswered || end.Rounds != 4 || end.FinalText != "greeting.txt now says Hello, Loupe!" {
		t.Fatalf("end = %+v", end)
	}
	if got := r.read("greeting.txt"); got != "Hello, Loupe!\n" {
		t.Fatalf("greeting.txt = %q after the edit", got)
	}
	evs := r.events()
	invariants.Check(t, evs)
	res := payloads[trace.ToolResult](t, evs, trace.KindToolResult)
	if len(res) != 3 {
		t.Fatalf("%d results, want 3", len(res))
	}
	for i, name := range []string{"read_file", "edit_file", "run_command"} {
		if res[i].Name != name || res[i].IsError {
			t.Errorf("result %d = %+v, want a successful %s", i, res[i], name)
		}
	}
	if !strings.Contains(res[0].Content, "Hello, world!") {
		t.Errorf("read_file saw %q", res[0].Content)
	}
	if d := res[1].Display; d == nil || !strings.Contains(d.Diff, "-Hello, world!") || !strings.Contains(d.Diff, "+Hello, Loupe!") {
		t.Errorf("edit_file display = %+v", d)
	}
	// The command ran in the workspace after the edit: its real output.
	if res[2].Content != "Hello, Loupe!\n1\nexit code 0" || res[2].ExitCode == nil || *res[2].ExitCode != 0 {
		t.Errorf("run_command result = %+v", res[2])
	}
	r.checkRawRequests()
	r.golden("read_edit_run")
}

// Scenario 7: the Ollama server is killed while it streams a message that
// holds a complete tool call. The run ends with reason "error" and a clear
// message, the call never runs, and once Ollama is back the same session
// goes on to an answer with a valid history.
func TestOllamaKilledMidStream(t *testing.T) {
	srv := startServer(t, gguf.Script{Steps: []gguf.Step{
		// After the call the model goes on and on (Ollama's tool parser
		// swallows that text), so the message never ends on its own.
		{Answer: "Writing the file now.", Call: []gguf.Call{{Name: "write_file", Args: `{"path": "evil.txt", "content": "must never be written"}`}}, Repeat: " and on"},
		{Answer: "Back after the restart."},
	}})
	r := newRig(t, srv)

	firstDelta, sawCall := make(chan struct{}), make(chan struct{})
	var deltaOnce, callOnce sync.Once
	r.sink.onDelta = func(agent.Delta) { deltaOnce.Do(func() { close(firstDelta) }) }
	r.wire.watch(func(soFar []byte) {
		// The whole line with the call has been read, so the client has it.
		if i := bytes.Index(soFar, []byte(`"tool_calls"`)); i >= 0 && bytes.IndexByte(soFar[i:], '\n') >= 0 {
			callOnce.Do(func() { close(sawCall) })
		}
	})
	if _, err := r.m.Do(context.Background(), session.Send{Session: r.id, Text: "Write evil.txt"}); err != nil {
		t.Fatal(err)
	}
	for what, ch := range map[string]chan struct{}{"the first delta at the sink": firstDelta, "the tool call on the wire": sawCall} {
		select {
		case <-ch:
		case <-time.After(time.Minute):
			t.Fatalf("timed out waiting for %s", what)
		}
	}
	srv.Kill()
	r.waitEnd()
	r.wire.watch(nil)

	evs := r.events()
	invariants.Check(t, evs)
	if got, want := kinds(evs), "user_message model_request model_response error run_end"; got != want {
		t.Fatalf("kinds:\n got %s\nwant %s", got, want)
	}
	resp := decode[trace.ModelResponse](t, evs[2])
	if !resp.Incomplete || len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "write_file" || resp.Content != "Writing the file now." {
		t.Fatalf("stored partial message = %+v; want it incomplete, holding the write_file call", resp)
	}
	end := decode[trace.RunEnd](t, evs[4])
	t.Logf("run_end detail: %s", end.Detail)
	if end.Reason != trace.EndError || !strings.Contains(end.Detail, "closed before the answer finished") ||
		!strings.Contains(end.Detail, "not run") {
		t.Fatalf("run_end = %+v; want reason error saying the connection closed and the call did not run", end)
	}
	if e := decode[trace.Error](t, evs[3]); e.Message != end.Detail {
		t.Errorf("error event %+v differs from run_end detail %q", e, end.Detail)
	}
	if _, err := os.Stat(filepath.Join(r.ws, "evil.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the call of the cut message ran: %v", err)
	}

	// Ollama is back: the same session continues.
	srv.Restart(t)
	end = r.run("Never mind. Are you back?")
	if end.Reason != trace.EndAnswered || end.FinalText != "Back after the restart." {
		t.Fatalf("run after restart = %+v", end)
	}
	evs = r.events()
	invariants.Check(t, evs)
	raws := r.checkRawRequests()
	msgs := chatMessages(t, raws[len(raws)-1])
	if len(msgs) != 4 || msgs[2].Role != "assistant" || msgs[2].Content != "Writing the file now." || len(msgs[2].ToolCalls) != 0 {
		t.Fatalf("history after the restart = %+v; want the partial text kept and its call left out", msgs)
	}
	if _, err := os.Stat(filepath.Join(r.ws, "evil.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the cut call ran later: %v", err)
	}
}

// Scenario 7, earlier: Ollama dies after the request is sent and before
// the answer starts (as when a model fails to load). The run ends with an
// error that says what to do, and the session goes on after a restart.
func TestOllamaKilledBeforeAnswering(t *testing.T) {
	// Either step may answer after the restart: whether the empty message
	// of the killed request counts as an assistant turn is not this test's
	// business.
	srv := startServer(t, gguf.Script{Steps: []gguf.Step{
		{Answer: "Back after the restart."},
		{Answer: "Back after the restart."},
	}})
	r := newRig(t, srv)
	// The server is fresh: it loads the model on the first chat request,
	// and only answers (headers included) once the prompt is evaluated.
	var once sync.Once
	killed := make(chan bool, 1)
	r.wire.beforeSend(func() {
		once.Do(func() {
			go func() {
				deadline := time.Now().Add(time.Minute)
				for !strings.Contains(srv.Log(), `msg="loading model"`) && time.Now().Before(deadline) {
					time.Sleep(5 * time.Millisecond)
				}
				srv.Kill()
				killed <- time.Now().Before(deadline)
			}()
		})
	})
	end := r.run("Hello?")
	r.wire.beforeSend(nil)
	if !<-killed {
		t.Fatal("the server never logged that it was loading the model")
	}
	t.Logf("run_end detail: %s", end.Detail)
	if end.Reason != trace.EndError || !strings.Contains(end.Detail, "closed before the answer finished") {
		t.Fatalf("end = %+v; want reason error saying the connection closed", end)
	}
	evs := r.events()
	invariants.Check(t, evs)
	if got, want := kinds(evs), "user_message model_request model_response error run_end"; got != want {
		t.Fatalf("kinds:\n got %s\nwant %s", got, want)
	}
	if resp := decode[trace.ModelResponse](t, evs[2]); !resp.Incomplete || resp.Content != "" {
		t.Errorf("response = %+v, want an empty incomplete one", resp)
	}

	srv.Restart(t)
	end = r.run("Are you back?")
	if end.Reason != trace.EndAnswered || end.FinalText != "Back after the restart." {
		t.Fatalf("run after restart = %+v", end)
	}
	invariants.Check(t, r.events())
	r.checkRawRequests()
}

// Calls the harness must check. Ollama's parser passes on arguments of the
// wrong type, and Loupe answers them with an invalid_args observation the
// model can act on. A call to a tool that is not in the request's tools is
// held back by Ollama itself (tools.Parser finds no name it knows), so it
// never reaches Loupe: the message arrives as its text alone.
func TestMalformedCalls(t *testing.T) {
	srv := startServer(t, gguf.Script{Steps: []gguf.Step{
		{Call: []gguf.Call{{Name: "read_file", Args: `{"path": 7}`}}},
		{Answer: "I passed a number; sorry."},
		{Answer: "Deleting.", Call: []gguf.Call{{Name: "delete_everything", Args: `{}`}}},
	}})
	r := newRig(t, srv)
	end := r.run("Read file 7")
	if end.Reason != trace.EndAnswered || end.FinalText != "I passed a number; sorry." {
		t.Fatalf("end = %+v", end)
	}
	evs := r.events()
	invariants.Check(t, evs)
	call := payloads[trace.ToolCall](t, evs, trace.KindToolCall)
	res := payloads[trace.ToolResult](t, evs, trace.KindToolResult)
	if len(call) != 1 || call[0].Valid || call[0].ErrorKind != trace.ErrInvalidArgs ||
		len(res) != 1 || res[0].ErrorKind != trace.ErrInvalidArgs || !strings.Contains(res[0].Content, `"path" must be a string`) {
		t.Fatalf("call %+v, result %+v; want an invalid_args observation", call, res)
	}
	if n := len(payloads[trace.Permission](t, evs, trace.KindPermission)); n != 0 {
		t.Errorf("%d permission events for a call that failed its check", n)
	}

	end = r.run("Delete everything")
	if end.Reason != trace.EndAnswered || end.FinalText != "Deleting." {
		t.Fatalf("end = %+v", end)
	}
	evs = r.events()
	invariants.Check(t, evs)
	if n := len(payloads[trace.ToolCall](t, evs, trace.KindToolCall)); n != 1 {
		t.Errorf("%d tool_call events; Ollama was expected to hold back the call to a tool it was not offered", n)
	}
}

// Scenario 8: a model Ollama does not have. The error says what to do, and
// nothing is written to the session.
func TestUnknownModel(t *testing.T) {
	srv := startServer(t, gguf.Script{Steps: []gguf.Step{{Answer: "unused"}}})
	r := newRig(t, srv)
	const missing = "loupe-missing-model"
	if _, err := r.m.Do(context.Background(), session.SetModel{Session: r.id, Model: missing}); err != nil {
		t.Fatal(err)
	}
	for _, start := range []bool{false, true} {
		var err error
		if start {
			_, err = r.m.Do(context.Background(), session.Send{Session: r.id, Text: "Hi"})
		} else {
			_, err = r.m.Run(context.Background(), r.id, "Hi", session.RunOptions{})
		}
		var nf *ollama.ModelNotFoundError
		if !errors.As(err, &nf) || !strings.Contains(err.Error(), "ollama pull "+missing) {
			t.Fatalf("start=%v: err = %v, want a model-not-found error saying `ollama pull %s`", start, err, missing)
		}
	}
	// Neither started a run (an error from Send means none started).
	if evs := r.events(); len(evs) != 0 {
		t.Fatalf("%d events written for a run that could not start: %s", len(evs), kinds(evs))
	}
	if n := len(r.wire.chatBodies()); n != 0 {
		t.Fatalf("%d chat requests sent for an unknown model", n)
	}
	d, err := r.m.Open(context.Background(), r.id)
	if err != nil {
		t.Fatal(err)
	}
	if d.Summary.LastReason != "" || d.Summary.EventCount != 0 || d.Summary.Running {
		t.Errorf("session after the refused run = %+v", d.Summary)
	}
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A prompt over a small context: the scripted model says it holds 4096
// tokens, so Loupe sends num_ctx 4096 with truncate false; it reads a 12 KB
// file (about 12,000 tokens with this vocabulary), and the real Ollama
// refuses the next prompt instead of cutting it. The run stops with a
// does_not_fit error naming the file read as the biggest part; nothing is
// cut, and the model never answers from a cut prompt.
func TestPromptOverASmallContext(t *testing.T) {
	srv := startServer(t, gguf.Script{ContextLength: 4096, CompactTools: true, Steps: []gguf.Step{
		{Call: []gguf.Call{{Name: "read_file", Args: `{"path": "big.log"}`}}},
		{Answer: "never: the prompt does not fit"},
	}})
	r := newRig(t, srv)
	var b strings.Builder
	for i := 0; b.Len() < 12_000; i++ {
		b.WriteString("a line of a long log file, one of many\n")
	}
	r.write("big.log", b.String())
	end := r.run("What is in big.log?")
	if end.Reason != trace.EndDoesNotFit || end.Rounds != 2 {
		t.Fatalf("end = %+v", end)
	}
	evs := r.events()
	invariants.Check(t, evs)
	reqs := payloads[trace.ModelRequest](t, evs, trace.KindModelRequest)
	for i, mr := range reqs {
		if mr.Options.NumCtx != 4096 || mr.Truncate == nil || *mr.Truncate {
			t.Fatalf("request %d: num_ctx %d truncate %v, want 4096 and false", i+1, mr.Options.NumCtx, mr.Truncate)
		}
	}
	resp := payloads[trace.ModelResponse](t, evs, trace.KindModelResponse)
	if len(resp) != 2 || len(resp[0].ToolCalls) != 1 || resp[1].Content != "" || !resp[1].Incomplete {
		t.Fatalf("responses = %+v", resp)
	}
	errs := payloads[trace.Error](t, evs, trace.KindError)
	if len(errs) != 1 || errs[0].Code != trace.CodeDoesNotFit || errs[0].Fit == nil {
		t.Fatalf("errors = %+v", errs)
	}
	fit := errs[0].Fit
	if fit.NumCtx != 4096 || fit.Parts[0].Name != "latest observations" || fit.Largest == nil || !strings.Contains(fit.Largest.Name, "read_file") {
		t.Fatalf("fit = %+v", fit)
	}
	for _, n := range payloads[trace.Notice](t, evs, trace.KindNotice) {
		if n.Code == trace.CodeContextCut || n.Code == "retry" {
			t.Errorf("notice %+v", n)
		}
	}
}
