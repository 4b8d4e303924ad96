package session_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/trace"
)

// BenchmarkMCPRound is the harness's time per round with 0, 1 and 5 MCP
// servers configured (the in-repo Go server): each iteration is one run of
// ten rounds, nine calls and the answer, against the fake Ollama on
// loopback, with every event committed. With no server the calls are
// read_file; with servers they are s1.echo, allowed by a rule. The run
// starts its servers and stops them at its end: that is in the figure
// (start-ms/run says how much of it).
func BenchmarkMCPRound(b *testing.B) {
	const rounds = 10
	for _, n := range []int{0, 1, 5} {
		b.Run(fmt.Sprintf("servers=%d", n), func(b *testing.B) {
			bin := faultServer(b)
			srv := ollamatest.New(b)
			srv.AddModel(ollamatest.ModelSpec{Name: testModel, ContextLength: 32768})
			srv.Respond(func(req ollamatest.ChatRequest) ollamatest.Reply {
				done := 0
				for _, m := range req.Messages {
					if m.Role == "tool" {
						done++
					}
				}
				if done >= rounds-1 {
					return ollamatest.Text("done")
				}
				// Each round's call differs (the same one over and over
				// stops the run).
				if n == 0 {
					return calls(call("", "read_file", fmt.Sprintf(`{"path":"README.md","offset":%d}`, done+1)))
				}
				return calls(call("", "s1.echo", fmt.Sprintf(`{"text":"round %d"}`, done)))
			})
			h := build(b, srv, permission.ModeAsk, func(s *settings.Settings) {
				s.MaxRounds = 100
				s.RepeatLimit = 100
				s.Rules = append(s.Rules, permission.Rule{Effect: permission.EffectAllow, Tool: "s1.*"})
			})
			if n > 0 {
				var parts []string
				for i := 1; i <= n; i++ {
					parts = append(parts, fmt.Sprintf(`"s%d": {"command": %q}`, i, bin))
				}
				addServers(b, h, `{"mcpServers": {`+strings.Join(parts, ",")+`}}`)
			}
			ctx := context.Background()
			b.ResetTimer()
			for b.Loop() {
				s, err := h.m.Create(ctx, h.ws, testModel)
				if err != nil {
					b.Fatal(err)
				}
				end, err := h.m.Run(ctx, s.ID, "go", session.RunOptions{})
				if err != nil || end.Reason != trace.EndAnswered || end.Rounds != rounds {
					b.Fatalf("end=%+v err=%v", end, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rounds*b.N), "ns/round")
		})
	}
}
