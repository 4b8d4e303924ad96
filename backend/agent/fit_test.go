package agent

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

// tooLong is a model's refusal of a prompt over num_ctx, as the ollama
// client returns it (it wraps llm.ErrPromptTooLong).
type tooLong struct{}

func (tooLong) Error() string { return "the prompt does not fit" }
func (tooLong) Unwrap() error { return llm.ErrPromptTooLong }

// Every request asks the model not to cut; a refused prompt ends the run
// with a does_not_fit error that says what needed room and the ways out,
// and is never retried.
func TestPromptThatDoesNotFitStopsTheRun(t *testing.T) {
	r := newRig(t)
	var sent []llm.Request
	refuse := func(_ context.Context, req llm.Request, _ func(llm.Chunk)) (llm.Response, error) {
		sent = append(sent, req)
		return llm.Response{}, fmt.Errorf("ollama: %w", tooLong{})
	}
	r.model.say(asks(tc("c1", "look", `{"x":"1"}`)), refuse, text("never sent"))
	end := r.run(t.Context(), "Look")
	if end.Reason != trace.EndDoesNotFit || !strings.Contains(end.Detail, "does not fit") {
		t.Fatalf("end = %+v", end)
	}
	if len(sent) != 1 || sent[0].Truncate == nil || *sent[0].Truncate {
		t.Fatalf("requests %d, truncate %v: want one, with truncate false", len(sent), sent[0].Truncate)
	}
	evs := r.log.all()
	errs := payloads[trace.Error](t, evs)
	if len(errs) != 1 || errs[0].Code != trace.CodeDoesNotFit || errs[0].Fit == nil {
		t.Fatalf("errors = %+v", errs)
	}
	fit := errs[0].Fit
	mrs := payloads[trace.ModelRequest](t, evs)
	if fit.NumCtx != 2048 || fit.Needed != mrs[1].PromptEstimate || len(fit.Parts) != 4 || len(fit.WaysOut) != 4 {
		t.Errorf("fit = %+v, want num_ctx 2048 and the request's estimate %d", fit, mrs[1].PromptEstimate)
	}
	for i := 1; i < len(fit.Parts); i++ {
		if fit.Parts[i].Tokens > fit.Parts[i-1].Tokens {
			t.Errorf("parts not biggest first: %+v", fit.Parts)
		}
	}
	if fit.Largest == nil || !strings.HasPrefix(fit.Largest.Name, "message ") || fit.Largest.Tokens <= 0 {
		t.Errorf("largest = %+v, want the biggest message named", fit.Largest)
	}
	for _, n := range payloads[trace.Notice](t, evs) {
		if n.Code == "retry" {
			t.Errorf("a refused prompt was retried: %+v", n)
		}
	}
	invariants.Check(t, evs)
}

// A round where the model read all num_ctx tokens goes on, flagged: the
// prompt was probably cut.
func TestRoundReadingAllOfNumCtxIsFlagged(t *testing.T) {
	r := newRig(t)
	full := func(_ context.Context, _ llm.Request, _ func(llm.Chunk)) (llm.Response, error) {
		a := answer("done")
		a.Metrics.PromptEvalCount = 2048
		return a, nil
	}
	r.model.say(asks(tc("c1", "look", `{"x":"1"}`)), full)
	if end := r.run(t.Context(), "Look"); end.Reason != trace.EndAnswered {
		t.Fatalf("end = %+v", end)
	}
	var cut []trace.Notice
	for _, n := range payloads[trace.Notice](t, r.log.all()) {
		if n.Code == trace.CodeContextCut {
			cut = append(cut, n)
		}
	}
	if len(cut) != 1 || !strings.Contains(cut[0].Message, "2048") || !strings.Contains(cut[0].Message, "probably dropped") {
		t.Fatalf("cut notices = %+v", cut)
	}
}

// num_ctx stays as it was within a session; when a run's differs (another
// model, the cap changed), a notice says so before its first request.
func TestNumCtxChangeIsSaid(t *testing.T) {
	r := newRig(t)
	r.model.say(text("one"), text("two"), text("three"))
	r.run(t.Context(), "First")
	r.run(t.Context(), "Same context")
	r.cfg.Options.NumCtx = 4096
	r.run(t.Context(), "Bigger")
	var said []trace.Notice
	for _, n := range payloads[trace.Notice](t, r.log.all()) {
		if n.Code == CodeNumCtxChanged {
			said = append(said, n)
		}
	}
	if len(said) != 1 || !strings.Contains(said[0].Message, "from 2048 to 4096") {
		t.Fatalf("notices = %+v", said)
	}
	evs := r.log.all()
	for i, e := range evs {
		if e.Kind == trace.KindNotice && e.Run == 3 {
			if evs[i+1].Kind != trace.KindModelRequest {
				t.Errorf("the notice is followed by %s, want the run's first request", evs[i+1].Kind)
			}
		}
	}
}
