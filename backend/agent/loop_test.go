package agent

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/tools"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

// The rules of the loop (DESIGN.md, "The loop" and "Invariants"), each
// pinned on fakes of its seams.

// An answer without calls ends the run with its text; the request carried
// the system prompt, the user's message and the tools.
func TestTextAnswerEndsTheRun(t *testing.T) {
	r := newRig(t)
	r.model.say(text("Hello."))
	end := r.run(t.Context(), "Hi")
	if end.Reason != trace.EndAnswered || end.FinalText != "Hello." || end.Rounds != 1 {
		t.Fatalf("end = %+v", end)
	}
	evs := r.log.all()
	if got := strings.Join(kinds(evs), " "); got != "user_message model_request model_response run_end" {
		t.Fatalf("log = %s", got)
	}
	req := r.model.sent()[0]
	if len(req.Messages) != 2 || req.Messages[0].Content != "sys" || req.Messages[1].Content != "Hi" || len(req.Tools) != 1 || req.Tools[0].Name != "look" {
		t.Fatalf("request = %+v", req)
	}
	if len(r.deltas) != 1 || r.deltas[0].Content != "Hello." || r.deltas[0].Round != 1 || r.deltas[0].Run != 1 {
		t.Fatalf("deltas = %+v", r.deltas)
	}
	invariants.Check(t, evs)
}

// Calls run and their results go back in the next request, paired with
// their ids, in call order; the request records the tool set it offered
// and only what its history gained since the previous one.
func TestResultsPairByIDInCallOrder(t *testing.T) {
	r := newRig(t, echo("look"), echo("peek"))
	r.model.say(asks(tc("c1", "look", `{"x":"a"}`), tc("c2", "peek", `{"x":"b"}`)), text("Done."))
	if end := r.run(t.Context(), "Go"); end.Reason != trace.EndAnswered || end.Rounds != 2 {
		t.Fatalf("end = %+v", end)
	}
	evs := r.log.all()
	want := "user_message model_request model_response tool_call/c1 tool_call/c2 permission/c1:allow permission/c2:allow tool_result/c1 tool_result/c2 model_request model_response run_end"
	if got := strings.Join(kinds(evs), " "); got != want {
		t.Fatalf("log:\n got %s\nwant %s", got, want)
	}
	msgs := r.model.sent()[1].Messages
	tail := msgs[len(msgs)-2:]
	if tail[0].ToolCallID != "c1" || tail[0].Content != "look:a" || tail[1].ToolCallID != "c2" || tail[1].Content != "peek:b" {
		t.Fatalf("results sent back = %+v", tail)
	}
	reqs := payloads[trace.ModelRequest](t, evs)
	if reqs[0].HistoryBase != 0 || !slices.Equal(reqs[0].HistoryAdded, []int64{1}) ||
		reqs[1].HistoryBase != 2 || !slices.Equal(reqs[1].HistoryAdded, []int64{3, 8, 9}) {
		t.Fatalf("history records = %+v / %+v", reqs[0], reqs[1])
	}
	for _, mr := range reqs {
		if mr.ToolSet != 1 || mr.Tools != nil || mr.HistorySeqs != nil || !slices.Equal(mr.ToolNames, []string{"look", "peek"}) {
			t.Fatalf("request record = %+v", mr)
		}
	}
	// The record rebuilds what was sent.
	for i, e := range evs {
		if e.Kind != trace.KindModelRequest {
			continue
		}
		req, err := trace.Rebuild(evs, i, r.tools.Specs())
		if err != nil {
			t.Fatal(err)
		}
		sent := r.model.sent()[e.Round-1]
		if a, b := mustJSON(t, req), mustJSON(t, sent); a != b {
			t.Fatalf("round %d rebuilt differs from sent:\n%s\n%s", e.Round, a, b)
		}
		mr := reqs[e.Round-1]
		if mr.MessageCount != len(sent.Messages) || mr.Split == nil || mr.PromptEstimate != mr.Split.Sum() {
			t.Fatalf("round %d: count %d estimate %d split %+v, want %d messages and the split's sum", e.Round, mr.MessageCount, mr.PromptEstimate, mr.Split, len(sent.Messages))
		}
		// The split divides what was sent: each message's and the
		// tools' JSON (the sent JSON adds only brackets and commas).
		msgs, tools := mustJSON(t, sent.Messages), mustJSON(t, sent.Tools)
		if d := len(msgs) + len(tools) - mr.Split.Bytes; d < 0 || d > len(sent.Messages)+1 {
			t.Fatalf("round %d: split of %d bytes, sent %d + %d", e.Round, mr.Split.Bytes, len(msgs), len(tools))
		}
	}
	invariants.Check(t, evs)
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Parallel calls run at the same time: each tool waits until all of them
// have started, which only works if they run concurrently.
func TestParallelCallsRunConcurrently(t *testing.T) {
	const n = 3
	var started sync.WaitGroup
	started.Add(n)
	all := make(chan struct{})
	go func() { started.Wait(); close(all) }()
	barrier := fn{name: "meet", run: func(ctx context.Context, args json.RawMessage) (tools.Result, error) {
		started.Done()
		select {
		case <-all:
			return tools.Result{Content: "met " + string(args)}, nil
		case <-time.After(10 * time.Second):
			return tools.Result{}, errors.New("the other calls never started: calls ran one after the other")
		}
	}}
	r := newRig(t, barrier)
	r.model.say(asks(tc("a", "meet", `{"x":"1"}`), tc("b", "meet", `{"x":"2"}`), tc("c", "meet", `{"x":"3"}`)), text("ok"))
	r.run(t.Context(), "Go")
	evs := r.log.all()
	if got := resultsOf(t, evs); !slices.Equal(got, []string{"a:ok", "b:ok", "c:ok"}) {
		t.Fatalf("results = %v (%+v)", got, payloads[trace.ToolResult](t, evs))
	}
	invariants.Check(t, evs)
}

// MaxParallel bounds how many calls of an answer run at once. The test runs
// in a synctest bubble: synctest.Wait returns once every goroutine of the
// run is blocked, that is once the executor has started all the calls it
// will start while two hold their slots. No timing is involved.
func TestParallelCallsAreBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var running, most atomic.Int32
		release := make(chan struct{})
		held := fn{name: "hold", run: func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
			n := running.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			<-release
			running.Add(-1)
			return tools.Result{Content: "ok"}, nil
		}}
		r := newRig(t, held)
		r.cfg.MaxParallel = 2
		r.model.say(asks(tc("a", "hold", `{"x":"1"}`), tc("b", "hold", `{"x":"2"}`), tc("c", "hold", `{"x":"3"}`), tc("d", "hold", `{"x":"4"}`)), text("ok"))
		done := r.start(t.Context(), "Go")
		// Everything the run can do before a slot is given back is done.
		synctest.Wait()
		n := running.Load()
		close(release)
		if n != 2 {
			t.Fatalf("%d calls ran at once while two held their slots, want exactly 2", n)
		}
		wait(t, done)
		if most.Load() != 2 {
			t.Fatalf("%d calls ran at once, want at most (and here exactly) 2", most.Load())
		}
		invariants.Check(t, r.log.all())
	})
}

// An unknown tool, arguments that do not fit, a tool that fails and a tool
// that reports an error are four different observations; the first two
// never reach the tool or the policy.
func TestCheckOutcomesDiffer(t *testing.T) {
	var ran atomic.Int32
	fails := fn{name: "fails", run: func(context.Context, json.RawMessage) (tools.Result, error) {
		ran.Add(1)
		return tools.Result{}, errors.New("disk on fire")
	}}
	reports := fn{name: "reports", run: func(context.Context, json.RawMessage) (tools.Result, error) {
		ran.Add(1)
		return tools.Result{Content: "exit code 1", IsError: true}, nil
	}}
	r := newRig(t, fails, reports)
	r.model.say(asks(
		tc("u", "nope", `{}`),
		tc("i", "fails", `{"x":7}`),
		tc("f", "fails", `{"x":"a"}`),
		tc("e", "reports", `{"x":"a"}`),
	), text("I see."))
	r.run(t.Context(), "Try")
	evs := r.log.all()
	res := payloads[trace.ToolResult](t, evs)
	want := []struct{ kind, prefix string }{
		{trace.ErrUnknownTool, "unknown tool nope; available: fails, reports"},
		{trace.ErrInvalidArgs, "invalid arguments for fails:"},
		{trace.ErrFailed, "fails failed: disk on fire"},
		{"", "exit code 1"},
	}
	for i, w := range want {
		if !res[i].IsError || res[i].ErrorKind != w.kind || !strings.HasPrefix(res[i].Content, w.prefix) {
			t.Errorf("result %d = %+v, want %q starting %q", i, res[i], w.kind, w.prefix)
		}
	}
	calls := payloads[trace.ToolCall](t, evs)
	if calls[0].Valid || calls[0].ErrorKind != trace.ErrUnknownTool || calls[1].Valid || calls[1].ErrorKind != trace.ErrInvalidArgs || !calls[2].Valid {
		t.Errorf("tool_call events = %+v", calls)
	}
	if r.log.has(trace.KindPermission, "u", "") || r.log.has(trace.KindPermission, "i", "") || ran.Load() != 2 {
		t.Errorf("a call that failed its check was decided or run (%d runs)", ran.Load())
	}
	invariants.Check(t, evs)
}

// A tool never runs before its call and its decision are committed.
func TestToolRunsOnlyAfterItsCallIsRecorded(t *testing.T) {
	r := newRig(t)
	var seen []string
	var mu sync.Mutex
	r.tools = registry(t, fn{name: "look", readOnly: true, run: func(_ context.Context, args json.RawMessage) (tools.Result, error) {
		var in struct{ X string }
		_ = json.Unmarshal(args, &in)
		mu.Lock()
		seen = append(seen, in.X+":"+boolWord(r.log.has(trace.KindToolCall, in.X, "") && r.log.has(trace.KindPermission, in.X, trace.Allow)))
		mu.Unlock()
		return tools.Result{Content: "ok"}, nil
	}})
	r.model.say(asks(tc("a", "look", `{"x":"a"}`), tc("b", "look", `{"x":"b"}`)), text("ok"))
	r.run(t.Context(), "Go")
	slices.Sort(seen)
	if !slices.Equal(seen, []string{"a:yes", "b:yes"}) {
		t.Fatalf("when each tool ran, its events were committed: %v", seen)
	}
}

func boolWord(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// A call from an answer that did not end normally never runs: cut by the
// output limit, or by a stream that broke off.
func TestIncompleteAnswersNeverRunTheirCalls(t *testing.T) {
	for _, tc2 := range []struct {
		name   string
		reply  func(context.Context, llm.Request, func(llm.Chunk)) (llm.Response, error)
		reason string
	}{
		{"length", func(context.Context, llm.Request, func(llm.Chunk)) (llm.Response, error) {
			resp := answer("Writing", tc("c1", "write", `{"x":"a"}`))
			resp.DoneReason = "length"
			return resp, nil
		}, trace.EndTruncated},
		{"cut stream", func(context.Context, llm.Request, func(llm.Chunk)) (llm.Response, error) {
			resp := answer("Writing", tc("c1", "write", `{"x":"a"}`))
			resp.Done = false
			return resp, errors.New("the stream broke off")
		}, trace.EndError},
	} {
		t.Run(tc2.name, func(t *testing.T) {
			var ran atomic.Bool
			r := newRig(t, fn{name: "write", run: func(context.Context, json.RawMessage) (tools.Result, error) {
				ran.Store(true)
				return tools.Result{}, nil
			}})
			r.model.say(tc2.reply)
			end := r.run(t.Context(), "Write")
			if end.Reason != tc2.reason || !strings.Contains(end.Detail, "not run") || end.FinalText != "Writing" {
				t.Fatalf("end = %+v", end)
			}
			evs := r.log.all()
			if ran.Load() || r.log.has(trace.KindToolCall, "c1", "") {
				t.Fatal("a call of an incomplete answer was taken up")
			}
			invariants.Check(t, evs)
			// The next run's history keeps the text, not the call.
			r.model.say(text("Fine."))
			r.run(t.Context(), "Never mind")
			msgs := r.model.sent()[1].Messages
			if msgs[2].Role != llm.RoleAssistant || msgs[2].Content != "Writing" || len(msgs[2].ToolCalls) != 0 {
				t.Fatalf("history after the incomplete answer = %+v", msgs)
			}
		})
	}
}

// The round cap stops a model that never stops calling tools, with a
// notice that says so.
func TestRoundCap(t *testing.T) {
	r := newRig(t)
	r.cfg.MaxRounds = 2
	r.model.say(asks(tc("c1", "look", `{"x":"1"}`)), asks(tc("c2", "look", `{"x":"2"}`)), text("never sent"))
	end := r.run(t.Context(), "Loop")
	if end.Reason != trace.EndRoundCap || end.Rounds != 2 || len(r.model.sent()) != 2 {
		t.Fatalf("end = %+v after %d requests", end, len(r.model.sent()))
	}
	evs := r.log.all()
	if n := payloads[trace.Notice](t, evs); len(n) != 1 || n[0].Code != "round_cap" {
		t.Fatalf("notices = %+v", n)
	}
	invariants.Check(t, evs)
}

// A model that asks for exactly the same calls three rounds in a row (the
// default limit) gets a notice and a note at the end of the result; asked
// once more, the run stops. The same tool with other arguments is not a
// repeat.
func TestRepeatedIdenticalCallsStop(t *testing.T) {
	r := newRig(t)
	r.model.say(
		asks(tc("", "look", `{"x":"a"}`)),
		asks(tc("", "look", `{"x":"b"}`)),
		asks(tc("", "look", `{ "x" : "b" }`)),
		asks(tc("", "look", `{"x":"b"}`)),
		asks(tc("", "look", `{"x":"b"}`)),
		text("never sent"),
	)
	end := r.run(t.Context(), "Look")
	if end.Reason != trace.EndRepeated || end.Rounds != 5 || !strings.Contains(end.Detail, "stuck") {
		t.Fatalf("end = %+v", end)
	}
	evs := r.log.all()
	var codes []string
	for _, n := range payloads[trace.Notice](t, evs) {
		codes = append(codes, n.Code)
	}
	if got := strings.Join(codes, " "); got != "repeated_calls loop_detected" {
		t.Fatalf("notices = %s", got)
	}
	res := payloads[trace.ToolResult](t, evs)
	for i, p := range res {
		if noted := strings.Contains(p.Content, "same call 3 times"); noted != (i == 3) {
			t.Fatalf("result %d noted = %v: %q", i, noted, p.Content)
		}
	}
	// Calls without ids got one each, unique.
	ids := map[string]bool{}
	for _, c := range payloads[trace.ToolCall](t, evs) {
		if c.CallID == "" || ids[c.CallID] {
			t.Fatalf("call id %q missing or reused", c.CallID)
		}
		ids[c.CallID] = true
	}
	invariants.Check(t, evs)
}

// A request that failed before any of its answer came is tried again
// (behind the Model seam: the loop sees one request), with a notice each
// time; an error that will not pass, or one after the answer began, is not.
// A repeat limit set in the settings is the one the loop counts to.
func TestRepeatLimitSetting(t *testing.T) {
	r := newRig(t)
	r.cfg.RepeatLimit = 2
	r.model.say(asks(tc("", "look", `{"x":"a"}`)), asks(tc("", "look", `{"x":"a"}`)), asks(tc("", "look", `{"x":"a"}`)), text("never sent"))
	end := r.run(t.Context(), "Look")
	if end.Reason != trace.EndRepeated || end.Rounds != 3 {
		t.Fatalf("end = %+v", end)
	}
	invariants.Check(t, r.log.all())
}

func TestRetries(t *testing.T) {
	busy := func(context.Context, llm.Request, func(llm.Chunk)) (llm.Response, error) {
		return llm.Response{}, temporary{errors.New("server busy")}
	}
	t.Run("recovers", func(t *testing.T) {
		r := newRig(t)
		r.model.say(busy, busy, text("Hello."))
		if end := r.run(t.Context(), "Hi"); end.Reason != trace.EndAnswered {
			t.Fatalf("end = %+v", end)
		}
		evs := r.log.all()
		if got := strings.Join(kinds(evs), " "); got != "user_message model_request notice notice model_response run_end" {
			t.Fatalf("log = %s", got)
		}
	})
	t.Run("gives up", func(t *testing.T) {
		r := newRig(t)
		r.model.say(busy, busy, busy, text("never"))
		if end := r.run(t.Context(), "Hi"); end.Reason != trace.EndError || !strings.Contains(end.Detail, "server busy") {
			t.Fatalf("end = %+v", end)
		}
		if n := len(payloads[trace.Notice](t, r.log.all())); n != 2 {
			t.Fatalf("%d retry notices, want 2", n)
		}
	})
	for name, reply := range map[string]func(context.Context, llm.Request, func(llm.Chunk)) (llm.Response, error){
		"lasting error": func(context.Context, llm.Request, func(llm.Chunk)) (llm.Response, error) {
			return llm.Response{}, errors.New("model not found")
		},
		"after the answer began": func(context.Context, llm.Request, func(llm.Chunk)) (llm.Response, error) {
			return llm.Response{Message: llm.Message{Content: "par"}, Chunks: 1}, temporary{errors.New("server busy")}
		},
	} {
		t.Run(name, func(t *testing.T) {
			r := newRig(t)
			r.model.say(reply, text("never"))
			if end := r.run(t.Context(), "Hi"); end.Reason != trace.EndError || len(r.model.sent()) != 1 {
				t.Fatalf("end = %+v after %d requests", end, len(r.model.sent()))
			}
		})
	}
}

type temporary struct{ error }

func (temporary) Temporary() bool { return true }

// Every call gets exactly one result whatever stops it: refused by a rule,
// denied by the user, skipped at a pause, cancelled, and interrupted by
// the app exiting.
func TestEveryCallGetsOneResult(t *testing.T) {
	t.Run("refused and denied", func(t *testing.T) {
		r := newRig(t, echo("look"), fn{name: "write", run: func(context.Context, json.RawMessage) (tools.Result, error) {
			t.Error("a denied call ran")
			return tools.Result{}, nil
		}})
		r.cfg.Policy = permission.Policy{Mode: permission.ModeAsk, Tools: map[string]permission.ToolSetting{"look": permission.ToolNever}}
		r.model.say(asks(tc("r", "look", `{"x":"a"}`), tc("d", "write", `{"x":"b"}`)), text("ok"))
		r.run(t.Context(), "Go")
		evs := r.log.all()
		res := payloads[trace.ToolResult](t, evs)
		if res[0].ErrorKind != trace.ErrDenied || !strings.Contains(res[0].Content, "look is set to never") ||
			res[1].ErrorKind != trace.ErrDenied || !strings.Contains(res[1].Content, "denied by you") {
			t.Fatalf("results = %+v", res)
		}
		if q := r.ask.questions(); !slices.Equal(q, []string{"d"}) {
			t.Fatalf("asked about %v, want only d (the rule refused r)", q)
		}
		invariants.Check(t, evs)
	})
	t.Run("skipped", func(t *testing.T) {
		r := newRig(t, echo("look"), fn{name: "write", run: func(context.Context, json.RawMessage) (tools.Result, error) {
			t.Error("a skipped call ran")
			return tools.Result{}, nil
		}})
		p := newStepper(func(c Checkpoint) bool { return c.Point == trace.PointBeforeTool && c.Tool == "write" })
		r.pauser = p
		r.model.say(asks(tc("s", "write", `{"x":"b"}`)), text("ok"))
		done := r.start(t.Context(), "Go")
		if c := p.next(t); c.Point != trace.PointBeforeTool || c.CallID != "s" {
			t.Fatalf("paused at %+v", c)
		}
		if err := p.send(t, Command{Action: trace.ActionSkip, Observation: "I did it myself."}); err != nil {
			t.Fatal(err)
		}
		wait(t, done)
		evs := r.log.all()
		res := payloads[trace.ToolResult](t, evs)
		if len(res) != 1 || res[0].ErrorKind != trace.ErrSkipped || res[0].IsError || res[0].Content != "I did it myself." {
			t.Fatalf("results = %+v", res)
		}
		invariants.Check(t, evs)
	})
	t.Run("cancelled while asking", func(t *testing.T) {
		r := newRig(t, echo("look"), fn{name: "write", run: func(context.Context, json.RawMessage) (tools.Result, error) {
			t.Error("a call ran after Stop")
			return tools.Result{}, nil
		}})
		r.cfg.Policy = permission.Policy{Mode: permission.ModeAsk}
		ctx, cancel := context.WithCancel(t.Context())
		r.ask.blocked = true
		r.ask.onAsk = func(permission.Request) { cancel() }
		r.model.say(asks(tc("w1", "write", `{"x":"a"}`), tc("w2", "write", `{"x":"b"}`)))
		end := r.run(ctx, "Go")
		if end.Reason != trace.EndCancelled {
			t.Fatalf("end = %+v", end)
		}
		evs := r.log.all()
		if got := resultsOf(t, evs); !slices.Equal(got, []string{"w1:cancelled", "w2:cancelled"}) {
			t.Fatalf("results = %v", got)
		}
		if q := r.ask.questions(); !slices.Equal(q, []string{"w1"}) {
			t.Fatalf("asked %v, want w1 only", q)
		}
		invariants.Check(t, evs)
	})
	t.Run("interrupted", func(t *testing.T) {
		args := json.RawMessage(`{"x":"a"}`)
		log := &memLog{}
		for _, e := range []trace.Event{
			trace.New(trace.KindUserMessage, 1, 0, trace.UserMessage{Text: "go"}),
			trace.New(trace.KindModelRequest, 1, 1, trace.ModelRequest{}),
			trace.New(trace.KindModelResponse, 1, 1, trace.ModelResponse{Content: "on it", ToolCalls: []llm.ToolCall{{ID: "a", Name: "look", Args: args}, {ID: "b", Name: "look", Args: args}}, DoneReason: "stop"}),
			trace.New(trace.KindToolCall, 1, 1, trace.ToolCall{CallID: "a", Name: "look", Args: args, Valid: true}),
			trace.New(trace.KindToolResult, 1, 1, trace.ToolResult{CallID: "a", Name: "look", Content: "done"}),
		} {
			log.Append(t.Context(), e)
		}
		ag := New(Config{SessionID: "s"}, Seams{Recorder: log}, log.all())
		if closed, err := ag.Recover(t.Context()); !closed || err != nil {
			t.Fatalf("Recover = %v, %v", closed, err)
		}
		evs := log.all()
		if got := resultsOf(t, evs); !slices.Equal(got, []string{"a:ok", "b:interrupted"}) {
			t.Fatalf("results = %v", got)
		}
		if end := payloads[trace.RunEnd](t, evs); len(end) != 1 || end[0].Reason != trace.EndInterrupted || end[0].FinalText != "on it" {
			t.Fatalf("run_end = %+v", end)
		}
		invariants.Check(t, evs)
		// Nothing more to do the second time.
		if closed, _ := New(Config{SessionID: "s"}, Seams{Recorder: log}, log.all()).Recover(t.Context()); closed || len(log.all()) != len(evs) {
			t.Fatal("a closed run was recovered again")
		}
	})
}

// Stop while a command runs: the tool's context ends it, its result says
// what it printed before, calls not started yet are answered "cancelled",
// and the run ends cancelled.
func TestCancelMidCommand(t *testing.T) {
	running := make(chan struct{})
	slow := fn{name: "slow", run: func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
		close(running)
		<-ctx.Done()
		return tools.Result{Content: "started", IsError: true}, nil
	}}
	r := newRig(t, slow, echo("look"))
	r.cfg.MaxParallel = 1
	r.model.say(asks(tc("a", "slow", `{"x":"1"}`), tc("b", "look", `{"x":"2"}`)))
	ctx, cancel := context.WithCancel(t.Context())
	done := r.start(ctx, "Go")
	<-running
	cancel()
	end := wait(t, done)
	if end.Reason != trace.EndCancelled {
		t.Fatalf("end = %+v", end)
	}
	evs := r.log.all()
	res := payloads[trace.ToolResult](t, evs)
	if len(res) != 2 || res[0].ErrorKind != trace.ErrCancelled || !strings.Contains(res[0].Content, "while this call was running\npartial output:\nstarted") ||
		res[1].ErrorKind != trace.ErrCancelled {
		t.Fatalf("results = %+v", res)
	}
	invariants.Check(t, evs)
}

// A failure to write the log stops the run with that error.
func TestStoreFailureStopsTheRun(t *testing.T) {
	for _, after := range []int{1, 3, 5, 7} {
		r := newRig(t)
		r.log.failAfter = after
		r.model.say(asks(tc("a", "look", `{"x":"1"}`), tc("b", "look", `{"x":"2"}`)), text("ok"))
		_, err := r.agent().Run(t.Context(), "Go")
		if err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Fatalf("after %d events: err = %v", after, err)
		}
		if n := len(r.log.all()); n != after {
			t.Fatalf("after %d events: %d in the log", after, n)
		}
	}
}

// The policy's question is an event, recorded before it is asked; each
// call that asks is decided when its turn comes, after the one before it
// ran; an answer "for this session" is kept for the rest of the run.
func TestQuestionsAreEventsAndCallsAreDecidedWhenTheyRun(t *testing.T) {
	r := newRig(t, fn{name: "write", run: func(_ context.Context, args json.RawMessage) (tools.Result, error) {
		return tools.Result{Content: "wrote " + string(args)}, nil
	}})
	r.cfg.Policy = permission.Policy{Mode: permission.ModeAsk}
	var kept []permission.Grant
	r.cfg.OnGrant = func(g permission.Grant) error { kept = append(kept, g); return nil }
	r.ask.allow["w1"], r.ask.allow["w2"] = true, true
	r.ask.grant["w2"] = &permission.Grant{Rule: permission.Rule{Effect: permission.EffectAllow, Tool: "write"}, Scope: permission.ScopeSession}
	var order []string
	r.ask.onAsk = func(q permission.Request) {
		order = append(order, q.CallID+" asked after: "+strings.Join(resultsOf(t, r.log.all()), ","))
		if !r.log.has(trace.KindPermission, q.CallID, trace.Ask) {
			t.Errorf("asked about %s before the question was recorded", q.CallID)
		}
	}
	r.model.say(asks(tc("w1", "write", `{"x":"1"}`), tc("w2", "write", `{"x":"2"}`)), asks(tc("w3", "write", `{"x":"3"}`)), text("ok"))
	r.run(t.Context(), "Go")
	if want := []string{"w1 asked after: ", "w2 asked after: w1:ok"}; !slices.Equal(order, want) {
		t.Fatalf("questions:\n got %q\nwant %q", order, want)
	}
	evs := r.log.all()
	want := "tool_call/w1 tool_call/w2 permission/w1:ask permission/w1:allow tool_result/w1 permission/w2:ask permission/w2:allow tool_result/w2"
	if got := strings.Join(kinds(evs)[3:11], " "); got != want {
		t.Fatalf("log:\n got %s\nwant %s", got, want)
	}
	if q := r.ask.questions(); len(q) != 2 || len(kept) != 1 {
		t.Fatalf("asked %v, kept %v: w3 should run on w2's grant", q, kept)
	}
	if !r.log.has(trace.KindPermission, "w3", trace.Allow) {
		t.Fatal("w3 was not allowed by the grant")
	}
	invariants.Check(t, evs)
}

// Events may be committed without waiting for the disk, but never past an
// action outside the log: whenever the loop sends a request, runs a tool,
// asks the user or waits at a pause, everything it has recorded is on the
// disk. A crash of the machine then loses nothing the world has seen.
func TestTheDiskHoldsTheLogBeforeEveryAction(t *testing.T) {
	var r *rig
	check := func(what string) {
		if !r.log.allOnDisk() {
			t.Errorf("%s while the last events were not on the disk: %v", what, kinds(r.log.all()))
		}
	}
	look := fn{name: "look", readOnly: true, run: func(context.Context, json.RawMessage) (tools.Result, error) {
		check("a tool ran")
		return tools.Result{Content: "seen"}, nil
	}}
	write := fn{name: "write", run: func(context.Context, json.RawMessage) (tools.Result, error) {
		check("a tool ran")
		return tools.Result{Content: "written"}, nil
	}}
	r = newRig(t, look, write)
	r.cfg.Policy = permission.Policy{Mode: permission.ModeAsk}
	r.ask.allow["c2"] = true
	r.ask.onAsk = func(permission.Request) { check("the user was asked") }
	sending := func(next func(context.Context, llm.Request, func(llm.Chunk)) (llm.Response, error)) func(context.Context, llm.Request, func(llm.Chunk)) (llm.Response, error) {
		return func(ctx context.Context, req llm.Request, onChunk func(llm.Chunk)) (llm.Response, error) {
			check("a request was sent")
			return next(ctx, req, onChunk)
		}
	}
	r.model.say(
		sending(asks(tc("c1", "look", `{"x":"a"}`), tc("c2", "write", `{"x":"b"}`))),
		sending(asks(tc("c3", "look", `{"x":"c"}`))),
		sending(text("Done.")),
	)
	if end := r.run(t.Context(), "Go"); end.Reason != trace.EndAnswered {
		t.Fatalf("end = %+v", end)
	}
	check("the run ended")
	// And most events did not wait: a round costs two waits, not one per event.
	soon := len(r.log.all())
	for _, e := range r.log.all() {
		if mustWait(e.Kind) {
			soon--
		}
	}
	if soon < 6 {
		t.Fatalf("only %d events were committed without waiting", soon)
	}
	invariants.Check(t, r.log.all())
}
