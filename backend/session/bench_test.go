package session_test

import (
	"context"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/trace"
)

// BenchmarkRound measures the harness's own cost per round: building the
// request from the log, a streamed reply from the fake Ollama on loopback,
// validating and running a small read_file, and every event committed with
// synchronous=FULL. Each iteration is one fresh session of two rounds
// (read_file, then the answer); ns/round is the figure to compare.
func BenchmarkRound(b *testing.B) {
	h := newBenchHarness(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s, err := h.m.Create(ctx, h.ws, testModel)
		if err != nil {
			b.Fatal(err)
		}
		end, err := h.m.Run(ctx, s.ID, "Read the README", session.RunOptions{})
		if err != nil || end.Reason != trace.EndAnswered || end.Rounds != 2 {
			b.Fatalf("end=%+v err=%v", end, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/round")
}

func newBenchHarness(b *testing.B) *harness {
	srv := ollamatest.New(b)
	srv.AddModel(ollamatest.ModelSpec{Name: testModel, ContextLength: 8192})
	srv.Respond(func(req ollamatest.ChatRequest) ollamatest.Reply {
		if last := req.Messages[len(req.Messages)-1]; last.Role == "tool" {
			return ollamatest.Text("It says hello.")
		}
		return calls(call("", "read_file", `{"path":"README.md"}`))
	})
	return benchHarness(b, srv, permission.ModeAsk)
}
