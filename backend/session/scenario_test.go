package session_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/testkit/procs"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

func call(id, name, args string) ollamatest.Call {
	return ollamatest.Call{ID: id, Name: name, Args: args}
}

func calls(cs ...ollamatest.Call) ollamatest.Reply { return ollamatest.Reply{ToolCalls: cs} }

// One call, one observation, one answer: the basic shape of the loop.
func TestSingleCall(t *testing.T) {
	h := newHarness(t, permission.ModeAsk, nil)
	h.srv.Script(
		calls(call("call_1", "list_dir", `{"path":"."}`)),
		ollamatest.Text("The workspace has ", "README.md and notes.txt."),
	)
	end := h.run("What is in this folder?")
	if end.Reason != trace.EndAnswered || end.FinalText != "The workspace has README.md and notes.txt." {
		t.Fatalf("end = %+v", end)
	}
	evs := h.events()
	invariants.Check(t, evs)
	h.golden("single_call")
	// The sidebar shows how the last run ended.
	if list, err := h.m.List(context.Background()); err != nil || list[0].LastReason != trace.EndAnswered || list[0].Title != "What is in this folder?" {
		t.Fatalf("summary after the run = %+v %v", list, err)
	}

	// The second request carried the observation back, paired by id.
	reqs := h.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	msgs := reqs[1].Chat.Messages
	last := msgs[len(msgs)-1]
	if last.Role != "tool" || last.ToolCallID != "call_1" || last.ToolName != "list_dir" || !strings.Contains(last.Content, "README.md") {
		t.Fatalf("last message of round 2 = %+v", last)
	}
	if reqs[0].Chat.Options["num_ctx"] != float64(16384) {
		t.Fatalf("num_ctx = %v, want the 16384 cap (model has 32768)", reqs[0].Chat.Options["num_ctx"])
	}
	// Streaming: the answer reached the UI in its two pieces before the
	// event was stored.
	var got []string
	for _, d := range h.sink.deltas {
		if d.Round == 2 {
			got = append(got, d.Content)
		}
	}
	if strings.Join(got, "|") != "The workspace has |README.md and notes.txt." {
		t.Fatalf("round 2 deltas = %q", got)
	}
}

// The raw request rebuilt from the log is byte for byte the body Ollama got.
func TestRawRequestIsWhatWasSent(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	h.srv.Script(
		calls(call("call_1", "read_file", `{"path":"README.md"}`), call("call_2", "grep", `{"pattern":"beta"}`)),
		calls(call("call_3", "write_file", `{"path":"out.txt","content":"done\n"}`)),
		ollamatest.Text("ok"),
	)
	h.run("Look around, then write out.txt")
	reqs := h.srv.Requests()
	var n int
	for _, e := range h.events() {
		if e.Kind != trace.KindModelRequest {
			continue
		}
		raw, err := session.RawRequest(context.Background(), h.st, h.id, e.Seq)
		if err != nil {
			t.Fatal(err)
		}
		if raw != string(reqs[n].Body) {
			t.Fatalf("request %d: rebuilt body differs from the body sent\nrebuilt: %s\nsent:    %s", n+1, raw, reqs[n].Body)
		}
		n++
	}
	if n != 3 {
		t.Fatalf("%d model_request events, want 3", n)
	}
}

// Several calls in one message run concurrently; their results go back in
// call order, each paired with its id.
func TestParallelCalls(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	h.srv.Script(
		calls(
			// Each command waits for the other to start: run one after the
			// other, the first would time out without its word.
			call("call_a", "run_command", `{"command":"touch a.up; until [ -e b.up ]; do sleep 0.01; done; sleep 0.2; echo slow","timeout_ms":5000}`),
			call("call_b", "run_command", `{"command":"touch b.up; until [ -e a.up ]; do sleep 0.01; done; echo fast","timeout_ms":5000}`),
			call("call_c", "read_file", `{"path":"notes.txt"}`),
		),
		ollamatest.Text("Both ran."),
	)
	h.run("Run both")
	evs := h.events()
	invariants.Check(t, evs)
	rs := results(t, evs)
	if len(rs) != 3 || rs[0].CallID != "call_a" || rs[1].CallID != "call_b" || rs[2].CallID != "call_c" {
		t.Fatalf("results out of call order: %+v", rs)
	}
	// Concurrency: each command finished, which it can only do if the
	// other one was running at the same time.
	if !strings.Contains(rs[0].Content, "slow") || !strings.Contains(rs[1].Content, "fast") || !strings.Contains(rs[2].Content, "beta") {
		t.Fatalf("results not paired with their calls, or the commands did not run together: %+v", rs)
	}
	msgs := h.srv.Requests()[1].Chat.Messages
	tail := msgs[len(msgs)-3:]
	for i, id := range []string{"call_a", "call_b", "call_c"} {
		if tail[i].Role != "tool" || tail[i].ToolCallID != id {
			t.Fatalf("message %d sent back = %+v, want the result of %s", i, tail[i], id)
		}
	}
	h.golden("parallel_calls")
}

// Unknown tool, arguments that don't fit, and a tool that fails while
// running are three different observations the model can act on.
func TestErrorKinds(t *testing.T) {
	h := newHarness(t, permission.ModeAsk, nil)
	h.srv.Script(
		calls(
			call("call_1", "delete_everything", `{}`),
			call("call_2", "read_file", `{"path":7}`),
			call("call_3", "read_file", `{"path":"missing.txt"}`),
		),
		ollamatest.Text("I see what went wrong."),
	)
	h.run("Try things")
	evs := h.events()
	invariants.Check(t, evs)
	rs := results(t, evs)
	want := []struct{ kind, text string }{
		{trace.ErrUnknownTool, "unknown tool delete_everything; available: read_file, write_file, edit_file, list_dir, glob, grep, run_command"},
		{trace.ErrInvalidArgs, "invalid arguments for read_file:"},
		{trace.ErrFailed, "read_file failed:"},
	}
	for i, w := range want {
		if !rs[i].IsError || rs[i].ErrorKind != w.kind || !strings.HasPrefix(rs[i].Content, w.text) {
			t.Errorf("result %d = %+v, want %s starting %q", i, rs[i], w.kind, w.text)
		}
	}
	if !strings.Contains(rs[1].Content, "expected") {
		t.Errorf("invalid-arguments observation does not show the expected shape: %q", rs[1].Content)
	}
	h.golden("error_kinds")
}

// The round cap stops a model that never stops calling tools.
func TestRoundCap(t *testing.T) {
	h := newHarness(t, permission.ModeAsk, func(s *settings.Settings) { s.MaxRounds = 2 })
	h.srv.Script(
		calls(call("call_1", "list_dir", `{"path":"."}`)),
		calls(call("call_2", "list_dir", `{"path":"."}`)),
	)
	end := h.run("Loop forever")
	if end.Reason != trace.EndRoundCap || end.Rounds != 2 {
		t.Fatalf("end = %+v", end)
	}
	if n := len(h.srv.Requests()); n != 2 {
		t.Fatalf("%d requests after a cap of 2", n)
	}
	invariants.Check(t, h.events())
	h.golden("round_cap")
}

// bigLog is a 20 KB file: about 5,000 tokens, more than a 4096 context.
func bigLog() string {
	var b strings.Builder
	for i := 1; b.Len() < 20_000; i++ {
		fmt.Fprintf(&b, "2026-11-30T10:%02d:%02d worker %d: job %d done\n", i/60%60, i%60, i%7, i)
	}
	return b.String()
}

// A prompt over num_ctx: the request says truncate false, the fake refuses
// it as Ollama does, and the run stops with a does_not_fit error naming
// the parts; nothing is cut, nothing retried, the unused reply stays.
func TestPromptThatDoesNotFit(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, func(s *settings.Settings) { s.NumCtxCap = 4096 })
	h.write("big.log", bigLog())
	h.srv.Script(
		calls(call("call_1", "read_file", `{"path":"big.log"}`)),
		text("never sent"),
	)
	end := h.run("What is in big.log?")
	if end.Reason != trace.EndDoesNotFit {
		t.Fatalf("end = %+v", end)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 2 || reqs[0].TooLong || !reqs[1].TooLong || h.srv.Pending() != 1 {
		t.Fatalf("%d requests (refused: %v), %d replies unused", len(reqs), reqs[len(reqs)-1].TooLong, h.srv.Pending())
	}
	for _, r := range reqs {
		if r.Chat.Truncating() {
			t.Fatalf("request %d lets Ollama cut: %s", r.Seq, r.Body)
		}
	}
	var fit *trace.Fit
	for _, e := range h.events() {
		if e.Kind == trace.KindError {
			p, _ := trace.Decode[trace.Error](e)
			fit = p.Fit
		}
	}
	if fit == nil || fit.NumCtx != 4096 || fit.Needed <= 4096 || fit.Parts[0].Name != "latest observations" ||
		fit.Largest == nil || !strings.Contains(fit.Largest.Name, "read_file") {
		t.Fatalf("fit = %+v", fit)
	}
	invariants.Check(t, h.events())
	h.golden("does_not_fit")
}

// A stream cut in the middle of a message with a tool call: the call never
// runs, the run ends with a clear error, and the session goes on.
func TestCutStreamNeverRunsItsCalls(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	cut := calls(call("call_1", "write_file", `{"path":"evil.txt","content":"x"}`))
	cut.Chunks = []ollamatest.Chunk{{Content: "Writing the file"}}
	cut.Fault = ollamatest.CutAfter(2)
	h.srv.Script(cut)
	end := h.run("Write it")
	if end.Reason != trace.EndError || !strings.Contains(end.Detail, "not run") {
		t.Fatalf("end = %+v", end)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "evil.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a call from a cut stream ran: %v", err)
	}
	invariants.Check(t, h.events())
	h.golden("cut_stream")

	// The next message continues the same session with a valid history:
	// the partial text is kept, its call is not.
	h.srv.Script(ollamatest.Text("Fine."))
	if end := h.run("Never mind"); end.Reason != trace.EndAnswered {
		t.Fatalf("second run = %+v", end)
	}
	msgs := h.srv.Requests()[1].Chat.Messages
	for _, m := range msgs {
		if len(m.ToolCalls) > 0 {
			t.Fatalf("a call from the cut message was sent back: %+v", m)
		}
	}
	if msgs[2].Role != "assistant" || msgs[2].Content != "Writing the file" {
		t.Fatalf("partial text not kept: %+v", msgs[2])
	}
}

// done_reason "length": the message is incomplete, its calls do not run.
func TestLengthCutNeverRunsItsCalls(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	r := calls(call("call_1", "run_command", `{"command":"touch ran.txt"}`))
	r.DoneReason = "length"
	h.srv.Script(r)
	end := h.run("Go")
	if end.Reason != trace.EndTruncated {
		t.Fatalf("end = %+v", end)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "ran.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a call from a message cut by the token limit ran")
	}
	invariants.Check(t, h.events())
}

// Ollama failures end the run with an error that says what happened. A
// failure before any of the answer arrived is tried again twice (with a
// notice each time); one after the answer started is not.
func TestModelErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		reply   ollamatest.Reply
		want    string
		retries int
	}{
		{"http 500", ollamatest.Reply{Fault: ollamatest.HTTPStatus(500, `{"error":"llama runner process has terminated"}`)}, "llama runner process has terminated", 2},
		{"error line", ollamatest.Reply{Chunks: []ollamatest.Chunk{{Content: "par"}}, Fault: ollamatest.ErrorLineAfter(1, "out of memory")}, "out of memory", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, permission.ModeAuto, nil)
			for i := 0; i <= tc.retries; i++ {
				h.srv.Script(tc.reply)
			}
			end := h.run("Hi")
			if end.Reason != trace.EndError || !strings.Contains(end.Detail, tc.want) {
				t.Fatalf("end = %+v", end)
			}
			invariants.Check(t, h.events())
			retries := notices(h.events(), "retry")
			if retries != tc.retries || h.srv.Pending() != 0 {
				t.Fatalf("%d retries (%d replies left), want %d", retries, h.srv.Pending(), tc.retries)
			}
			// The session goes on; an answer that never started is not
			// sent back as an empty assistant message.
			h.srv.Script(ollamatest.Text("Back."))
			if end := h.run("Again"); end.Reason != trace.EndAnswered {
				t.Fatalf("next run = %+v", end)
			}
			reqs := h.srv.Requests()
			for _, m := range reqs[len(reqs)-1].Chat.Messages {
				if m.Role == "assistant" && m.Content == "" && len(m.ToolCalls) == 0 {
					t.Fatalf("empty assistant message sent back: %+v", reqs[len(reqs)-1].Chat.Messages)
				}
			}
		})
	}
}

// An empty answer (Ollama drops calls it cannot parse) gets a notice that
// says what probably happened.
func TestEmptyAnswerNotice(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	h.srv.Script(ollamatest.Reply{})
	if end := h.run("Hi"); end.Reason != trace.EndAnswered || end.FinalText != "" {
		t.Fatalf("end = %+v", end)
	}
	if notices(h.events(), "empty_answer") == 0 {
		t.Fatal("no empty_answer notice")
	}
}

// An unknown model is refused before anything is written.
func TestUnknownModel(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	if _, err := h.m.SetModel(context.Background(), h.id, "nope"); err != nil {
		t.Fatal(err)
	}
	_, err := h.m.Run(context.Background(), h.id, "Hi", session.RunOptions{})
	var nf *ollama.ModelNotFoundError
	if !errors.As(err, &nf) || !strings.Contains(err.Error(), "ollama pull nope") {
		t.Fatalf("err = %v, want a model-not-found error saying to pull it", err)
	}
	if evs := h.events(); len(evs) != 0 {
		t.Fatalf("%d events written for a run that could not start", len(evs))
	}
}

// Ollama not running: the error says where and what to do.
func TestOllamaNotRunning(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	h.srv.Close()
	_, err := h.m.Run(context.Background(), h.id, "Hi", session.RunOptions{})
	if err == nil || !strings.Contains(err.Error(), "ollama serve") || !strings.Contains(err.Error(), h.srv.URL()) {
		t.Fatalf("err = %v", err)
	}
}

// Approval: a command asks; the user's answer is recorded with who decided.
func TestApproveAndDeny(t *testing.T) {
	h := newHarness(t, permission.ModeAsk, nil)
	h.srv.Script(
		calls(call("call_1", "run_command", `{"command":"echo approved > a.txt"}`), call("call_2", "run_command", `{"command":"echo denied > d.txt"}`)),
		ollamatest.Text("Done."),
	)
	go func() {
		a := <-h.asks
		if a.Display.Command != "echo approved > a.txt" {
			t.Errorf("approval card shows %+v, want the full command", a.Display)
		}
		h.answer(a.CallID, true)
		d := <-h.asks
		h.answer(d.CallID, false)
	}()
	h.run("Write files")
	if _, err := os.Stat(filepath.Join(h.ws, "a.txt")); err != nil {
		t.Fatal("approved command did not run")
	}
	if _, err := os.Stat(filepath.Join(h.ws, "d.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("denied command ran")
	}
	evs := h.events()
	invariants.Check(t, evs)
	rs := results(t, evs)
	if rs[1].ErrorKind != trace.ErrDenied || !rs[1].IsError {
		t.Fatalf("denied result = %+v", rs[1])
	}
	h.golden("approve_deny")
}

// Stop while a command runs: the process tree dies, the open call gets
// "cancelled", and the next message continues with a valid history.
func TestCancelDuringCommand(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	marker := "loupe-cancel-marker-" + strings.ReplaceAll(t.Name(), "/", "-")
	h.srv.Script(
		calls(call("call_1", "run_command", `{"command":"sh -c 'sleep 30; echo `+marker+`' & echo started; touch started.txt; wait"}`),
			call("call_2", "read_file", `{"path":"README.md"}`)),
	)
	done := make(chan trace.RunEnd, 1)
	go func() { done <- h.run("Run the long thing") }()
	waitFor(t, func() bool {
		_, started := h.read("started.txt")
		return started && len(procs.Containing(marker)) > 0
	}, "the command to start")
	h.m.Stop(h.id)
	var end trace.RunEnd
	select {
	case end = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("run did not end after Stop")
	}
	if end.Reason != trace.EndCancelled {
		t.Fatalf("end = %+v", end)
	}
	waitFor(t, func() bool { return len(procs.Containing(marker)) == 0 }, "the process tree to die")
	evs := h.events()
	invariants.Check(t, evs)
	rs := results(t, evs)
	if rs[0].ErrorKind != trace.ErrCancelled {
		t.Fatalf("running call's result = %+v, want cancelled", rs[0])
	}
	h.golden("cancel_command")

	h.srv.Script(ollamatest.Text("OK, stopped."))
	if end := h.run("Never mind"); end.Reason != trace.EndAnswered {
		t.Fatalf("next run = %+v", end)
	}
	invariants.Check(t, h.events())
}

// Stop while waiting for approval: the question is withdrawn and the call
// gets "cancelled".
func TestCancelWhileAsking(t *testing.T) {
	h := newHarness(t, permission.ModeAsk, nil)
	h.srv.Script(calls(call("call_1", "write_file", `{"path":"x.txt","content":"x"}`)))
	done := make(chan trace.RunEnd, 1)
	go func() { done <- h.run("Write") }()
	a := <-h.asks
	if !strings.Contains(a.Display.Diff, "+x") {
		t.Errorf("approval shows no diff: %+v", a.Display)
	}
	h.m.Stop(h.id)
	end := <-done
	if end.Reason != trace.EndCancelled {
		t.Fatalf("end = %+v", end)
	}
	if err := h.answer(a.CallID, true); !errors.Is(err, permission.ErrUnknownRequest) {
		t.Fatalf("late answer err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "x.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("write ran after stop")
	}
	invariants.Check(t, h.events())
}

// A run the app left open (it exited mid-call) is closed on the next start:
// the started call gets "interrupted (app exited)" and the session reopens
// with a valid history.
func TestRecoverAfterCrash(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	ctx := context.Background()
	h.crashedDuringCall("run_command", `{"command":"sleep 100"}`)
	m2 := session.NewManager(h.st, ollama.New(h.srv.URL(), nil), permission.NewBroker(), nil)
	if err := m2.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	evs := h.events()
	invariants.Check(t, evs)
	rs := results(t, evs)
	if len(rs) != 1 || rs[0].ErrorKind != trace.ErrInterrupted || !strings.Contains(rs[0].Content, "app exited") {
		t.Fatalf("results after recovery = %+v", rs)
	}
	if e := lastEnd(t, evs); e.Reason != trace.EndInterrupted {
		t.Fatalf("run_end = %+v", e)
	}
	// Recovering twice changes nothing.
	n := len(evs)
	if err := m2.Recover(ctx); err != nil || len(h.events()) != n {
		t.Fatalf("second recover: err=%v events %d→%d", err, n, len(h.events()))
	}
}

// A model without the tools capability runs as plain chat: no tools sent,
// and a notice says so.
func TestModelWithoutTools(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	h.srv.AddModel(ollamatest.ModelSpec{Name: "plain", Capabilities: []string{"completion"}, ContextLength: 2048})
	h.m.SetModel(context.Background(), h.id, "plain")
	h.srv.Script(ollamatest.Text("Hello!"))
	if end := h.run("Hi"); end.Reason != trace.EndAnswered {
		t.Fatalf("end = %+v", end)
	}
	if tools := h.srv.Requests()[0].Chat.Tools; len(tools) != 0 {
		t.Fatalf("sent %d tools to a model without tools", len(tools))
	}
	if o := h.srv.Requests()[0].Chat.Options["num_ctx"]; o != float64(2048) {
		t.Fatalf("num_ctx = %v, want the model's 2048", o)
	}
	if notices(h.events(), "no_tools") == 0 {
		t.Fatal("no notice that the model has no tools")
	}
}

// A thinking model: thinking is kept apart from the answer.
func TestThinking(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	h.srv.AddModel(ollamatest.ModelSpec{Name: "thinker", Capabilities: []string{"completion", "tools", "thinking"}, ContextLength: 8192})
	h.m.SetModel(context.Background(), h.id, "thinker")
	h.srv.Script(ollamatest.Reply{Chunks: []ollamatest.Chunk{{Thinking: "The user greets me."}, {Content: "Hello!"}}})
	h.run("Hi")
	for _, e := range h.events() {
		if e.Kind == trace.KindModelResponse {
			p, _ := trace.Decode[trace.ModelResponse](e)
			if p.Thinking != "The user greets me." || p.Content != "Hello!" {
				t.Fatalf("response = %+v", p)
			}
			return
		}
	}
	t.Fatal("no model_response")
}

// A model that asks for exactly the same call three rounds in a row is
// told so; asked a fourth time, the run stops, with a notice that says why.
func TestRepeatedCallsStopTheLoop(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	h.srv.Respond(func(ollamatest.ChatRequest) ollamatest.Reply {
		return calls(call("", "list_dir", `{"path": "."}`))
	})
	end := h.run("List")
	if end.Reason != trace.EndRepeated || end.Rounds != 4 || !strings.Contains(end.Detail, "stuck") {
		t.Fatalf("end = %+v", end)
	}
	invariants.Check(t, h.events())
}

// A request Ollama refused before answering (busy) is tried again, and the
// run goes on when it works.
func TestRetryRecovers(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, nil)
	h.srv.Script(ollamatest.Reply{Fault: ollamatest.HTTPStatus(503, `{"error":"server busy"}`)}, ollamatest.Text("Hello."))
	if end := h.run("Hi"); end.Reason != trace.EndAnswered || end.FinalText != "Hello." {
		t.Fatalf("end = %+v", end)
	}
	h.golden("retry")
}
