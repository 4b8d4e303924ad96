package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"

	"github.com/loupe-dev/loupe/backend/cli"
)

// Allocations of a run, counted in this process: -alloc-run runs `loupe run`
// here, and the benchmark starts it as a child for each length.

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
