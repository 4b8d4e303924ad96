package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

// isSummaryRequest tells the summarising request from a round's: it has
// the summarising prompt and no tools.
func isSummaryRequest(req llm.Request) bool {
	return len(req.Messages) > 0 && req.Messages[0].Content == SummaryPrompt && req.Tools == nil
}

// worker is a model that asks for calls with a long argument until it
// has answered rounds requests, then answers; it summarises when asked to.
func worker(rounds int) func(req llm.Request) llm.Response {
	asked := 0
	return func(req llm.Request) llm.Response {
		if isSummaryRequest(req) {
			return answer("The user wants files looked at; several were looked at.")
		}
		if asked++; asked > rounds {
			return answer("all done")
		}
		long := strings.Repeat("y", 400)
		return answer("", tc(fmt.Sprintf("c%d", asked), "look", fmt.Sprintf(`{"x":"%d %s"}`, asked, long)))
	}
}

// checkRebuilt asserts that every request in the log rebuilds, from the
// log alone, to exactly the request that was sent, summaries included.
func checkRebuilt(t *testing.T, r *rig, evs []trace.Event) {
	t.Helper()
	sent := r.model.sent()
	n := 0
	for i, e := range evs {
		if e.Kind != trace.KindModelRequest {
			continue
		}
		req, err := trace.Rebuild(evs, i, r.tools.Specs())
		if err != nil {
			t.Fatal(err)
		}
		if a, b := mustJSON(t, req), mustJSON(t, sent[n]); a != b {
			t.Fatalf("request %d rebuilt differs from sent:\n%s\n%s", n, a, b)
		}
		n++
	}
	if n != len(sent) {
		t.Fatalf("%d requests in the log, %d sent", n, len(sent))
	}
}

// With compaction on, a run whose prompt reaches the threshold has the
// model summarise the older rounds before the next request; the requests
// after it send the summary and the latest rounds, and every call still
// has its result.
func TestRunCompactsAtTheThreshold(t *testing.T) {
	r := newRig(t)
	r.cfg.Options.NumCtx = 1024
	r.cfg.Compaction = Compaction{On: true, AtPercent: 60, KeepRounds: 2}
	r.model.respond = worker(8)
	end := r.run(t.Context(), "Look at the files")
	if end.Reason != trace.EndAnswered {
		t.Fatalf("end = %+v", end)
	}
	evs := r.log.all()
	cs := payloads[trace.Compaction](t, evs)
	if len(cs) == 0 {
		t.Fatal("no compaction in a run that outgrew the threshold")
	}
	c := cs[0]
	if c.Trigger != trace.CompactThreshold || c.TokensAfter >= c.TokensBefore || c.Messages < 2 || !strings.Contains(c.Summary, "several were looked at") {
		t.Fatalf("compaction = %+v", c)
	}
	var summaries, after int
	for _, req := range r.model.sent() {
		if isSummaryRequest(req) {
			summaries++
			// The first summarises the conversation, the next ones the
			// summary before them with what came since.
			want := "USER: Look at the files"
			if summaries > 1 {
				want = "EARLIER SUMMARY: [Loupe compacted"
			}
			if !strings.Contains(req.Messages[1].Content, want) || !strings.Contains(req.Messages[1].Content, "RESULT of look") {
				t.Errorf("the summarising request does not hold the conversation: %.200s", req.Messages[1].Content)
			}
			continue
		}
		if summaries == 0 {
			continue
		}
		after++
		msgs := req.Messages
		if msgs[0].Content != "sys" || !strings.HasPrefix(msgs[1].Content, "[Loupe compacted the conversation") || !strings.Contains(msgs[1].Content, "Look at the files") {
			t.Fatalf("a request after the compaction starts %+v / %.120q", msgs[0], msgs[1].Content)
		}
	}
	if summaries != len(cs) || after == 0 {
		t.Fatalf("%d summarising requests for %d compactions, %d requests after", summaries, len(cs), after)
	}
	// Every request's prompt after the first compaction stays within what
	// the threshold lets through plus one round.
	checkRebuilt(t, r, evs)
	invariants.Check(t, evs)

	// After a restart, the next run goes on from the compacted history.
	r.model.respond = nil
	r.model.say(text("again"))
	r.run(t.Context(), "And again")
	last := r.model.sent()[len(r.model.sent())-1].Messages
	if !strings.HasPrefix(last[1].Content, "[Loupe compacted the conversation") {
		t.Fatalf("the next run's request does not start with the summary: %.80q", last[1].Content)
	}
	checkRebuilt(t, r, r.log.all())
}

// tooBig refuses a prompt over limit tokens (Loupe's estimate), as Ollama
// refuses one over num_ctx.
func tooBig(limit int, next func(llm.Request) llm.Response) func(llm.Request) (llm.Response, error) {
	return func(req llm.Request) (llm.Response, error) {
		if trace.DefaultRate().Tokens(trace.PromptBytesOf(req)) > limit {
			return llm.Response{}, fmt.Errorf("ollama: %w", tooLong{})
		}
		return next(req), nil
	}
}

// refusing is a script whose every answer goes through f.
func refusing(r *rig, f func(llm.Request) (llm.Response, error)) {
	for range 40 {
		r.model.say(func(_ context.Context, req llm.Request, _ func(llm.Chunk)) (llm.Response, error) { return f(req) })
	}
}

// A prompt Ollama refuses as too long is compacted and sent again when
// compaction is on; with it off the run stops with does_not_fit as before.
func TestPromptThatDoesNotFitIsCompactedAndSentAgain(t *testing.T) {
	for _, on := range []bool{true, false} {
		t.Run(fmt.Sprintf("on=%v", on), func(t *testing.T) {
			r := newRig(t)
			// The threshold is out of reach: only the refusal compacts.
			r.cfg.Compaction = Compaction{On: on, AtPercent: 100, KeepRounds: 1}
			refusing(r, tooBig(700, worker(6)))
			end := r.run(t.Context(), "Look at the files")
			evs := r.log.all()
			cs := payloads[trace.Compaction](t, evs)
			if !on {
				if end.Reason != trace.EndDoesNotFit || len(cs) != 0 {
					t.Fatalf("off: end %+v, %d compactions", end, len(cs))
				}
				return
			}
			if end.Reason != trace.EndAnswered || end.FinalText != "all done" {
				t.Fatalf("end = %+v", end)
			}
			if len(cs) == 0 || cs[0].Trigger != trace.CompactDoesNotFit {
				t.Fatalf("compactions = %+v", cs)
			}
			var said bool
			for _, n := range payloads[trace.Notice](t, evs) {
				said = said || n.Code == CodeCompactRetries
			}
			if !said {
				t.Error("no notice says the prompt is compacted and sent again")
			}
			checkRebuilt(t, r, evs)
			invariants.Check(t, evs)
		})
	}
}

// A prompt still too long after compaction (the latest round alone is
// too big) stops the run with does_not_fit: compaction is tried once.
func TestPromptTooLongEvenCompactedStops(t *testing.T) {
	r := newRig(t)
	r.cfg.Compaction = Compaction{On: true, AtPercent: 100, KeepRounds: 1}
	refusing(r, tooBig(330, worker(6)))
	end := r.run(t.Context(), "Look at the files")
	if end.Reason != trace.EndDoesNotFit {
		t.Fatalf("end = %+v", end)
	}
	evs := r.log.all()
	if n := len(payloads[trace.Error](t, evs)); n != 1 {
		t.Fatalf("%d errors, want the one does_not_fit", n)
	}
	invariants.Check(t, evs)
}

// Compact now, between runs: the summary replaces the older history for
// the next run; it is refused while a run goes and when there is nothing
// older than the rounds kept; a failed summary changes nothing.
func TestCompactNow(t *testing.T) {
	r := newRig(t)
	r.cfg.Compaction = Compaction{KeepRounds: 1}
	if _, err := r.agent().Compact(t.Context()); !errors.Is(err, ErrNothingToCompact) {
		t.Fatalf("an empty session compacted: %v", err)
	}
	r.model.respond = worker(3)
	r.run(t.Context(), "Look at the files")
	before := len(r.log.all())

	r.model.respond = nil
	r.model.say(func(context.Context, llm.Request, func(llm.Chunk)) (llm.Response, error) {
		return llm.Response{}, errors.New("ollama: model crashed")
	})
	r.cfg.RetryDelays = []time.Duration{}
	if _, err := r.agent().Compact(t.Context()); err == nil || !strings.Contains(err.Error(), "model crashed") {
		t.Fatalf("a failed summary: %v", err)
	}
	if n := len(payloads[trace.Compaction](t, r.log.all())); n != 0 {
		t.Fatalf("%d compactions after a failed summary", n)
	}

	r.model.say(text("Looked at three files."))
	c, err := r.agent().Compact(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if c.Trigger != trace.CompactButton || c.FromRun != 1 || c.FromRound != 0 || c.ThroughRun != 1 || c.ThroughRound < 1 || c.Summary != "Looked at three files." {
		t.Fatalf("compaction = %+v", c)
	}
	evs := r.log.all()
	for _, e := range evs[before:] {
		if e.Run != 1 {
			t.Fatalf("a compaction event of run %d, want the last run's", e.Run)
		}
	}
	if trace.StateOf(evs).Open {
		t.Fatal("Compact now opened a run")
	}
	if _, err := r.agent().Compact(t.Context()); !errors.Is(err, ErrNothingToCompact) {
		t.Fatalf("compacting a compacted history again: %v", err)
	}
	r.model.say(text("ok"))
	r.run(t.Context(), "Next")
	sent := r.model.sent()
	msgs := sent[len(sent)-1].Messages
	if !strings.Contains(msgs[1].Content, "Looked at three files.") || msgs[len(msgs)-1].Content != "Next" {
		t.Fatalf("the next run sent %+v", msgs)
	}
	checkRebuilt(t, r, r.log.all())
	invariants.Check(t, r.log.all())
}

// Compact now refuses while the session's run goes.
func TestCompactNowWhileRunning(t *testing.T) {
	r := newRig(t)
	r.log.add(trace.New(trace.KindUserMessage, 1, 0, trace.UserMessage{Text: "hi"}), true)
	if _, err := r.agent().Compact(t.Context()); !errors.Is(err, ErrRunGoing) {
		t.Fatalf("err = %v", err)
	}
}

// A model that gives no summary fails the compaction at the threshold
// once: the run says so and goes on with the whole history, without
// sending a summarising request every round after.
func TestFailedCompactionIsNotAskedAgainEachRound(t *testing.T) {
	r := newRig(t)
	r.cfg.Options.NumCtx = 1024
	r.cfg.Compaction = Compaction{On: true, AtPercent: 60, KeepRounds: 2}
	work := worker(12)
	r.model.respond = func(req llm.Request) llm.Response {
		if isSummaryRequest(req) {
			return answer("")
		}
		return work(req)
	}
	end := r.run(t.Context(), "Look at the files")
	if end.Reason != trace.EndAnswered {
		t.Fatalf("end = %+v", end)
	}
	evs := r.log.all()
	summaries := 0
	for _, req := range r.model.sent() {
		if isSummaryRequest(req) {
			summaries++
		}
	}
	var failed []trace.Notice
	for _, n := range payloads[trace.Notice](t, evs) {
		if n.Code == CodeCompactFailed {
			failed = append(failed, n)
		}
	}
	if summaries != 1 || len(failed) != 1 || !strings.Contains(failed[0].Message, "will not try again by itself") {
		t.Fatalf("%d summarising requests, failure notices %+v; want one of each, saying it will not try again", summaries, failed)
	}
	if cs := payloads[trace.Compaction](t, evs); len(cs) != 0 {
		t.Fatalf("compactions = %+v", cs)
	}
	checkRebuilt(t, r, evs)
	invariants.Check(t, evs)
}

// The request after a compaction counts the tool result added since the
// previous request of the conversation among its new observations: the
// summarising request in between is not one the model saw, so it does
// not make that result history.
func TestSplitAfterACompactionKeepsTheNewObservations(t *testing.T) {
	r := newRig(t)
	r.cfg.Options.NumCtx = 1024
	r.cfg.Compaction = Compaction{On: true, AtPercent: 60, KeepRounds: 2}
	r.model.respond = worker(8)
	if end := r.run(t.Context(), "Look at the files"); end.Reason != trace.EndAnswered {
		t.Fatalf("end = %+v", end)
	}
	evs := r.log.all()
	summarised, checked := false, 0
	var result trace.ToolResult
	for _, e := range evs {
		switch e.Kind {
		case trace.KindToolResult:
			result, _ = trace.Decode[trace.ToolResult](e)
		case trace.KindModelRequest:
			mr, err := trace.Decode[trace.ModelRequest](e)
			if err != nil {
				t.Fatal(err)
			}
			if mr.Purpose == trace.PurposeCompaction {
				summarised = true
				continue
			}
			if !summarised || mr.Split == nil {
				continue
			}
			summarised = false
			checked++
			// The result's content alone, at the request's rate.
			least := trace.Rate{BytesPerToken: mr.Split.BytesPerToken}.Tokens(len(result.Content))
			if mr.Split.New < least {
				t.Errorf("request %d after a compaction: new observations %d tokens, fewer than the tool result added since the previous request (%d): it was counted as history (%d)",
					e.Seq, mr.Split.New, least, mr.Split.History)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no request after a compaction")
	}
}
