package session_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
)

// BenchmarkRoundsCompacting is BenchmarkRounds with compaction on and a
// context small enough that it compacts every few rounds: num_ctx 2048,
// compaction at 90 %, the latest two rounds kept. Each session runs to
// its round cap (the fake calls list_dir every time and summarises when
// asked), so a round here is a round's request, answer and call plus its
// share of the summarising requests and compactions. The figures per
// round must not grow with the length of the session: a compaction
// rebuilds the history once, and the history a round sends stays short.
func BenchmarkRoundsCompacting(b *testing.B) {
	url := benchFake(b)
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("rounds=%d", n), func(b *testing.B) {
			ctx := context.Background()
			st, err := store.Open(filepath.Join(b.TempDir(), "loupe.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			m := session.NewManager(st, ollama.New(url, nil), nil, nil)
			defer m.StopAll()
			set := settings.Defaults()
			set.MaxRounds, set.NumCtxCap = n, 2048
			set.Compact, set.CompactAtPercent, set.CompactKeepRounds = true, 90, 2
			if err := settings.Save(ctx, st, set); err != nil {
				b.Fatal(err)
			}
			ws := fixedLengthDir(b)
			if err := os.WriteFile(filepath.Join(ws, "README.md"), []byte("# Demo\n"), 0o644); err != nil {
				b.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			cpu := cpuTime()
			compactions := 0
			b.ResetTimer()
			for b.Loop() {
				s, err := m.Create(ctx, ws, testModel)
				if err != nil {
					b.Fatal(err)
				}
				end, err := m.Run(ctx, s.ID, fmt.Sprintf("rounds=%d compacting", n), session.RunOptions{})
				if err != nil || end.Reason != trace.EndRoundCap || end.Rounds != n {
					b.Fatalf("end=%+v err=%v", end, err)
				}
				b.StopTimer()
				evs, err := st.Events(ctx, s.ID)
				if err != nil {
					b.Fatal(err)
				}
				for _, e := range evs {
					if e.Kind == trace.KindCompaction {
						compactions++
					}
				}
				b.StartTimer()
			}
			b.StopTimer()
			cpu = cpuTime() - cpu
			runtime.ReadMemStats(&after)
			if compactions == 0 {
				b.Fatal("no compaction: the benchmark measures nothing of it")
			}
			rounds := float64(b.N * n)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/rounds, "ns/round")
			b.ReportMetric(float64(cpu.Nanoseconds())/rounds, "cpu-ns/round")
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/rounds, "allocs/round")
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/rounds, "B/round")
			b.ReportMetric(float64(compactions)/rounds, "compactions/round")
		})
	}
}
