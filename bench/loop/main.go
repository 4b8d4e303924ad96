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
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/loupe-dev/loupe/backend/cli"
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

type bench struct {
	c                 config
	root, ws, request string
}

// makeWorkspace writes a small project for list_dir to list.
func makeWorkspace(ws string) error {
	files := map[string]string{
		"README.md":          "# demo\n\nA small project.\n",
		"go.mod":             "module demo\n\ngo 1.22\n",
		"main.go":            "package main\n\nfunc main() {}\n",
		"docs/guide.md":      "# guide\n",
		"internal/util.go":   "package internal\n",
		"internal/util_test": "package internal\n",
	}
	for name, body := range files {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// fake is a running fakeollama.
type fake struct {
	cmd *exec.Cmd
	url string
}

// withFake runs fn with a fakeollama answering n rounds per conversation
// on a free loopback port, and stops it afterwards.
func (b *bench) withFake(ctx context.Context, n int, saveRequest string, fn func(*fake) error) error {
	args := []string{"-addr", "127.0.0.1:0", "-rounds", strconv.Itoa(n)}
	if saveRequest != "" {
		args = append(args, "-save-request", saveRequest)
	}
	cmd := exec.CommandContext(ctx, b.c.fake, args...)
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM} // even if this process is killed
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "fakeollama listening on "); ok {
				urls <- u
			}
		}
	}()
	select {
	case u := <-urls:
		return fn(&fake{cmd: cmd, url: u})
	case <-time.After(10 * time.Second):
		return errors.New("fakeollama did not say where it listens within 10 s")
	case <-ctx.Done():
		return ctx.Err()
	}
}

// cpu is the fake's user + system time so far, from /proc.
func (f *fake) cpu() time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", f.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// Fields after the command name, which is in parentheses: state is
	// field 3, utime 14 and stime 15.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(fields[11], 10, 64)
	st, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ
}

// measure runs one client process to its end and returns its output.
func (b *bench) measure(ctx context.Context, f *fake, name string, args ...string) (sample, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, b.c.timeout)
	defer cancel()
	outPath := filepath.Join(b.root, "stdout")
	out, err := os.Create(outPath)
	if err != nil {
		return sample{}, nil, err
	}
	defer os.Remove(outPath)
	defer out.Close()
	var stderr strings.Builder
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = out, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.Dir = b.root
	fake0 := f.cpu()
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	fake1 := f.cpu()
	if err != nil {
		return sample{}, nil, fmt.Errorf("%s: %v (time limit %v)\n%s", filepath.Base(name), err, b.c.timeout, tail(stderr.String(), 2000))
	}
	s := sample{wall: wall, fakeCPU: fake1 - fake0,
		cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		s.rssKB = ru.Maxrss
	}
	// Only the end of the output is read: it says how the run ended.
	if _, err := out.Seek(max(0, mustSize(out)-64<<10), io.SeekStart); err != nil {
		return s, nil, err
	}
	end, err := io.ReadAll(out)
	return s, end, err
}

func mustSize(f *os.File) int64 {
	fi, err := f.Stat()
	if err != nil {
		return 0
	}
	return fi.Size()
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

func lastLine(b []byte) []byte {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return []byte(lines[len(lines)-1])
}

func (b *bench) loupeArgs(f *fake, n int, db string) []string {
	return []string{"run", "--workspace", b.ws, "--model", "tiny", "--host", f.url, "--db", db,
		"--json", "--auto", "--max-rounds", strconv.Itoa(n), prompt}
}

// loupe runs `loupe run` on a fresh database and checks that it answered
// after n rounds.
func (b *bench) loupe(ctx context.Context, f *fake, n int, tag string) (sample, error) {
	db := filepath.Join(b.root, "loupe-"+tag+".db")
	defer removeDB(db)
	s, out, err := b.measure(ctx, f, b.c.loupe, b.loupeArgs(f, n, db)...)
	if err != nil {
		return s, err
	}
	return s, checkLoupeEnd(lastLine(out), n)
}

func removeDB(db string) {
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		os.Remove(db + suffix)
	}
}

func checkLoupeEnd(line []byte, n int) error {
	var ev struct {
		Kind    string `json:"kind"`
		Payload struct {
			Reason string `json:"reason"`
			Rounds int    `json:"rounds"`
		} `json:"payload"`
	}
	if err := json.Unmarshal(line, &ev); err != nil || ev.Kind != "run_end" {
		return fmt.Errorf("loupe's last line is not a run_end event: %.300s", line)
	}
	if ev.Payload.Reason != "answered" || ev.Payload.Rounds != n {
		return fmt.Errorf("loupe ended %q after %d rounds, want answered after %d", ev.Payload.Reason, ev.Payload.Rounds, n)
	}
	return nil
}

// peer runs peer.mjs and checks that it answered after n rounds.
func (b *bench) peer(ctx context.Context, f *fake, n int) (sample, error) {
	peer, err := filepath.Abs(b.c.peer)
	if err != nil {
		return sample{}, err
	}
	s, out, err := b.measure(ctx, f, b.c.node, peer, "--host", f.url, "--request", b.request,
		"--workspace", b.ws, "--max-rounds", strconv.Itoa(n))
	if err != nil {
		return s, err
	}
	var end struct {
		Rounds int `json:"rounds"`
	}
	if err := json.Unmarshal(lastLine(out), &end); err != nil || end.Rounds != n {
		return s, fmt.Errorf("the peer answered after %d rounds, want %d: %.300s", end.Rounds, n, out)
	}
	return s, nil
}

// allocRun runs this binary with -alloc-run: `loupe run` in process, with
// the heap allocations counted around it.
func (b *bench) allocRun(ctx context.Context, f *fake, n int) (allocBytes, allocs uint64, err error) {
	self, err := os.Executable()
	if err != nil {
		return 0, 0, err
	}
	db := filepath.Join(b.root, fmt.Sprintf("alloc-%d.db", n))
	defer removeDB(db)
	stats := filepath.Join(b.root, "allocs.json")
	defer os.Remove(stats)
	profile := "-"
	if b.c.cpuprofile != "" {
		if profile, err = filepath.Abs(fmt.Sprintf("%s-%d.pprof", b.c.cpuprofile, n)); err != nil {
			return 0, 0, err
		}
	}
	args := append([]string{"-alloc-run", stats, profile}, b.loupeArgs(f, n, db)...)
	if _, _, err := b.measure(ctx, f, self, args...); err != nil {
		return 0, 0, err
	}
	raw, err := os.ReadFile(stats)
	if err != nil {
		return 0, 0, err
	}
	var a allocStats
	if err := json.Unmarshal(raw, &a); err != nil {
		return 0, 0, err
	}
	if err := checkLoupeEnd([]byte(a.LastLine), n); err != nil {
		return 0, 0, err
	}
	return a.Bytes, a.Mallocs, nil
}

type allocStats struct {
	Bytes    uint64 `json:"bytes"`
	Mallocs  uint64 `json:"mallocs"`
	LastLine string `json:"last_line"`
}

// allocRun is the -alloc-run mode: -alloc-run FILE PROFILE run ARGS... runs
// `loupe run ARGS` in this process and writes the bytes and objects
// allocated during it to FILE, and a CPU profile of it to PROFILE unless
// that is "-".
func allocRun(args []string) int {
	if len(args) < 3 {
		return 2
	}
	stats, profile, args := args[0], args[1], args[2:]
	if profile != "-" {
		f, err := os.Create(profile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
		defer pprof.StopCPUProfile()
		defer writeHeapProfile(strings.TrimSuffix(profile, ".pprof") + ".heap.pprof")
	}
	var out lastLineWriter
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	code := cli.Main(args, &out, os.Stderr)
	runtime.ReadMemStats(&m1)
	b, _ := json.Marshal(allocStats{Bytes: m1.TotalAlloc - m0.TotalAlloc, Mallocs: m1.Mallocs - m0.Mallocs,
		LastLine: string(lastLine(out.last))})
	if err := os.WriteFile(stats, b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	return code
}

// writeHeapProfile writes the allocations made so far (pprof's
// alloc_space and alloc_objects) to path.
func writeHeapProfile(path string) {
	f, err := os.Create(path)
	if err == nil {
		err = pprof.Lookup("allocs").WriteTo(f, 0)
		f.Close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
	}
}

// lastLineWriter keeps only the last complete line written to it (a line
// is written whole by Loupe's printer), like a terminal nobody reads.
type lastLineWriter struct{ last []byte }

func (w *lastLineWriter) Write(p []byte) (int, error) {
	if len(bytes.TrimSpace(p)) > 0 {
		w.last = append(w.last[:0], p...)
	}
	return len(p), nil
}

func perRound(d time.Duration, n int) float64 {
	return float64(d) / float64(time.Millisecond) / float64(n)
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func medianOf(ss []sample, f func(sample) float64) float64 {
	xs := make([]float64, len(ss))
	for i, s := range ss {
		xs[i] = f(s)
	}
	return median(xs)
}

// report prints the tables and the goals.
func report(w io.Writer, ls []length, allocs bool) {
	wall := func(n int) func(sample) float64 { return func(s sample) float64 { return perRound(s.wall, n) } }
	cpu := func(n int) func(sample) float64 { return func(s sample) float64 { return perRound(s.cpu, n) } }
	fakeCPU := func(n int) func(sample) float64 { return func(s sample) float64 { return perRound(s.fakeCPU, n) } }
	rss := func(s sample) float64 { return float64(s.rssKB) / 1024 }

	// spread is "median (min–max)" of ms/round.
	spread := func(ss []sample, n int) string {
		xs := make([]float64, len(ss))
		for i, s := range ss {
			xs[i] = perRound(s.wall, n)
		}
		return fmt.Sprintf("%.2f (%.2f–%.2f)", median(xs), slices.Min(xs), slices.Max(xs))
	}
	ref := medianOf(ls[0].loupe, wall(ls[0].rounds))
	fmt.Fprintf(w, "\nms/round is the whole process's wall time divided by the rounds: the median of the runs (the fastest and slowest in parentheses).\n\n")
	fmt.Fprintf(w, "| rounds | runs | peer ms/round | loupe ms/round | loupe / peer | loupe vs %d rounds | peer peak RSS MB | loupe peak RSS MB |\n", ls[0].rounds)
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|---:|---:|")
	goal1, goal2 := true, true
	for _, l := range ls {
		p := medianOf(l.peer, wall(l.rounds))
		lo := medianOf(l.loupe, wall(l.rounds))
		goal1 = goal1 && lo <= p
		if l.rounds == ls[len(ls)-1].rounds {
			goal2 = lo <= 1.5*ref
		}
		fmt.Fprintf(w, "| %d | %d + %d | %s | %s | %.2f× | %.2f× | %.0f | %.0f |\n", l.rounds, len(l.peer), len(l.loupe),
			spread(l.peer, l.rounds), spread(l.loupe, l.rounds), lo/p, lo/ref, medianOf(l.peer, rss), medianOf(l.loupe, rss))
	}
	fmt.Fprintf(w, "\nCPU time per round (user + system, ms) of each client, and of the fake Ollama while it served that client:\n\n")
	fmt.Fprintln(w, "| rounds | peer CPU | loupe CPU | fake CPU (peer runs) | fake CPU (loupe runs) |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|")
	for _, l := range ls {
		fmt.Fprintf(w, "| %d | %.2f | %.2f | %.2f | %.2f |\n", l.rounds, medianOf(l.peer, cpu(l.rounds)),
			medianOf(l.loupe, cpu(l.rounds)), medianOf(l.peer, fakeCPU(l.rounds)), medianOf(l.loupe, fakeCPU(l.rounds)))
	}
	goal3 := ""
	if allocs {
		fmt.Fprintf(w, "\nLoupe's heap allocations, one in-process `loupe run` per length; \"marginal\" is per round added since the previous length:\n\n")
		fmt.Fprintln(w, "| rounds | KB/round | allocs/round | marginal KB/round | marginal allocs/round |")
		fmt.Fprintln(w, "|---:|---:|---:|---:|---:|")
		var margins []float64
		for i, l := range ls {
			mb, ma := "–", "–"
			if i > 0 {
				dr := float64(l.rounds - ls[i-1].rounds)
				kb := float64(l.allocBytes-ls[i-1].allocBytes) / 1024 / dr
				margins = append(margins, kb)
				mb = fmt.Sprintf("%.0f", kb)
				ma = fmt.Sprintf("%.0f", float64(l.allocs-ls[i-1].allocs)/dr)
			}
			fmt.Fprintf(w, "| %d | %.0f | %.0f | %s | %s |\n", l.rounds, float64(l.allocBytes)/1024/float64(l.rounds),
				float64(l.allocs)/float64(l.rounds), mb, ma)
		}
		if len(margins) >= 2 {
			ok := margins[len(margins)-1] <= 1.5*margins[0]
			goal3 = fmt.Sprintf("- allocations per round do not grow with the history (marginal KB/round of the last step at most 1.5× the first's): %s (%.1f×)\n",
				metWord(ok), margins[len(margins)-1]/margins[0])
		}
	}
	fmt.Fprintf(w, "\nGoals:\n")
	fmt.Fprintf(w, "- Loupe's time per round at most the peer's at every length: %s\n", metWord(goal1))
	fmt.Fprintf(w, "- Loupe's time per round at %d rounds at most 1.5× its time at %d: %s\n", ls[len(ls)-1].rounds, ls[0].rounds, metWord(goal2))
	fmt.Fprint(w, goal3)
}

func metWord(ok bool) string {
	if ok {
		return "met"
	}
	return "**not met**"
}
