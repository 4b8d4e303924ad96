package realscenarios_test

import (
	"context"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/gguf"
)

// BenchmarkShareOfRound runs whole two-round sessions (list_dir, then the
// answer) through session.Manager against the real server, and reports how
// much of the wall time of a run is Loupe's own: everything but the time
// spent in HTTP exchanges with Ollama (request sent → response body
// ended), which the client's transport measures. Loupe's part holds
// preparing the run (settings, workspace, tools), committing every event
// to SQLite (synchronous=FULL), projecting each request from the log,
// encoding it, decoding the stream, and running list_dir. Ollama's part
// holds /api/show and both /api/chat exchanges.
//
// Each iteration is a new session (its creation is not timed) in the same workspace, so every run
// sends the same prompts and Ollama reuses its prompt cache: its part is as
// small as this model makes it, which makes Loupe's share as large as it
// gets.
//
// Metrics: loupe-% (Loupe's share of the run), loupe-ms/op and
// ollama-ms/op per session of 2 rounds.
func BenchmarkShareOfRound(b *testing.B) {
	srv := startServer(b, gguf.Script{Steps: []gguf.Step{
		{Call: []gguf.Call{{Name: "list_dir", Args: `{"path": "."}`}}},
		{Answer: "The workspace has README.md and notes.txt."},
	}})
	r := newRig(b, srv)
	ctx := context.Background()
	// run times one run of a new session (creating it is not timed).
	run := func() (wall, ollama time.Duration) {
		id := r.newSession()
		before, start := r.wire.busyTime(), time.Now()
		end, err := r.m.Run(ctx, id, "What is in this folder?", session.RunOptions{})
		wall, ollama = time.Since(start), r.wire.busyTime()-before
		if err != nil || end.Reason != trace.EndAnswered || end.Rounds != 2 {
			b.Fatalf("run: %+v, %v", end, err)
		}
		return wall, ollama
	}
	run() // load the model and fill Ollama's prompt cache

	var wall, ollama time.Duration
	for b.Loop() {
		w, o := run()
		wall += w
		ollama += o
	}
	n := float64(b.N)
	loupe := wall - ollama
	b.ReportMetric(100*float64(loupe)/float64(wall), "loupe-%")
	b.ReportMetric(float64(loupe)/float64(time.Millisecond)/n, "loupe-ms/op")
	b.ReportMetric(float64(ollama)/float64(time.Millisecond)/n, "ollama-ms/op")
}
