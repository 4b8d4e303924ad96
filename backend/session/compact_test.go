package session_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

// summarising tells the fake's summarising requests from a round's.
func summarising(req ollamatest.ChatRequest) bool {
	return len(req.Messages) > 0 && req.Messages[0].Content == agent.SummaryPrompt && len(req.Tools) == 0
}

// reader is a model that reads notes/1.txt … notes/n.txt, one a round,
// then answers; asked for a summary, it gives one.
func reader(n int) func(req ollamatest.ChatRequest) ollamatest.Reply {
	round := 0
	return func(req ollamatest.ChatRequest) ollamatest.Reply {
		if summarising(req) {
			return text("The user asked what the notes say. Notes 1 to " + fmt.Sprint(round-1) + " were read: each is a list of lines.")
		}
		if round++; round > n {
			return text("The notes are lists of lines.")
		}
		return calls(call(fmt.Sprintf("call_%d", round), "read_file", fmt.Sprintf(`{"path":"notes/%d.txt"}`, round)))
	}
}

func (h *harness) notes(n, size int) {
	for i := 1; i <= n; i++ {
		var b strings.Builder
		for j := 0; b.Len() < size; j++ {
			fmt.Fprintf(&b, "note %d line %d\n", i, j)
		}
		h.write(fmt.Sprintf("notes/%d.txt", i), b.String())
	}
}

// sentAfterCompaction returns the chat requests sent after the first
// summarising one that were a round's.
func (h *harness) sentAfterCompaction() []ollamatest.ChatRequest {
	var out []ollamatest.ChatRequest
	seen := false
	for _, r := range h.srv.Requests() {
		if summarising(r.Chat) {
			seen = true
		} else if seen && !r.TooLong {
			out = append(out, r.Chat)
		}
	}
	return out
}

func compactions(t *testing.T, evs []trace.Event) []trace.Compaction {
	var out []trace.Compaction
	for _, e := range evs {
		if e.Kind == trace.KindCompaction {
			c, err := trace.Decode[trace.Compaction](e)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, c)
		}
	}
	return out
}

// A run that outgrows the threshold: before the round that would pass it,
// the model summarises the older rounds (its own request on the
// timeline), and the requests after it send the summary and the latest
// round. The whole log is the golden file.
func TestCompactionAtThreshold(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, func(s *settings.Settings) {
		s.NumCtxCap, s.CompactAtPercent, s.CompactKeepRounds = 8192, 50, 2
	})
	h.notes(5, 2000)
	h.srv.Respond(reader(5))
	end := h.run("What do the notes say?")
	if end.Reason != trace.EndAnswered {
		t.Fatalf("end = %+v", end)
	}
	evs := h.events()
	cs := compactions(t, evs)
	if len(cs) == 0 {
		t.Fatal("no compaction")
	}
	for _, c := range cs {
		if c.Trigger != trace.CompactThreshold || c.TokensAfter >= c.TokensBefore || c.TokensBefore*100 < 50*8192 {
			t.Fatalf("compactions = %+v", cs)
		}
	}
	after := h.sentAfterCompaction()
	if len(after) == 0 {
		t.Fatal("no request after the compaction")
	}
	for _, req := range after {
		if req.Messages[0].Role != "system" || !strings.HasPrefix(req.Messages[1].Content, "[Loupe compacted the conversation") ||
			!strings.Contains(req.Messages[1].Content, "What do the notes say?") {
			t.Fatalf("a request after the compaction starts %.80q / %.200q", req.Messages[0].Content, req.Messages[1].Content)
		}
		for _, m := range req.Messages {
			if strings.Contains(m.Content, "note 1 line 0") {
				t.Fatal("a replaced result was sent after the compaction")
			}
		}
	}
	invariants.Check(t, evs)
	rawMatchesSent(t, h)
	h.golden("compaction_auto")
}

// rawMatchesSent checks that the Raw view of every request, rebuilt from
// the stored log, is byte for byte the body the fake server received.
func rawMatchesSent(t *testing.T, h *harness) {
	t.Helper()
	reqs := h.srv.Requests()
	n := 0
	for _, e := range h.events() {
		if e.Kind != trace.KindModelRequest {
			continue
		}
		raw, err := session.RawRequest(context.Background(), h.st, h.id, e.Seq)
		if err != nil {
			t.Fatal(err)
		}
		if n >= len(reqs) || raw != string(reqs[n].Body) {
			t.Fatalf("request %d (event %d): the Raw view is not what was sent", n, e.Seq)
		}
		n++
	}
}

// Ollama refuses a prompt as too long: with compaction on, the run says
// so, compacts and sends it again; it answers.
func TestDoesNotFitCompactsAndSendsAgain(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, func(s *settings.Settings) {
		s.NumCtxCap, s.CompactAtPercent, s.CompactKeepRounds = 4096, 100, 1
	})
	// Loupe's estimate is calibrated by Ollama's counts, so the threshold
	// catches a prompt that grows round by round. What it lets through is
	// a prompt whose growth sits in the rounds always kept: the third note
	// is big, so compacting the first two replaces less than half of the
	// conversation and the threshold leaves it; Ollama refuses it.
	h.srv.AddModel(ollamatest.ModelSpec{Name: testModel, ContextLength: 32768, BytesPerToken: 3})
	h.notes(2, 1500)
	var big strings.Builder
	for j := 0; big.Len() < 3300; j++ {
		fmt.Fprintf(&big, "note 3 line %d\n", j)
	}
	h.write("notes/3.txt", big.String())
	h.srv.Respond(reader(3))
	end := h.run("What do the notes say?")
	if end.Reason != trace.EndAnswered {
		t.Fatalf("end = %+v", end)
	}
	evs := h.events()
	cs := compactions(t, evs)
	if len(cs) == 0 || cs[0].Trigger != trace.CompactDoesNotFit {
		t.Fatalf("compactions = %+v", cs)
	}
	refused := 0
	for _, r := range h.srv.Requests() {
		if r.TooLong {
			refused++
		}
	}
	if refused != len(cs) || notices(evs, agent.CodeCompactRetries) != len(cs) {
		t.Fatalf("%d refused, %d compactions, %d notices", refused, len(cs), notices(evs, agent.CodeCompactRetries))
	}
	invariants.Check(t, evs)
	rawMatchesSent(t, h)
	h.golden("compaction_does_not_fit")
}

// Compact now, between runs: the button's command records the
// summarising request and the compaction in the last run, after its end;
// the next run sends the summary. It is refused while a run goes and
// when there is nothing older than the rounds kept.
func TestCompactNowCommand(t *testing.T) {
	h := newHarness(t, permission.ModeAuto, func(s *settings.Settings) { s.Compact, s.CompactKeepRounds = false, 1 })
	do := func() (session.Outcome, error) {
		return h.m.Do(context.Background(), session.Compact{Session: h.id})
	}
	if _, err := do(); !errors.Is(err, agent.ErrNothingToCompact) {
		t.Fatalf("an empty session: %v", err)
	}
	h.notes(3, 400)
	h.srv.Respond(reader(3))
	h.run("What do the notes say?")
	out, err := do()
	if err != nil {
		t.Fatal(err)
	}
	if c := out.Compaction; c == nil || c.Trigger != trace.CompactButton || c.FromRun != 1 || c.ThroughRun != 1 || c.Messages < 4 {
		t.Fatalf("outcome = %+v", out.Compaction)
	}
	if _, err := do(); !errors.Is(err, agent.ErrNothingToCompact) {
		t.Fatalf("compacting twice: %v", err)
	}
	h.srv.Respond(func(ollamatest.ChatRequest) ollamatest.Reply { return text("Noted.") })
	h.run("Thanks")
	sent := h.srv.Requests()
	last := sent[len(sent)-1].Chat.Messages
	if !strings.Contains(last[1].Content, "Notes 1 to") || last[len(last)-1].Content != "Thanks" {
		t.Fatalf("the next run sent %+v", last)
	}
	evs := h.events()
	invariants.Check(t, evs)
	rawMatchesSent(t, h)
	h.golden("compaction_button")
}
