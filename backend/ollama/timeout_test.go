package ollama_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
)

// guard is how long a test waits for Chat at most: far longer than the
// timeouts under test, so that a Chat without them fails the test on its
// error instead of hanging it.
const guard = 5 * time.Second

// chatTimed sends one request with the given timeouts and returns what
// Chat returned and how long it took.
func chatTimed(t *testing.T, srv *ollamatest.Server, c *ollama.Client, to ollama.Timeouts) (llm.Response, time.Duration, error) {
	t.Helper()
	c.SetTimeouts(to)
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	start := time.Now()
	resp, err := c.Chat(ctx, request("hi"), nil)
	return resp, time.Since(start), err
}

// hungUp fails the test unless the client of chat request seq closed its
// connection (the fake saw it go away) soon after Chat returned.
func hungUp(t *testing.T, srv *ollamatest.Server, seq int) {
	t.Helper()
	select {
	case <-srv.HungUp(seq):
	case <-time.After(2 * time.Second):
		t.Errorf("the fake still serves request %d: the client did not close the connection", seq)
	}
}

func TestChatFirstTokenTimeout(t *testing.T) {
	// Nothing at all comes back, not even headers: Ollama loading a model
	// that does not fit, or a runner that hangs before its first token.
	srv, c := setup(t)
	srv.Script(ollamatest.Reply{Chunks: []ollamatest.Chunk{{Content: "late"}}, Fault: ollamatest.StallAfter(0)})
	const bound = 200 * time.Millisecond
	resp, took, err := chatTimed(t, srv, c, ollama.Timeouts{FirstToken: bound, Stall: time.Hour})

	var te *ollama.TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("err = %#v (%v) after %v, want a TimeoutError", err, err, took)
	}
	if te.Stall || te.After != bound || te.Model != model {
		t.Errorf("TimeoutError = %+v, want the first-token bound of %v for %s", te, bound, model)
	}
	if took < bound || took > bound+time.Second {
		t.Errorf("Chat returned after %v, want soon after %v", took, bound)
	}
	msg := err.Error()
	for _, want := range []string{"no answer within 200ms", "first-token timeout", "loading model " + model, "ollama ps", "--first-token-timeout"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if llm.Temporary(err) {
		t.Error("a first-token timeout is temporary: the agent would wait it out again without asking")
	}
	if resp.Done || resp.Chunks != 0 {
		t.Errorf("response = done %v, %d lines; want nothing", resp.Done, resp.Chunks)
	}
	hungUp(t, srv, 1)
}

func TestChatStallTimeout(t *testing.T) {
	// Part of the answer, a tool call, and then nothing: no done line.
	srv, c := setup(t)
	srv.Script(ollamatest.Reply{
		Chunks:    []ollamatest.Chunk{{Content: "one "}, {Content: "two "}},
		ToolCalls: []ollamatest.Call{{ID: "call_1", Name: "run_command", Args: `{"command":"make"}`}},
		Fault:     ollamatest.StallAfter(3),
	})
	const bound = 200 * time.Millisecond
	resp, took, err := chatTimed(t, srv, c, ollama.Timeouts{FirstToken: time.Hour, Stall: bound})

	var te *ollama.TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("err = %#v (%v) after %v, want a TimeoutError", err, err, took)
	}
	if !te.Stall || te.After != bound {
		t.Errorf("TimeoutError = %+v, want the stall bound of %v", te, bound)
	}
	if took < bound || took > bound+time.Second {
		t.Errorf("Chat returned after %v, want soon after %v", took, bound)
	}
	msg := err.Error()
	for _, want := range []string{"stopped sending the answer", "nothing arrived for 200ms", "partial answer is kept", "--stall-timeout"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if llm.Temporary(err) {
		t.Error("a stall is temporary")
	}
	// The partial answer comes back, marked as not finished.
	if resp.Message.Content != "one two " || len(resp.Message.ToolCalls) != 1 || resp.Done || resp.Complete() {
		t.Errorf("partial = %q, %d calls, done %v", resp.Message.Content, len(resp.Message.ToolCalls), resp.Done)
	}
	hungUp(t, srv, 1)
}

// The bounds are on silence, not on the whole answer: a model that takes
// longer than the stall bound to load, and streams for longer than it in
// all, is not cut as long as each piece follows the last in time.
func TestChatTimeoutsAllowASlowSteadyAnswer(t *testing.T) {
	srv, c := setup(t)
	srv.Script(ollamatest.Reply{
		Load:   400 * time.Millisecond,
		Chunks: []ollamatest.Chunk{{Content: "a"}, {Content: "b"}, {Content: "c"}, {Content: "d"}, {Content: "e"}},
		Delay:  100 * time.Millisecond,
	})
	resp, took, err := chatTimed(t, srv, c, ollama.Timeouts{FirstToken: 3 * time.Second, Stall: 300 * time.Millisecond})
	if err != nil {
		t.Fatalf("Chat after %v: %v", took, err)
	}
	if !resp.Complete() || resp.Message.Content != "abcde" {
		t.Errorf("response = %q, complete %v", resp.Message.Content, resp.Complete())
	}
	if took < 800*time.Millisecond {
		t.Errorf("took %v; the fake was meant to take 900ms, so the test shows nothing", took)
	}
	// And the fake tells a client that stayed from one that hung up.
	select {
	case <-srv.HungUp(1):
		t.Error("the fake says the client of a finished answer hung up")
	case <-time.After(50 * time.Millisecond):
	}
}

// A zero bound waits as long as the caller's context allows.
func TestChatZeroTimeoutsWait(t *testing.T) {
	srv, c := setup(t)
	srv.Script(ollamatest.Reply{Chunks: []ollamatest.Chunk{{Content: "a"}, {Content: "b"}}, Fault: ollamatest.StallAfter(1)})
	c.SetTimeouts(ollama.Timeouts{})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := c.Chat(ctx, request("hi"), nil)
	var te *ollama.TimeoutError
	if !errors.Is(err, context.DeadlineExceeded) || errors.As(err, &te) {
		t.Fatalf("err = %v, want the caller's deadline", err)
	}
}

func TestNewClientHasTheDefaultTimeouts(t *testing.T) {
	got := ollama.New("", nil).Timeouts()
	if got != ollama.DefaultTimeouts() || got.FirstToken != 10*time.Minute || got.Stall != 5*time.Minute {
		t.Errorf("timeouts = %+v", got)
	}
}
