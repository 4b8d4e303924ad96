package session_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/store"
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

// BenchmarkRounds runs whole sessions of 10, 100 and 1,000 rounds (a
// list_dir call each round, then the answer) through the Manager, as the
// app does: the real Ollama client over HTTP, the real tools, every event
// committed to SQLite with synchronous=FULL. The fake Ollama answers at
// once, from a process of its own, so that what is measured (time, and
// allocations from the Go runtime's counters) is Loupe's side only. The
// figures per round must not grow with the length of the session.
func BenchmarkRounds(b *testing.B) {
	url := benchFake(b)
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("rounds=%d", n), func(b *testing.B) {
			// The plain loop: BenchmarkRoundsCompacting measures it with
			// compaction.
			benchRounds(b, url, n, false)
		})
	}
}

// BenchmarkRoundsShipped is BenchmarkRounds with the settings Loupe ships
// (`loupe run` without flags): compaction on, its threshold never reached
// since the context holds 1,000 rounds. Every check a default round makes
// before its request is in it, so a check that walks the whole history
// shows here as a cost per round that grows from 10 to 1,000 rounds.
func BenchmarkRoundsShipped(b *testing.B) {
	url := benchFake(b)
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("rounds=%d", n), func(b *testing.B) {
			benchRounds(b, url, n, settings.Defaults().Compact)
		})
	}
}

// benchRounds runs sessions of n rounds against the fake at url and
// reports the figures per round.
func benchRounds(b *testing.B, url string, n int, compact bool) {
	ctx := context.Background()
	st, err := store.Open(filepath.Join(b.TempDir(), "loupe.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	m := session.NewManager(st, ollama.New(url, nil), nil, nil)
	defer m.StopAll()
	set := settings.Defaults()
	// A context that holds 1,000 rounds: Ollama is asked not to cut
	// (truncate false), and the fake refuses a prompt over num_ctx.
	set.MaxRounds, set.Compact, set.NumCtxCap = n, compact, 1<<20
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
	b.ResetTimer()
	for b.Loop() {
		s, err := m.Create(ctx, ws, testModel)
		if err != nil {
			b.Fatal(err)
		}
		end, err := m.Run(ctx, s.ID, fmt.Sprintf("rounds=%d", n), session.RunOptions{})
		if err != nil || end.Reason != trace.EndAnswered || end.Rounds != n {
			b.Fatalf("end=%+v err=%v", end, err)
		}
	}
	b.StopTimer()
	cpu = cpuTime() - cpu
	runtime.ReadMemStats(&after)
	rounds := float64(b.N * n)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/rounds, "ns/round")
	b.ReportMetric(float64(cpu.Nanoseconds())/rounds, "cpu-ns/round")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/rounds, "allocs/round")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/rounds, "B/round")
}

// cpuTime is the CPU time (user and system) this process used so far: with
// the fake in its own process, Loupe's.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchFakeEnv makes this test binary serve BenchmarkRounds' fake Ollama
// instead of running tests (see TestMain).
const benchFakeEnv = "LOUPE_BENCH_FAKE_OLLAMA"

// benchFake starts the fake Ollama process and returns its URL. It dies
// with the benchmark: it stops when its stdin closes.
func benchFake(b *testing.B) string {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), benchFakeEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	url, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatalf("the fake Ollama did not start: %v", err)
	}
	return strings.TrimSpace(url)
}

// serveBenchFake is the fake's process: a conversation whose first message
// says "rounds=N" gets a list_dir call per request ("." and "./" in turn,
// so that no three rounds repeat) until its history holds N-1 answers,
// then a text answer; one whose first message ends " compacting" calls
// every time, and a request without tools (a summarising one) gets a
// summary. It keeps no request.
func serveBenchFake() {
	srv, err := ollamatest.Start("127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	srv.AddModel(ollamatest.ModelSpec{Name: testModel, ContextLength: 1 << 20})
	srv.Respond(func(req ollamatest.ChatRequest) ollamatest.Reply {
		srv.ForgetRequests()
		if len(req.Tools) == 0 {
			// Loupe's summarising request (BenchmarkRoundsCompacting).
			return ollamatest.Text("The folder was listed again and again.")
		}
		n, answered, compacting := 0, 0, false
		for _, m := range req.Messages {
			switch m.Role {
			case "user":
				if n == 0 {
					fmt.Sscanf(m.Content, "rounds=%d", &n)
					compacting = compacting || strings.HasSuffix(m.Content, " compacting")
				}
			case "assistant":
				answered++
			}
		}
		// A compacted history holds fewer answers than rounds: such a
		// session calls until the round cap ends it.
		if answered+1 < n || compacting {
			return calls(call("", "list_dir", []string{`{"path":"."}`, `{"path":"./"}`}[answered%2]))
		}
		return ollamatest.Text("Listed the folder.")
	})
	fmt.Println(srv.URL())
	io.Copy(io.Discard, os.Stdin)
	srv.Close()
}
