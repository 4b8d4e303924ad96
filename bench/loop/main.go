//go:build linux

// Command loop is the loop benchmark of docs/BENCHMARKS.md: `loupe run`
// against a plain ollama-js loop (peer.mjs), both as whole processes, on the
// same instant fake Ollama (fakeollama -rounds N), taking turns, at 10, 100
// and 1,000 rounds. Each Loupe run gets a fresh database with durable writes
// as Loupe ships them. It prints a Markdown table of the medians, and whether
// the goals of the benchmark are met. run.sh beside it builds what it needs
// and runs it:
//
//	bench/loop/run.sh [-lengths 10,100,1000] [-reps 5,5,3] [-dir DIR]
//
// Every process it starts talks only to the fake, on loopback; every run
// has a time limit and so has the whole benchmark.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const prompt = "List the workspace folder again and again until you are told to stop."

type config struct {
	loupe, fake, peer, node string
	dir                     string
	lengths, reps           []int
	timeout, deadline       time.Duration
	allocs                  bool
	cpuprofile              string
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-alloc-run" {
		os.Exit(allocRun(os.Args[2:]))
	}
	var c config
	var lengths, reps string
	flag.StringVar(&c.loupe, "loupe", "", "the loupe binary (required)")
	flag.StringVar(&c.fake, "fake", "", "the fakeollama binary (required)")
	flag.StringVar(&c.peer, "peer", "bench/loop/peer.mjs", "the peer script")
	flag.StringVar(&c.node, "node", "node", "the Node.js binary")
	flag.StringVar(&c.dir, "dir", "", "folder for the databases and the workspace (default the temp dir); must be a real disk for fsync to cost what it costs")
	flag.StringVar(&lengths, "lengths", "10,100,1000", "rounds per session, comma-separated; the first is the reference of the 1.5x goal")
	flag.StringVar(&reps, "reps", "5,5,3", "runs of each client per length")
	flag.DurationVar(&c.timeout, "timeout", 5*time.Minute, "time limit of one run")
	flag.DurationVar(&c.deadline, "deadline", 30*time.Minute, "time limit of the whole benchmark")
	flag.BoolVar(&c.allocs, "allocs", true, "also count Loupe's allocations per round (one in-process run per length)")
	flag.StringVar(&c.cpuprofile, "cpuprofile", "", "write a CPU profile of each in-process run to PREFIX-N.pprof and its allocations to PREFIX-N.heap.pprof (N the rounds; needs -allocs)")
	flag.Parse()
	var err error
	if c.lengths, err = ints(lengths); err == nil {
		c.reps, err = ints(reps)
	}
	if err == nil && len(c.reps) != len(c.lengths) {
		err = errors.New("-reps needs one count per length")
	}
	if err == nil && (c.loupe == "" || c.fake == "") {
		err = errors.New("-loupe and -fake are required")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	// SIGPIPE too: with the output gone (`| head`), it stops and cleans up.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, c.deadline)
	defer cancel()
	if err := run(ctx, c); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func ints(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a list of positive numbers", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// sample is one run of one client.
type sample struct {
	wall    time.Duration
	cpu     time.Duration // the client's user + system time
	fakeCPU time.Duration // the fake's, during the run
	rssKB   int64
}

// length is what was measured at one number of rounds.
type length struct {
	rounds      int
	peer, loupe []sample
	// Loupe's heap allocations over a whole in-process run.
	allocBytes, allocs uint64
}

func run(ctx context.Context, c config) error {
	root, err := os.MkdirTemp(c.dir, "loupe-bench-loop-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	var st syscall.Statfs_t
	if syscall.Statfs(root, &st) == nil && st.Type == 0x01021994 { // TMPFS_MAGIC
		fmt.Fprintln(os.Stderr, "bench: warning: the databases are on tmpfs, where fsync costs nothing; pass -dir on a disk")
	}
	ws := filepath.Join(root, "workspace")
	if err := makeWorkspace(ws); err != nil {
		return err
	}
	request := filepath.Join(root, "request.json")
	b := bench{c: c, root: root, ws: ws, request: request}

	// Warm-up, not measured: the first Loupe request is saved for the peer
	// to send the same tools, system prompt and options.
	fmt.Fprintln(os.Stderr, "warm-up: one run of each at 10 rounds")
	if err := b.withFake(ctx, 10, request, func(f *fake) error {
		if _, err := b.loupe(ctx, f, 10, "warmup"); err != nil {
			return err
		}
		_, err := b.peer(ctx, f, 10)
		return err
	}); err != nil {
		return err
	}

	load0 := loadavg()
	var results []length
	for i, n := range c.lengths {
		l := length{rounds: n}
		err := b.withFake(ctx, n, "", func(f *fake) error {
			for rep := range c.reps[i] {
				// Take turns: peer first on even runs, Loupe first on odd ones.
				order := []string{"peer", "loupe"}
				if rep%2 == 1 {
					order = []string{"loupe", "peer"}
				}
				for _, who := range order {
					var s sample
					var err error
					if who == "peer" {
						s, err = b.peer(ctx, f, n)
						l.peer = append(l.peer, s)
					} else {
						s, err = b.loupe(ctx, f, n, fmt.Sprintf("%d-%d", n, rep))
						l.loupe = append(l.loupe, s)
					}
					if err != nil {
						return err
					}
					fmt.Fprintf(os.Stderr, "%5d rounds, run %d, %-5s %8.2f ms/round  cpu %6.2f  fake cpu %5.2f  rss %4d MB\n",
						n, rep+1, who, perRound(s.wall, n), perRound(s.cpu, n), perRound(s.fakeCPU, n), s.rssKB/1024)
				}
			}
			if c.allocs {
				var err error
				if l.allocBytes, l.allocs, err = b.allocRun(ctx, f, n); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		results = append(results, l)
	}
	fmt.Printf("\n%s; load average (1 min) %s at the start, %s at the end.\n", machine(), load0, loadavg())
	report(os.Stdout, results, c.allocs)
	return nil
}

// machine names the CPU and counts the cores.
func machine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	return fmt.Sprintf("%d cores (%s)", runtime.NumCPU(), model)
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}
