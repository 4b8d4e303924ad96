package realscenarios_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/gguf"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

// A long run on real Ollama with compaction: the scripted model reads one
// note a round. Its tokenizer counts about a token a byte, four times
// Loupe's estimate, and each round adds more than half the room left, so
// before the threshold's hysteresis lets a compaction through, real
// Ollama refuses a prompt as longer than num_ctx. Loupe then asks the
// model for a summary (a request with no tools, which the script answers)
// and sends the prompt again with the summary and the latest two rounds.
// The model sees the summary (its template picks the steps after
// compaction) and answers. Every call keeps its result and every request
// rebuilds from the log byte for byte.
func TestCompactionInALongRun(t *testing.T) {
	var steps []gguf.Step
	for i := 1; i <= 8; i++ {
		steps = append(steps, gguf.Step{Call: []gguf.Call{{Name: "read_file", Args: fmt.Sprintf(`{"path": "notes/%d.txt"}`, i)}}})
	}
	srv := startServer(t, gguf.Script{
		ContextLength: 3072, CompactTools: true, Steps: steps,
		Summary: "The user asked what the notes say; the notes read so far are lists of lines.",
		// Two rounds are kept: the third answer after the summary is the
		// model's first.
		AfterCompaction: []gguf.Step{{Answer: "unused 0"}, {Answer: "unused 1"}, {Answer: "The notes are lists of lines."}},
	})
	r := newRig(t, srv)
	s, err := settings.Load(context.Background(), r.st)
	if err != nil {
		t.Fatal(err)
	}
	s.CompactAtPercent, s.CompactKeepRounds = 50, 2
	if err := settings.Save(context.Background(), r.st, s); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 8; i++ {
		var b strings.Builder
		for j := 0; b.Len() < 260; j++ {
			fmt.Fprintf(&b, "note %d line %d\n", i, j)
		}
		r.write(fmt.Sprintf("notes/%d.txt", i), b.String())
	}
	end := r.run("What do the notes say?")
	if end.Reason != trace.EndAnswered || end.FinalText != "The notes are lists of lines." {
		t.Fatalf("end = %+v", end)
	}
	evs := r.events()
	invariants.Check(t, evs)
	cs := payloads[trace.Compaction](t, evs, trace.KindCompaction)
	if len(cs) != 1 || cs[0].Trigger != trace.CompactDoesNotFit || cs[0].Summary != "The user asked what the notes say; the notes read so far are lists of lines." {
		t.Fatalf("compactions = %+v", cs)
	}
	// The summarising request went to real Ollama without tools, with the
	// summarising prompt, and its answer is not a message of the history.
	bodies := r.checkRawRequests()
	reqs := payloads[trace.ModelRequest](t, evs, trace.KindModelRequest)
	summarised := false
	for i, mr := range reqs {
		if mr.Purpose != trace.PurposeCompaction {
			if summarised && !strings.Contains(bodies[i], "[Loupe compacted the conversation") {
				t.Fatalf("request %d after the compaction does not send the summary", i+1)
			}
			continue
		}
		summarised = true
		if mr.System != agent.SummaryPrompt || len(mr.ToolNames) != 0 || strings.Contains(bodies[i], `"tools"`) {
			t.Fatalf("summarising request %d: %+v", i+1, mr)
		}
	}
	if n := len(payloads[trace.Error](t, evs, trace.KindError)); n != 0 {
		t.Fatalf("%d errors: the refused prompt was not sent again compacted", n)
	}
	last := bodies[len(bodies)-1]
	if strings.Contains(last, "note 1 line 0") {
		t.Fatal("the last request still sends the first note, which the summary replaced")
	}
	r.golden("compaction")
}
